"""The slim frame of generated pages: the same header, sections, drawer and table of contents as
material's pages, with icons from one shared sprite and the palette script from one shared file;
the drawer opens and closes at phone width with and without JavaScript. Plus the sprite's pure
parts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.browser import serve
from playwright.sync_api import Browser, expect

from commit_digest.site.rendering.icon_sprite import IconError, icon_reference, parse_icon, sprite_document
from tests.site.conftest import BuiltSite
from tests.site.factories import sha_for

MENU = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M3 6h18v2H3z"/></svg>'
SVG_NS = "{http://www.w3.org/2000/svg}"


def test_an_icon_becomes_a_symbol_and_a_reference() -> None:
    icon = parse_icon("material/menu", MENU)
    assert (icon.id, icon.view_box, icon.body) == ("material-menu", "0 0 24 24", '<path d="M3 6h18v2H3z"/>')
    reference = icon_reference(icon, "../../assets/digest-icons.svg")
    assert reference == (
        '<svg viewBox="0 0 24 24" aria-hidden="true"><use href="../../assets/digest-icons.svg#material-menu"/></svg>'
    )
    other = parse_icon("fontawesome/brands/git-alt", MENU.replace("0 0 24 24", "0 0 448 512"))
    sprite = sprite_document([other, icon, icon])
    assert sprite == sprite_document([icon, other])  # same icons, same bytes
    symbols = ElementTree.fromstring(sprite).findall(f"{SVG_NS}symbol")
    assert [symbol.get("id") for symbol in symbols] == ["fontawesome-brands-git-alt", "material-menu"]


def test_an_icon_file_may_start_with_an_xml_declaration_and_comments() -> None:
    icon = parse_icon("own/logo", '<?xml version="1.0"?>\n<!-- drawn by hand -->\n' + MENU)
    assert (icon.view_box, icon.body) == ("0 0 24 24", '<path d="M3 6h18v2H3z"/>')


@pytest.mark.parametrize("svg", ["<svg><path/></svg>", "<div viewBox='0 0 1 1'></div>", "", "<svg viewBox='0 0 1 1'>"])
def test_an_icon_that_is_not_one_svg_with_a_view_box_is_refused(svg: str) -> None:
    with pytest.raises(IconError, match="material/x"):
        parse_icon("material/x", svg)


def _commit_page(site: BuiltSite) -> str:
    return site.page(f"commits/{sha_for('high-1')[:12]}/")


def test_generated_pages_refer_to_the_shared_sprite_and_scripts(zh_site: BuiltSite) -> None:
    page = _commit_page(zh_site)
    assert "<path" not in page  # no inline icon
    references = re.findall(r'<use href="\.\./\.\./assets/digest-icons\.svg#([\w-]+)"/>', page)
    assert {"material-library", "material-menu", "fontawesome-brands-git-alt", "material-arrow-up"} <= set(references)
    sprite = ElementTree.parse(zh_site.site / "assets/digest-icons.svg").getroot()
    ids = {symbol.get("id") for symbol in sprite.findall(f"{SVG_NS}symbol")}
    assert set(references) <= ids
    # The palette toggle and material's script configuration are built by shared scripts.
    assert '<script src="../../assets/digest-palette.js"></script>' in page
    assert 'data-md-component="palette"' not in page and '<script id="__config"' not in page
    palette = (zh_site.site / "assets/digest-palette.js").read_text(encoding="utf-8")
    assert '"toggle": {"name": "切换到深色模式", "icon": "material-brightness-7"' in palette
    assert 'var palette=__md_get("__palette")' in palette and "<script" not in palette  # material's restore
    # Material's storage helpers, scoped to the site's root from the shared file's own address.
    assert '<script src="../../assets/digest-scope.js"></script>' in page and "__md_scope" not in page
    scope = (zh_site.site / "assets/digest-scope.js").read_text(encoding="utf-8")
    assert scope.startswith('__md_scope=new URL("..",document.currentScript.src)')
    assert '"features": ["navigation.tabs", "navigation.top"]' in scope and "search.result" not in scope
    # The theme's own stylesheets and script, by their hashed names.
    assert re.search(r'href="\.\./\.\./assets/stylesheets/main\.[0-9a-f]+\.min\.css"', page)
    assert re.search(r'src="\.\./\.\./assets/javascripts/bundle\.[0-9a-f]+\.min\.js"', page)
    # The status script is the site's digest.js, no longer inline in every footer.
    assert "fetch(" not in page and 'data-digest-status="../../status.json"' in page
    # One list of sections, and the table of contents of the page's headings.
    # Its items carry no class (digest.css styles them by place); the table of contents' links
    # keep the one material's scroll spy looks for.
    tabs = page[page.index('<ul class="md-tabs__list">') : page.index("</ul>", page.index("md-tabs__list"))]
    assert tabs.count("<li><a href=") >= 8 and tabs.count("aria-current") == 0  # a commit is in no section
    assert "md-tabs__item" not in page and "md-tabs__link" not in page and "md-nav__item" not in page
    assert 'class="md-nav__link"' not in page.split('data-md-type="toc"')[0]
    assert '<li><a href="#summary" class="md-nav__link">' in page


def test_hand_written_pages_keep_materials_own_frame(zh_site: BuiltSite) -> None:
    own = zh_site.page("deprecations/")
    assert "digest-icons.svg" not in own and 'class="md-nav__link"' in own


@pytest.mark.parametrize(
    ("change", "slim"),
    [
        ({}, True),
        ({"theme": {"name": "readthedocs"}}, False),
        ({"theme": {"features": ["navigation.top"]}}, False),  # no tabs: material's sidebar navigation
        ({"theme": {"features": ["navigation.tabs", "navigation.tabs.sticky"]}}, False),
        ({"theme": {"font": {"text": "Roboto"}}}, False),
        ({"extra": {"analytics": {"provider": "google", "property": "G-X"}}}, False),
        ({"extra": {"version": {"provider": "mike"}}}, False),
    ],
)
def test_the_slim_frame_is_for_material_as_the_site_configures_it(
    change: dict[str, dict], slim: bool, tmp_path: Path
) -> None:
    from mkdocs.config.defaults import MkDocsConfig

    from commit_digest_mkdocs.slim_frame import slim_frame_configured

    theme: dict[str, object] = {"name": "material", "features": ["navigation.tabs"], "font": False}
    theme.update(change.get("theme", {}))
    config = MkDocsConfig()
    (tmp_path / "docs").mkdir()
    config.load_dict(
        {"site_name": "x", "docs_dir": str(tmp_path / "docs"), "theme": theme, "extra": change.get("extra", {})}
    )
    errors, _ = config.validate()
    assert not errors
    assert slim_frame_configured(config) is slim


def test_a_site_owners_page_template_frames_the_generated_pages(tmp_path: Path) -> None:
    from tests.site.conftest import build_site
    from tests.site.factories import sample_records

    own = '{% extends "base.html" %}{% block content %}<p class="own-frame">own</p>{{ super() }}{% endblock %}'
    site = build_site(tmp_path / "site", sample_records()[:3], hand_written={"overrides/main.html": own})
    page = site.page(f"commits/{sha_for('high-1')[:12]}/")
    assert 'class="own-frame"' in page and "digest-icons.svg" not in page


@pytest.fixture(scope="module")
def zh_url(zh_site: BuiltSite) -> Iterator[str]:
    with serve(zh_site.site) as url:
        yield url


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False])
def test_the_drawer_opens_and_closes_at_phone_width(browser: Browser, zh_url: str, javascript: bool) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800}, java_script_enabled=javascript)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(zh_url + f"commits/{sha_for('high-1')[:12]}/")
    archive = page.locator(".digest-nav .md-tabs__list a", has_text="归档")
    assert not archive.is_visible()  # closed: out of sight and out of the keyboard's reach
    page.click("label.md-header__button[for='__drawer']")
    archive.wait_for(state="visible")
    expect(page.locator(".digest-nav")).to_be_in_viewport(ratio=1)  # slid in whole
    # The sprite's icons draw (a <use> of a symbol that loaded has a size).
    logo = page.locator(".digest-nav__title .md-logo svg").bounding_box()
    assert logo is not None and logo["width"] > 10
    archive.click()
    page.wait_for_url("**/archive/")
    assert errors == []
    context.close()


@pytest.mark.browser
def test_the_sections_are_tabs_at_desktop_width(browser: Browser, zh_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(zh_url + f"commits/{sha_for('high-1')[:12]}/")
    tabs = page.locator(".digest-nav .md-tabs__list a")
    boxes = [tabs.nth(number).bounding_box() for number in range(3)]
    assert all(box is not None for box in boxes)
    assert len({round(box["y"]) for box in boxes if box}) == 1  # one row
    assert not page.locator(".digest-nav__title").is_visible()
    toc = page.locator(".md-sidebar--secondary .md-nav__link").first
    assert toc.is_visible()
    menu = page.locator("label.md-header__button[for='__drawer'] svg")
    assert not menu.is_visible()  # material hides the menu button where the tabs show
    # The scripts built material's configuration (the site's root) and the palette toggle.
    base = page.evaluate("() => JSON.parse(document.getElementById('__config').textContent).base")
    assert base == zh_url
    scheme = page.evaluate("() => document.body.dataset.mdColorScheme")
    page.locator("form[data-md-component=palette] label:visible").click()
    page.wait_for_function(f"() => document.body.dataset.mdColorScheme !== '{scheme}'")
    icon = page.locator("form[data-md-component=palette] label:visible svg").bounding_box()
    assert icon is not None and icon["width"] > 10  # the sprite's symbol draws
    # Items without classes look as material's do: 0.7rem links, 2.4rem high; a section's own
    # tab is bold and underlined.
    page.goto(zh_url + "archive/")
    first = page.locator(".digest-nav .md-tabs__list > li").first
    assert first.evaluate("item => getComputedStyle(item).height") == "48px"
    assert tabs.first.evaluate("link => getComputedStyle(link).fontSize") == "14px"
    current = page.locator(".digest-nav a[aria-current=page]")
    assert current.inner_text() == "归档"
    assert current.evaluate("link => getComputedStyle(link).fontWeight") == "700"
    context.close()


def test_a_theme_the_frame_cannot_read_keeps_its_own_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Another version of material, whose base.html names its assets otherwise: a warning, and
    the generated pages are framed by the theme's own template (no slim frame, no shared files)."""
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import Files

    from commit_digest_mkdocs import slim_frame

    def unreadable(env: object) -> list[str]:
        raise PluginError("commit-digest: the theme's base.html names [] as its assets; expected three")

    monkeypatch.setattr(slim_frame, "_theme_assets", unreadable)
    (tmp_path / "docs").mkdir()
    config = MkDocsConfig()
    theme = {"name": "material", "features": ["navigation.tabs"], "font": False}
    config.load_dict({"site_name": "x", "docs_dir": str(tmp_path / "docs"), "theme": theme})
    assert not config.validate()[0]
    files = Files([])
    slim_frame.add_frame_files(files, config, set())
    assert list(files) == [] and slim_frame.EXTRA_KEY not in config.extra
    assert not slim_frame.uses_slim_frame(config, type("Nav", (), {"items": []})())
    assert "keep the theme's own template" in caplog.text
