"""The one HTTP client for metrics endpoints (Prometheus's query API today): every server is untrusted.

A metrics URL comes from a plan file, a colleague or a wiki page, and what it answers feeds commands whose output
DBAs run as root, so each request is bounded and each answer suspect:

- time: a connect timeout (CONNECT_S at most) and one deadline per request, from connect to the last byte. A
  watchdog shuts the socket at the deadline, so a server that sleeps, or trickles a byte a second (each byte inside
  any idle timeout, headers included), is cut off all the same.
- size: the body is read in chunks and refused past `max_bytes` (MAX_BYTES); no compression is asked for (no zip
  bomb); an error's body is read to ERROR_BYTES; http.client bounds the status line and the headers.
- redirects: never followed. A redirected POST loses its form (301/302/303 turn into a GET), and one to another host
  or scheme would carry the credentials there, https→http in the clear: a 3xx is refused, naming only where it
  points (scheme, host, port).
- TLS: the default context (certificate and host name verified); there is no option to turn that off.
- secrets: callers pass the URL they may show (`shown`, without credentials); text from the server is cut short
  and stripped of control characters (`quote`) before it reaches a message, after the caller has hidden in it the
  credentials it sent (a server or proxy may echo the Authorization header in its error).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import urllib.parse
from dataclasses import dataclass

from blockfit.errors import BlockfitError, EnvironmentProblem, InputError

MAX_BYTES = 32 * 2**20      # a 500-host series index is about 4 MB, a 10,000-step range slice 0.3 MB
ERROR_BYTES = 64 * 2**10    # an error's body: its JSON names the error; the rest is not read
CONNECT_S = 10.0
CHUNK = 64 * 2**10


class Timeout(Exception):
    """No complete answer within the request's deadline (the caller decides: split the query, or give up)."""


@dataclass(frozen=True)
class Answer:
    """A complete HTTP answer that is not a redirect: its status, reason and body (an error's body cut short). The
    reason is as the server sent it (http.client bounds the line): the caller hides its secrets in it, then quotes
    it, since a secret cut in half by `quote` could no longer be found."""

    status: int
    reason: str
    body: bytes


def quote(text: str, limit: int = 200) -> str:
    """Text from a server, safe in a one-line message: control characters replaced, at most LIMIT characters."""
    clean = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return clean + ("…" if len(text) > limit else "")


def fmt_bytes(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n:,} bytes"


def post(url: str, body: bytes, headers: dict[str, str], shown: str, timeout_s: float,
         max_bytes: int = MAX_BYTES) -> Answer:
    """POST BODY to URL (http or https, no userinfo: credentials go in HEADERS) and return the answer, read within
    TIMEOUT_S and MAX_BYTES. Messages name SHOWN. Raises Timeout; InputError for a redirect, an answer over the cap
    or one that is not HTTP; EnvironmentProblem when the server cannot be reached or its certificate is not trusted."""
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "", parts.port
    connect_s = min(CONNECT_S, timeout_s)
    watchdog = _Watchdog(timeout_s)
    conn = (_TLSConnection(host, port, connect_s, watchdog) if parts.scheme == "https"
            else http.client.HTTPConnection(host, port, timeout=connect_s))
    try:
        answer = _exchange(conn, watchdog, parts.path or "/", body, headers, shown, max_bytes, url)
    except BlockfitError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure of a hostile exchange becomes one line
        if watchdog.expired.is_set() or isinstance(exc, TimeoutError):
            raise Timeout(f"{shown}: no answer within {timeout_s:g} s") from None
        raise _failure(exc, shown) from None
    finally:
        watchdog.cancel()
        conn.close()
    if watchdog.expired.is_set():   # the watchdog's shutdown can look like the end of a body read to its end
        raise Timeout(f"{shown}: no answer within {timeout_s:g} s")
    return answer


