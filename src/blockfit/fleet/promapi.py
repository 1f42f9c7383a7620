"""A client for Prometheus's HTTP query API, and nothing else: /api/v1/series, /api/v1/query, /api/v1/query_range.

Only these three read-only endpoints are used (no admin API, no TSDB files, no remote read), so Thanos Query,
Grafana Mimir, Cortex and VictoriaMetrics work unchanged behind the same URL. A source is written
`prometheus+http://HOST:PORT[/PREFIX]` (or `prometheus+https://`); `user:password@` in it is sent as HTTP basic
auth and BLOCKFIT_PROMETHEUS_TOKEN, when set, as a bearer token (never printed). Requests go through
`blockfit.http` (deadline, byte cap, no redirects, verified TLS); BLOCKFIT_PROMETHEUS_TIMEOUT sets the deadline.

The answer is untrusted input, parsed once here into typed values: JSON that is not the API's (not an object, not
`success`, no `data` or `result`, the wrong resultType, a sample that is not `[time, "number"]`, a value that is
not a finite number, labels that are not strings) and an answer with more than MAX_SERIES series are InputErrors
(exit 2), one line naming the URL (never its credentials).

Errors, by whose they are: a refused selector (400) is the user's input (InputError, exit 2); an unreachable
server or a 5xx is the server's (EnvironmentProblem, exit 4). A query the server cannot finish (422, a 503
timeout, a 504 from a proxy, our own deadline) raises TooBig, so the caller splits that one query (fewer hosts, a
shorter range) and retries only the part that failed; the series index cannot be split, so there it is exit 4.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from blockfit import http
from blockfit.errors import EnvironmentProblem, InputError, ValueProblem
from blockfit.http import quote
from blockfit.units import env_seconds

SCHEME = "prometheus+"
TOKEN_ENV = "BLOCKFIT_PROMETHEUS_TOKEN"
TIMEOUT_ENV = "BLOCKFIT_PROMETHEUS_TIMEOUT"
TIMEOUT_S = 120.0           # one request's deadline, connect to last byte, unless TIMEOUT_ENV says otherwise
MAX_TIMEOUT_S = 3600.0
# Prometheus refuses a range query of more than 11,000 points per series (400 "exceeded maximum resolution");
# slices stay below it with a margin.
MAX_POINTS = 10_000
# series in one answer. The series index holds a row per host, device and metric (4 names): 50,000 rows are 600
# hosts of 20 devices, or 12,500 of one; a larger fleet is run in parts (--match). Before the cap, an index of 10^6
# series cost 23,443 queries and 250,000 lines on stderr.
MAX_SERIES = 50_000
# requests that may run into our own deadline in one run: each is split and retried, which helps a server that is
# slow for the size of the query; past this many, the server is taken as not answering (exit 4). Without it, a
# server that answers the index and sleeps on every query cost 6 × (2 × 64 - 1) deadlines per batch
MAX_TIMEOUTS = 8


class TooBig(Exception):
    """The server could not finish this query (too many samples or too slow): split it and retry."""


@dataclass(frozen=True)
class Source:
    """Where the history is: the API's base URL, how to authenticate and how long one request may take; `display`
    and `base_url` never hold a password."""

    base_url: str
    display: str
    authorization: str | None = None
    timeout_s: float = TIMEOUT_S
    secrets: tuple[str, ...] = ()   # what the server's text must not show back: the token, password, header value


def is_prometheus(text: str) -> bool:
    return text.startswith(SCHEME)


_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# up to the last "@": a password with an unencoded "/", "?" or "#" ends the URL's authority early, and must
# not leave its tail in sight (it did: `user:pa/ss@host` was shown whole)
_USERINFO_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://).*@", re.DOTALL)


def redact(text: str) -> str:
    """A URL as it may be shown: `user:password@` replaced by `***@`, control characters by '?'."""
    return quote(_USERINFO_RE.sub(r"\1***@", text), 300)


def parse_source(text: str) -> Source:
    """`prometheus+http://HOST:PORT[/PREFIX]` → Source; anything else is a ValueProblem naming the URL (shown
    without its credentials). The token and the timeout come from the environment, checked here too."""
    url, base = _split_source(text)
    auth, secrets = _basic_auth(url)
    token = (os.environ.get(TOKEN_ENV) or "").strip()
    if token:
        if not all("!" <= c <= "~" for c in token):   # a header value; the token itself is never shown
            raise InputError(f"{TOKEN_ENV}: expected a token of printable ASCII without spaces")
        auth = f"Bearer {token}"
        secrets.append(token)
    return Source(base_url=base, display=SCHEME + base, authorization=auth, timeout_s=request_timeout(),
                  secrets=tuple(s for s in secrets if s))


def _split_source(text: str) -> tuple[urllib.parse.SplitResult, str]:
    """The URL after `prometheus+`, split, and the API's base URL without credentials; a ValueProblem when it is not
    http(s)://HOST[:PORT][/PREFIX] with no query, fragment, control character or space."""
    expected = "prometheus+http://HOST:PORT or prometheus+https://HOST[:PORT][/PREFIX]"
    shown = repr(redact(text))
    if not is_prometheus(text):
        raise ValueProblem(f"{shown}: expected {expected}")
    try:
        url = urllib.parse.urlsplit(text[len(SCHEME):])
        if "@" in url.path + url.query + url.fragment:
            # an unencoded '/', '?' or '#' in a password ends the host part early: `user:9090/pw@host` went to `user`
            raise ValueProblem(f"{shown}: expected {expected}, a '/', '?', '#' or '@' in the user or password "
                               "written percent-encoded (%2F, %3F, %23, %40)")
        port = url.port
    except ValueProblem:
        raise
    except ValueError:
        raise ValueProblem(f"{shown}: the port is not a number from 1 to 65535 (expected {expected})") from None
    if (url.scheme not in ("http", "https") or not url.hostname or url.query or url.fragment
            or any(not c.isprintable() or c.isspace() for c in text)):
        raise ValueProblem(f"{shown}: expected {expected}")
    host = url.hostname if ":" not in url.hostname else f"[{url.hostname}]"
    netloc = host + (f":{port}" if port else "")
    return url, urllib.parse.urlunsplit((url.scheme, netloc, url.path.rstrip("/"), "", ""))


