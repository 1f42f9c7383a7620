"""Loopback HTTP servers that play a Prometheus, honest or hostile, for the metrics client's tests.

`serve(behave)` runs a real http.server on 127.0.0.1 (or another loopback address) in threads; BEHAVE gets each
request (path, form, headers) and answers through the handler. Every request is recorded, headers included, so a
test can assert what a server received (no Authorization on a redirect's target). Handlers that hold a request
(sleep, stream forever) wait on `stop` or stop at their client's disconnect, and the context sets `stop` on exit.
"""

from __future__ import annotations

import contextlib
import json
import ssl
import subprocess
import threading
import traceback
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "db-01:9100"
DEVICE = "dm-3"
METRICS = ("node_disk_reads_completed_total", "node_disk_writes_completed_total", "node_disk_read_bytes_total",
           "node_disk_written_bytes_total")
# what the honest server answers per quantity of a fleet batch (the percentiles, read and write counts, scrapes)
HONEST = {"iops": 2000.0, "mbps": 30.0, "reads": 7e6, "writes": 3e6, "scrapes": 1000.0, "resets": 0.0}


@dataclass
class Request:
    path: str
    form: dict[str, list[str]]
    headers: dict[str, str]


@dataclass
class Served:
    """A running server: its base URL (http://ADDR:PORT), the requests it received, and how it is stopped."""

    base: str
    seen: list[Request] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    errors: list[str] = field(default_factory=list)     # handler failures (never printed: stderr is the CLI's)
    sent: list[int] = field(default_factory=list)        # bytes a streaming handler wrote before its client left
    done: threading.Event = field(default_factory=threading.Event)   # a streaming handler has returned


Behave = Callable[[BaseHTTPRequestHandler, Request, Served], None]


@contextlib.contextmanager
def serve(behave: Behave, address: str = "127.0.0.1", tls: tuple[Path, Path] | None = None) -> Iterator[Served]:
    """BEHAVE served on ADDRESS, over https with TLS = (certificate, key)."""
    lock = threading.Lock()
    served: Served

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            req = Request(self.path, urllib.parse.parse_qs(body.decode()), headers)
            with lock:
                served.seen.append(req)
            with contextlib.suppress(OSError):
                behave(self, req, served)

        do_GET = do_POST  # noqa: N815 - a redirect followed as a GET must be recorded too

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: object, client_address: object) -> None:
            served.errors.append(traceback.format_exc())

    server = Server((address, 0), Handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    served = Served(f"{'https' if tls else 'http'}://{address}:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True, name="metrics-server")
    thread.start()
    try:
        yield served
    finally:
        served.stop.set()
        server.shutdown()
        server.server_close()
        thread.join()


def send(h: BaseHTTPRequestHandler, body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> None:
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    h.wfile.write(body)


def ok(data: object) -> bytes:
    return json.dumps({"status": "success", "data": data}).encode()


def series_rows(hosts: list[str] | None = None) -> list[dict[str, str]]:
    return [{"__name__": m, "instance": h, "device": DEVICE, "job": "node"} for h in (hosts or [HOST]) for m in METRICS]


def quantity(expr: str) -> str:
    """Which of a fleet batch's six queries EXPR is (the shape fleet.query.Queries.all gives them)."""
    if "quantile_over_time(" in expr:
        return "mbps" if expr.endswith("/ 1e6") else "iops"
    for name, mark in (("scrapes", "count_over_time("), ("resets", "resets("), ("reads", "increase(node_disk_reads"),
                       ("writes", "increase(node_disk_writes")):
        if mark in expr:
            return name
    raise AssertionError(f"an unexpected query: {expr[:120]}")


def vector(value: str, labels: dict[str, object] | None = None) -> bytes:
    return ok({"resultType": "vector", "result": [{"metric": labels or {"instance": HOST},
                                                  "value": [1_700_000_000, value]}]})


def honest(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
    """A Prometheus with one host (dm-3, all four metrics) whose answers are HONEST."""
    if req.path == "/api/v1/series":
        send(h, ok(series_rows()))
    elif req.path == "/api/v1/query":
        send(h, vector(repr(HONEST[quantity(req.form["query"][0])])))
    else:
        send(h, b'{"status":"error","errorType":"bad_data","error":"not here"}', 400)


def self_signed(where: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no authority signed, and its key (openssl)."""
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key
