"""What the browser tests and benchmarks share: a built site served on 127.0.0.1, and the
machine's chromium (Debian's; never a browser download)."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Without the networking switches chromium keeps trying hosts this machine cannot reach.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files; an unknown path gets the site's 404.html with status 404, as GitHub Pages does."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve(site: Path, handler: type[SimpleHTTPRequestHandler] = _QuietHandler) -> Iterator[str]:
    """The folder ``site`` over HTTP on 127.0.0.1 (answered by ``handler``); yields its base URL
    (ending in "/")."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def chromium_path() -> Path | None:
    """$CHROMIUM, or chromium under one of the names distributions give it."""
    found = os.environ.get("CHROMIUM") or next(
        (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None
    )
    return Path(found) if found else None