class _Watchdog:
    """Shuts the request's socket at its deadline, under whatever call is reading it. It holds the socket itself:
    http.client hands a body without a length to the response and drops `conn.sock`. The base class's shutdown
    cuts a TLS socket the same way without touching its TLS state from this thread."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.expired = threading.Event()
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(timeout_s, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.expired.is_set():
                raise TimeoutError
        sock.settimeout(self.timeout_s)   # idle reads; the deadline bounds the whole request

    def _cut(self) -> None:
        with self._lock:
            self.expired.set()
            if self._sock is not None:
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(self._sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


class _TLSConnection(http.client.HTTPSConnection):
    """https with the default context (certificate and host name verified), the handshake under the watchdog too:
    the socket is wrapped first and watched, then the handshake runs (a server trickling it is cut at the
    deadline like one trickling its answer)."""

    def __init__(self, host: str, port: int | None, connect_s: float, watchdog: _Watchdog) -> None:
        self.tls_context = ssl.create_default_context()
        super().__init__(host, port, timeout=connect_s, context=self.tls_context)
        self.watchdog = watchdog

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)   # TCP only
        tls = self.tls_context.wrap_socket(self.sock, server_hostname=self.host, do_handshake_on_connect=False)
        self.sock = tls
        self.watchdog.watch(tls)
        tls.do_handshake()


def _exchange(conn: http.client.HTTPConnection, watchdog: _Watchdog, path: str, body: bytes,
              headers: dict[str, str], shown: str, max_bytes: int, url: str) -> Answer:
    conn.connect()
    assert conn.sock is not None
    watchdog.watch(conn.sock)   # again for https: the same socket
    conn.request("POST", path, body=body, headers={**headers, "Accept-Encoding": "identity"})
    resp = conn.getresponse()
    try:
        if 300 <= resp.status < 400:
            where = _origin(urllib.parse.urljoin(url, resp.getheader("Location") or ""))
            raise InputError(f"{shown}: the server redirects ({resp.status}) to {where}; blockfit follows no redirect "
                             "(the query and the credentials would go along): give the address that answers")
        ok = resp.status == 200
        length = resp.getheader("Content-Length") or ""
        if ok and length.strip().isdigit() and int(length) > max_bytes:
            raise _too_big(shown, max_bytes)
        limit = max_bytes if ok else ERROR_BYTES
        data = bytearray()
        while len(data) <= limit:
            chunk = resp.read1(min(CHUNK, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
        if len(data) > limit:
            if ok:
                raise _too_big(shown, max_bytes)
            del data[limit:]
        return Answer(resp.status, resp.reason or "", bytes(data))
    finally:
        resp.close()   # a body without a length holds the socket, not the connection


def _too_big(shown: str, max_bytes: int) -> InputError:
    return InputError(f"{shown}: the answer is larger than {fmt_bytes(max_bytes)} (the cap on one answer); "
                      "narrow the query")


def _origin(url: str) -> str:
    """Where a redirect points, without userinfo, path or query: scheme://host[:port]."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return "an address that is not a URL"
    if not parts.hostname:
        return "an address without a host"
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return quote(f"{parts.scheme}://{host}" + (f":{port}" if port else ""), 120)


def _failure(exc: Exception, shown: str) -> BlockfitError:
    """A failed exchange as one line: the server's fault (unreachable, closed, untrusted) or a malformed answer."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return EnvironmentProblem(f"{shown}: the server's certificate is not trusted "
                                  f"({quote(exc.verify_message or 'verification failed')})")
    if isinstance(exc, http.client.RemoteDisconnected):
        return EnvironmentProblem(f"{shown}: the server closed the connection without an answer")
    if isinstance(exc, (http.client.HTTPException, ValueError)):
        return InputError(f"{shown}: not an HTTP answer ({type(exc).__name__})")
    if isinstance(exc, OSError):
        why = exc.strerror or quote(str(exc)) or type(exc).__name__
        return EnvironmentProblem(f"{shown}: cannot reach the server ({why})")
    return EnvironmentProblem(f"{shown}: the exchange failed ({type(exc).__name__})")
