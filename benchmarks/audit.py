"""Lighthouse on the demo site as GitHub Pages serves it: four scores and the layout shift per page.

    .venv/bin/python -m benchmarks.audit [--site DIR ...] [--cache DIR] [--json FILE]

Without ``--site`` it builds the demo site in Chinese and in English (``commit-digest demo``) into
a temporary folder. Each site is served on 127.0.0.1 by a small threaded server that, like GitHub
Pages, gzips text responses and answers an unknown path with the site's 404.html. Lighthouse
12.2.3 (installed on first use with ``npm i -E lighthouse@12.2.3`` into ``--cache``, by default
``~/.cache/commit-digest/lighthouse-12.2.3``, outside the repository; Lighthouse 13 needs Node 22)
audits the home page, the newest day, one commit of that day and the search page with a query
(results shown), once as a phone (Lighthouse's default: mobile emulation, simulated slow 4G and
CPU throttling) and once with ``--preset=desktop``, in Debian's chromium (``$CHROME_PATH``, by
default /usr/bin/chromium, ``--headless=new --no-sandbox``).

Printed per page: performance, accessibility, best practices and SEO (0-100) and the cumulative
layout shift, read from the ``cumulative-layout-shift`` audit: Lighthouse 12.2.3 cannot parse
this chromium's traces for ``layout-shifts`` and ``largest-contentful-paint-element``, so those
audits (and the scores they would lower) are left out of consideration by Lighthouse itself. A
benchmark, not a test: it needs the npm registry once and takes a few minutes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

from benchmarks.browser import serve

LIGHTHOUSE_VERSION = "12.2.3"
DEFAULT_CACHE = Path.home() / ".cache" / "commit-digest" / f"lighthouse-{LIGHTHOUSE_VERSION}"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FORM_FACTORS = ("mobile", "desktop")
SEARCH_QUERY = "cuda"  # a word of many demo commits: the search page is audited with results shown
TEXT_TYPES = ("text/", "application/javascript", "application/json", "application/xml", "image/svg+xml")
RUN_TIMEOUT_S = 300


@dataclass(frozen=True)
class Audit:
    """Lighthouse's figures for one page in one form factor."""

    site: str
    page: str
    form_factor: str
    scores: dict[str, int]  # category -> 0..100
    cls: float


class _GzipHandler(SimpleHTTPRequestHandler):
    """Static files, text gzipped when the client accepts it; an unknown path gets 404.html with
    status 404, as GitHub Pages answers."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        url_path = urlsplit(self.path).path
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not url_path.endswith("/"):
                super().do_GET()  # the redirect to the folder's address
                return
            path = path / "index.html"
        if path.is_file():
            self._send(200, path)
        else:
            self._send(404, Path(self.directory) / "404.html")

    def _send(self, status: int, path: Path) -> None:
        body = path.read_bytes()
        content_type = self.guess_type(str(path))
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        if content_type.startswith(TEXT_TYPES) and "gzip" in self.headers.get("Accept-Encoding", ""):
            body = gzip.compress(body, compresslevel=6)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_gzip(site: Path) -> AbstractContextManager[str]:
    """``site`` over HTTP on 127.0.0.1 with gzip; yields its base URL (ending in "/")."""
    return serve(site, _GzipHandler)


def lighthouse_command(cache: Path) -> Path:
    """The lighthouse executable under ``cache``, installed from npm the first time."""
    executable = cache / "node_modules" / ".bin" / "lighthouse"
    if not executable.exists():
        cache.mkdir(parents=True, exist_ok=True)
        if not (cache / "package.json").exists():
            (cache / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        print(f"installing lighthouse {LIGHTHOUSE_VERSION} into {cache}", file=sys.stderr)
        subprocess.run(
            ["npm", "i", "-E", f"lighthouse@{LIGHTHOUSE_VERSION}", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=cache,
            check=True,
        )
    return executable


def build_demo(folder: Path, language: str) -> Path:
    """The demo site in ``language``, built with the project's own command."""
    site = folder / f"demo-{language}"
    command = [sys.executable, "-m", "commit_digest.cli", "demo", "--site-dir", str(site), "--language", language]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return site


def pages_of(site: Path) -> dict[str, str]:
    """Page kind -> path: home, the newest day, the first commit of that day, search with a query."""
    days = sorted(path.parent.name for path in (site / "days").glob("*/index.html"))
    if not days:
        raise SystemExit(f"{site} has no day pages: is it a commit-digest site?")
    day = f"days/{days[-1]}/"
    day_html = (site / day / "index.html").read_text(encoding="utf-8")
    marker = 'href="../../commits/'
    start = day_html.find(marker)
    if start < 0:
        raise SystemExit(f"{site / day} links to no commit page")
    sha = day_html[start + len(marker) :].split("/", 1)[0]
    return {"home": "", "day": day, "commit": f"commits/{sha}/", "search": f"search/?q={SEARCH_QUERY}"}


def run_lighthouse(lighthouse: Path, url: str, form_factor: str, report: Path) -> tuple[dict[str, int], float]:
    """The four category scores and the CLS of one Lighthouse run."""
    command = [
        str(lighthouse),
        url,
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox",
        "--quiet",
    ]
    if form_factor == "desktop":
        command.append("--preset=desktop")
    environment = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    subprocess.run(command, check=True, env=environment, timeout=RUN_TIMEOUT_S)
    result = json.loads(report.read_text(encoding="utf-8"))
    # A score is null when Lighthouse could not compute it: shown as 0.
    scores = {name: round((result["categories"][name]["score"] or 0) * 100) for name in CATEGORIES}
    cls = float(result["audits"]["cumulative-layout-shift"].get("numericValue") or 0.0)
    return scores, cls


def audit_site(lighthouse: Path, name: str, site: Path, reports: Path) -> list[Audit]:
    found: list[Audit] = []
    with serve_gzip(site) as base:
        for page, path in pages_of(site).items():
            for form_factor in FORM_FACTORS:
                report = reports / f"{name}-{page}-{form_factor}.json"
                scores, cls = run_lighthouse(lighthouse, base + path, form_factor, report)
                audit = Audit(name, page, form_factor, scores, cls)
                print(_row(audit), flush=True)
                found.append(audit)
    return found


HEADER = f"{'site':<8} {'page':<8} {'form':<8} {'perf':>5} {'a11y':>5} {'bp':>5} {'seo':>5} {'CLS':>7}"


def _row(audit: Audit) -> str:
    scores = " ".join(f"{audit.scores[name]:>5}" for name in CATEGORIES)
    return f"{audit.site:<8} {audit.page:<8} {audit.form_factor:<8} {scores} {audit.cls:>7.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, action="append", help="a built site to audit (repeatable)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where Lighthouse is installed")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    options = parser.parse_args(argv)
    lighthouse = lighthouse_command(options.cache)
    with tempfile.TemporaryDirectory(prefix="commit-digest-audit-") as scratch:
        folder = Path(scratch)
        sites = {path.name: path for path in options.site} if options.site else {}
        if not sites:
            sites = {language: build_demo(folder, language) for language in ("zh", "en")}
        print(HEADER, flush=True)
        audits = [audit for name, site in sites.items() for audit in audit_site(lighthouse, name, site, folder)]
    if options.json:
        rows = [
            {"site": a.site, "page": a.page, "form_factor": a.form_factor, **a.scores, "cls": a.cls} for a in audits
        ]
        options.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
