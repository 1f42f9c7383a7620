"""Shared by the fleet tests: blockfit run in-process (its imports paid once per session), and a loopback stand-in
for a Prometheus that stops answering."""

from __future__ import annotations

import contextlib
import io
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from blockfit.cli import main


def run_cli(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout, stderr of `blockfit ARGS`."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@dataclass
class Hanging:
    """A server in front of a real Prometheus that passes on every request but holds the instant queries after the
    first `answered` ones: it never answers them (a server that hangs), until the context exits."""

    url: str
    answered: int
    held: threading.Event = field(default_factory=threading.Event)     # a query is being held
    release: threading.Event = field(default_factory=threading.Event)


@contextlib.contextmanager
def hanging_prometheus(upstream: str, answered: int = 0) -> Iterator[Hanging]:
    """UPSTREAM (http://HOST:PORT) behind a loopback server that holds /api/v1/query after ANSWERED of them."""
    lock = threading.Lock()
    count = [0]
    state: Hanging

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path == "/api/v1/query":
                with lock:
                    count[0] += 1
                    hold = count[0] > state.answered
                if hold:
                    state.held.set()
                    state.release.wait()
                    return   # the connection closes with no answer
            req = urllib.request.Request(upstream + self.path, data=body, method="POST",
                                         headers={"Content-Type": self.headers.get("Content-Type", "")})
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310 - loopback http
                    status, payload = resp.status, resp.read()
            except urllib.error.HTTPError as exc:
                status, payload = exc.code, exc.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state = Hanging(f"prometheus+http://127.0.0.1:{server.server_address[1]}", answered)
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="hanging-prometheus")
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join()
