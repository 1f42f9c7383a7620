"""The report's page carries a strict Content-Security-Policy: a slip in escaping could add markup to it, never run
a script or fetch anything. Checked in Debian's headless chromium, the page served from a loopback HTTP server that
records every request: a real report with injected scripts (inline, external, an event handler), an external
image, stylesheet, frame, CSS background and SVG image runs none and fetches none; the same page without them
draws its figures with no policy violation (its inline styles and SVG are what the policy allows).
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit.report.page import CSP
from support.browser import CHROMIUM
from support.report import cli, cli_json

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")]

PAYLOADS = (
    '<script>document.title = "ran-inline"; window.ran = 1;</script>'
    '<script src="{base}/evil.js"></script>'
    '<img src="{base}/pixel.png" alt="">'
    '<img src="x" alt="" onerror="document.title = \'ran-onerror\'">'
    '<link rel="stylesheet" href="{base}/evil.css">'
    '<iframe src="{base}/frame.html"></iframe>'
    '<div style="width:10px;height:10px;background:url({base}/background.png)"></div>'
    '<svg width="10" height="10"><image href="{base}/svg-image.png" width="10" height="10"/></svg>'
    '<object data="{base}/object.bin"></object>'
)


class _Recorder(http.server.BaseHTTPRequestHandler):
    pages: dict[str, bytes] = {}
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).seen.append(self.path)
        body = type(self).pages.get(self.path, b"document.title = 'ran-external';")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8" if self.path in self.pages else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, type[_Recorder]]]:
    handler = type("Handler", (_Recorder,), {"pages": {}, "seen": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def page_html(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("csp")
    cli_json(tmp / "model.json", "model", "--cloud", "oci", "--layout", "4x500G@balanced", "--instance",
             "VM.Standard.E4.Flex:8")
    done = cli("report", str(tmp / "model.json"), "-o", str(tmp / "page.html"))
    assert done.returncode == 0, done.stderr
    return (tmp / "page.html").read_text()


def _open(url: str) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    console: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
            page.goto(url, wait_until="load")
            page.wait_for_timeout(500)   # not a timing assertion: late loads get their chance to be requested
            figures = [fig.bounding_box() for fig in page.locator("figure.chart svg").all()]
            return {"title": page.title(), "ran": page.evaluate("typeof window.ran"), "console": console,
                    "figures": figures}
        finally:
            browser.close()


def test_every_page_carries_the_policy(page_html: str) -> None:
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP.replace(chr(39), "&#39;")}">' in page_html
    assert page_html.index("Content-Security-Policy") < page_html.index("<title>")


def test_an_injected_script_runs_nothing_and_an_external_image_fetches_nothing(
        server: tuple[str, type[_Recorder]], page_html: str) -> None:
    base, handler = server
    title = page_html.split("<title>", 1)[1].split("</title>", 1)[0]
    handler.pages["/injected.html"] = page_html.replace("<body>", "<body>" + PAYLOADS.format(base=base), 1).encode()
    handler.seen.clear()
    seen = _open(f"{base}/injected.html")
    assert seen["ran"] == "undefined" and seen["title"] == title.replace("&amp;", "&"), seen
    fetched = [p for p in handler.seen if p not in ("/injected.html", "/favicon.ico")]
    assert fetched == [], fetched
    console = seen["console"]
    assert isinstance(console, list) and any("Content Security Policy" in line for line in console), console


def test_the_page_itself_draws_with_no_policy_violation(server: tuple[str, type[_Recorder]], page_html: str) -> None:
    base, handler = server
    handler.pages["/page.html"] = page_html.encode()
    seen = _open(f"{base}/page.html")
    assert seen["console"] == [], seen["console"]
    figures = seen["figures"]
    assert isinstance(figures, list) and figures, figures
    assert all(b is not None and b["width"] > 100 and b["height"] > 50 for b in figures), figures
