"""A keyboard on a phone (412 px) and on a desktop: every Tab stop is on screen and shows a ring;
the closed drawer's links are out of the tab order; the menu opens from a named control that a
keyboard reaches, without JavaScript too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from benchmarks.browser import serve
from playwright.sync_api import Browser, Page, expect

from tests.site.conftest import BuiltSite
from tests.site.factories import sha_for

# What the focused element is, where, and whether it (or, for the drawer's checkbox and the
# palette's radio inputs, which are invisible, the control that shows them) draws a ring.
_FOCUSED = """() => {
  const element = document.activeElement;
  let shown = element;
  if (element.id === "__drawer") shown = document.querySelector("label.md-header__button[for='__drawer']");
  else if (element.classList.contains("md-option")) shown = element.nextElementSibling;
  const box = shown.getBoundingClientRect();
  const style = getComputedStyle(shown);
  return {
    name: element.tagName + "#" + element.id + "." + element.className + " "
      + (element.getAttribute("aria-label") || element.textContent || "").trim().slice(0, 30),
    label: element.id === "__drawer" ? element.getAttribute("aria-label") : "-",
    x: box.x, y: box.y, width: box.width, height: box.height,
    visible: style.visibility === "visible" && style.display !== "none",
    ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
  };
}"""


@pytest.fixture(scope="module")
def zh_url(zh_site: BuiltSite) -> Iterator[str]:
    with serve(zh_site.site) as url:
        yield url


def _tab_stops(page: Page, count: int) -> list[dict[str, object]]:
    """Up to ``count`` Tab stops, until focus leaves the page."""
    stops = []
    for _ in range(count):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement === document.body"):
            break
        stops.append(page.evaluate(_FOCUSED))
    return stops


@pytest.mark.browser
@pytest.mark.parametrize("width", [412, 1350])
@pytest.mark.parametrize(
    "path", ["", "days/2026-01-17/", f"commits/{sha_for('high-1')[:12]}/", "about/", "search/?q=rocm", "no/such/page/"]
)
def test_every_tab_stop_is_on_screen_and_shows_a_ring(browser: Browser, zh_url: str, path: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(zh_url + path)
    page.wait_for_load_state("networkidle")
    for stop in _tab_stops(page, 30):
        where = f"{path or 'home'} @{width}: {stop}"
        assert stop["visible"] and stop["width"] > 0 and stop["height"] > 0, where
        assert 0 <= stop["x"] < width and stop["y"] > -50, where  # on screen (the page scrolls to it)
        assert stop["ring"], where
        assert stop["label"], where  # the menu's checkbox has a name
    context.close()


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False])
def test_the_menu_opens_from_the_keyboard_on_a_phone(browser: Browser, zh_url: str, javascript: bool) -> None:
    context = browser.new_context(viewport={"width": 412, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    page.goto(zh_url + "days/2026-01-17/")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "__drawer"
    page.keyboard.press("Space")  # a checkbox: Space opens the drawer, no script needed
    for _ in range(8):  # past the skip link and the header's controls, into the drawer
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.closest('.digest-nav') !== null"):
            break
    assert page.evaluate("() => document.activeElement.closest('.digest-nav') !== null")
    expect(page.locator(".digest-nav")).to_be_in_viewport(ratio=1)  # slid in
    stop = page.evaluate(_FOCUSED)
    assert stop["visible"] and 0 <= stop["x"] < 412 and stop["ring"], stop
    context.close()


# The layout shifts the browser recorded since the page began loading (Layout Instability API).
_LAYOUT_SHIFT = """() => new Promise((resolve) => {
  new PerformanceObserver((list) => {
    resolve(list.getEntries().filter((entry) => !entry.hadRecentInput).reduce((sum, entry) => sum + entry.value, 0));
  }).observe({ type: "layout-shift", buffered: true });
  setTimeout(() => resolve(0), 1000);  // no entry at all: nothing moved
})"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [412, 1350])
@pytest.mark.parametrize("path", ["", "days/2026-01-17/", f"commits/{sha_for('high-1')[:12]}/"])
def test_nothing_moves_once_the_scripts_have_run(browser: Browser, zh_url: str, path: str, width: int) -> None:
    """The day's filter bar keeps its place from the first paint; the stale-data notice (the
    sample's data are old) is a bar at the screen's foot: neither pushes the page."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(zh_url + path)
    page.wait_for_function("() => document.querySelector('.digest-stale') !== null")  # status.json read
    if path.startswith("days/"):
        page.wait_for_function("() => !document.querySelector('[data-digest-filter]').hidden")
    shift = page.evaluate(_LAYOUT_SHIFT)
    assert shift < 0.01, f"{path or 'home'} @{width}: layout shift {shift:.3f}"
    context.close()