def _basic_auth(url: urllib.parse.SplitResult) -> tuple[str | None, list[str]]:
    """`user:password@` in the URL → the Authorization header, and what of it must never be shown back."""
    if url.username is None:
        return None, []
    password = urllib.parse.unquote(url.password or "")
    pair = f"{urllib.parse.unquote(url.username)}:{password}"
    auth = "Basic " + base64.b64encode(pair.encode()).decode()
    return auth, [auth[len("Basic "):], pair, password]


def request_timeout() -> float:
    """BLOCKFIT_PROMETHEUS_TIMEOUT: seconds one request may take, connect to last byte (default 120)."""
    return env_seconds(TIMEOUT_ENV, TIMEOUT_S, MAX_TIMEOUT_S)


Labels = dict[str, str]
Samples = list[tuple[float, float]]


class Client:
    """Blocking calls to one server; thread-safe (each call opens its own connection)."""

    def __init__(self, source: Source, timeout_s: float | None = None, max_points: int = MAX_POINTS,
                 max_series: int = MAX_SERIES) -> None:
        self.source, self.max_points, self.max_series = source, max_points, max_series
        self.timeout_s = source.timeout_s if timeout_s is None else timeout_s
        self.requests = self.timeouts = 0
        self._lock = threading.Lock()

    # ---- the three endpoints ----------------------------------------------------------------------------------

    def series(self, matchers: list[str], start: float, end: float) -> list[Labels]:
        """Label sets of every series matching any of MATCHERS with samples between START and END (index only).
        The index cannot be split: no answer in time is the server's problem (exit 4)."""
        path = "/api/v1/series"
        try:
            data = self._call(path, [("match[]", m) for m in matchers] + [("start", _ts(start)), ("end", _ts(end))])
        except TooBig as exc:
            raise EnvironmentProblem(f"{exc} (the series index cannot be split; {TIMEOUT_ENV} sets the time a "
                                     "request may take)") from None
        rows = self._list(data, path, "a list of label sets")
        return [self._labels(row, path) for row in rows]

    def query(self, expr: str, at: float) -> list[tuple[Labels, float]]:
        """An instant query at AT: (labels, value) per series."""
        path = "/api/v1/query"
        data = self._call(path, [("query", expr), ("time", _ts(at))])
        out = []
        for item in self._result(data, path, "vector"):
            out.append((self._labels(item.get("metric"), path), self._sample(item.get("value"), path)[1]))
        return out

    def query_range(self, expr: str, start: float, end: float, step: float,
                    on_slice: Callable[[float, float], None] | None = None) -> dict[tuple[tuple[str, str], ...],
                                                                                  Samples]:
        """A range query from START to END (both on the step grid), in slices of at most `max_points` steps; a slice
        the server cannot finish is halved and retried alone, down to one step. Series keyed by sorted labels."""
        path = "/api/v1/query_range"
        out: dict[tuple[tuple[str, str], ...], Samples] = {}
        span = (self.max_points - 1) * step
        slices = []
        t = start
        while t <= end:
            slices.append((t, min(end, t + span)))
            t += span + step
        while slices:
            lo, hi = slices.pop(0)
            try:
                data = self._call(path, [("query", expr), ("start", _ts(lo)), ("end", _ts(hi)),
                                         ("step", f"{step:g}")])
            except TooBig:
                if hi - lo < step:
                    raise EnvironmentProblem(f"{self.source.display}: the server cannot answer one step of "
                                             f"{expr[:80]}… (it times out or refuses the samples)") from None
                mid = lo + math.floor((hi - lo) / step / 2) * step
                slices[:0] = [(lo, mid), (mid + step, hi)]
                continue
            if on_slice is not None:
                on_slice(lo, hi)
            for item in self._result(data, path, "matrix"):
                key = tuple(sorted(self._labels(item.get("metric"), path).items()))
                values = self._list(item.get("values"), path, "a list of samples", series=False)
                out.setdefault(key, []).extend(self._sample(v, path) for v in values)
        return out

    # ---- the answer, parsed at the edge ----------------------------------------------------------------------

    def _bad(self, path: str, what: str) -> InputError:
        return InputError(f"{self.source.display}{path}: not an answer of the Prometheus HTTP API ({what})")

    def _list(self, value: object, path: str, what: str, series: bool = True) -> list[Any]:
        """VALUE as a list; a list of SERIES longer than `max_series` is refused before any of it is read."""
        if not isinstance(value, list):
            raise self._bad(path, f"expected {what}")
        if series and len(value) > self.max_series:
            raise InputError(f"{self.source.display}{path}: returned more than {self.max_series:,} series; narrow "
                             "the selector (--match), or run the fleet in parts")
        return value

    def _result(self, data: object, path: str, kind: str) -> list[dict[str, Any]]:
        """`data` of a query: {"resultType": KIND, "result": [object, …]}."""
        if not isinstance(data, dict) or "result" not in data:
            raise self._bad(path, "no data.result")
        if data.get("resultType") != kind:
            raise self._bad(path, f"resultType {self._said(data.get('resultType'), 40)!r}, expected {kind!r}")
        items = self._list(data["result"], path, f"a list of {kind} series")
        if not all(isinstance(item, dict) for item in items):
            raise self._bad(path, "a series that is not an object")
        return items

    def _labels(self, value: object, path: str) -> Labels:
        """A label set: strings without control characters (host and device names end up in messages and tables:
        a newline or an escape sequence there would forge a line or drive the terminal)."""
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise self._bad(path, "labels that are not strings")
        for k, v in value.items():
            if _CONTROL_RE.search(k) or _CONTROL_RE.search(v):
                raise self._bad(path, f"a label with a control character: {self._said(k, 40)}={self._said(v, 60)!r}")
        return dict(value)

    def _sample(self, value: object, path: str) -> tuple[float, float]:
        """[time, "number"] → (time, value); the value a finite number (NaN and ±Inf are refused)."""
        if (not isinstance(value, list) or len(value) != 2 or isinstance(value[0], bool)
                or not isinstance(value[0], int | float) or not isinstance(value[1], str)):
            raise self._bad(path, 'a sample that is not [time, "number"]')
        try:
            number = float(value[1])
        except ValueError:
            raise self._bad(path, f"a value that is not a number: {self._said(value[1], 40)!r}") from None
        if not math.isfinite(number) or not math.isfinite(value[0]):
            raise self._bad(path, f"a value that is not a finite number: {self._said(value[1], 40)!r}")
        return float(value[0]), number

    # ---- HTTP ---------------------------------------------------------------------------------------------------

    def _call(self, path: str, params: list[tuple[str, str]]) -> object:
        """POST the form (a long selector does not fit a URL), return the answer's `data`."""
        shown = self.source.display + path
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
                   "User-Agent": "blockfit"}
        if self.source.authorization:
            headers["Authorization"] = self.source.authorization
        with self._lock:
            self.requests += 1
        try:
            answer = http.post(self.source.base_url + path, urllib.parse.urlencode(params).encode(), headers, shown,
                               self.timeout_s)
        except http.Timeout as exc:
            with self._lock:
                self.timeouts += 1
                spent = self.timeouts > MAX_TIMEOUTS
            if spent:
                raise EnvironmentProblem(f"{self.source.display}: more than {MAX_TIMEOUTS} requests had no answer "
                                         f"within {self.timeout_s:g} s; the server is not answering ({TIMEOUT_ENV} "
                                         "sets the time a request may take)") from None
            raise TooBig(f"{exc} ({TIMEOUT_ENV})") from None
        if answer.status != 200:
            return self._http_error(path, answer)
        doc = self._json(path, answer.body)
        if doc.get("status") != "success":
            raise self._bad(path, f"status {self._said(doc.get('status'), 40)!r}, "
                                  f"error {self._said(doc.get('error', ''), 120)!r}")
        if "data" not in doc:
            raise self._bad(path, "no data")
        return doc["data"]

    def _http_error(self, path: str, answer: http.Answer) -> Any:
        error, kind = self._error_of(answer)
        code, reason = answer.status, self._said(answer.reason)
        if code in (422, 504) or kind == "timeout":   # a 503 says timeout in errorType
            raise TooBig(f"{self.source.display}{path}: {code} {error or reason}")
        if code == 400 and kind == "bad_data":
            raise QueryRefused(error or "bad_data")
        if code in (401, 403):
            raise EnvironmentProblem(f"{self.source.display}: {code} {reason}: the server wants credentials "
                                     f"(user:password@ in the URL, or a token in {TOKEN_ENV})")
        if code == 404:
            raise EnvironmentProblem(f"{self.source.display}{path}: 404 Not Found (is this the Prometheus HTTP API? "
                                     "a PREFIX such as /prometheus goes in the URL)")
        raise EnvironmentProblem(f"{self.source.display}{path}: {code} {error or reason}")

    def _error_of(self, answer: http.Answer) -> tuple[str, str]:
        """The error text (fit for a message) and errorType of an answer that is not 200; empty when it has none."""
        try:
            doc = json.loads(answer.body or b"{}")
        except (ValueError, RecursionError):
            doc = {}
        if not isinstance(doc, dict):
            return "", ""
        return self._said(doc.get("error", "")), str(doc.get("errorType", ""))

    def _said(self, text: object, limit: int = 200) -> str:
        """Text from the server, fit for a message: the credentials sent to it hidden (a server or a proxy may echo
        the Authorization header in its error), then quoted to one line of at most LIMIT characters."""
        shown = str(text)
        for secret in sorted(self.source.secrets, key=len, reverse=True):
            shown = shown.replace(secret, "***")
        return quote(shown, limit)

    def _json(self, path: str, payload: bytes) -> dict[str, Any]:
        try:
            doc = json.loads(payload)
        except (ValueError, RecursionError):   # RecursionError: nesting deeper than the parser's stack
            raise self._bad(path, "not JSON") from None
        if not isinstance(doc, dict):
            raise self._bad(path, "JSON that is not an object")
        return doc


class QueryRefused(Exception):
    """400 bad_data: the server refused a query as malformed (the caller says which input made it)."""


def _ts(t: float) -> str:
    return f"{t:.3f}"
