"""A client for Prometheus's HTTP query API, and nothing else: /api/v1/series, /api/v1/query, /api/v1/query_range.

Only these three read-only endpoints are used (no admin API, no TSDB files, no remote read), so Thanos Query,
Grafana Mimir, Cortex and VictoriaMetrics work unchanged behind the same URL. A source is written
`prometheus+http://HOST:PORT[/PREFIX]` (or `prometheus+https://`); `user:password@` in it is sent as HTTP basic
auth and BLOCKFIT_PROMETHEUS_TOKEN, when set, as a bearer token (never printed).

Errors, by whose they are: a refused selector (400) is the user's input (InputError, exit 2); an unreachable
server, a 5xx or an answer that is not the API's JSON is the server's (EnvironmentProblem, exit 4). A query the
server cannot finish (422, a 503 timeout, a 504 from a proxy, our own socket timeout) raises TooBig, so the
caller splits that one query (fewer hosts, a shorter range) and retries only the part that failed.
"""

from __future__ import annotations

import base64
import json
import math
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from blockfit.errors import EnvironmentProblem, InputError

SCHEME = "prometheus+"
TOKEN_ENV = "BLOCKFIT_PROMETHEUS_TOKEN"
# Prometheus refuses a range query of more than 11,000 points per series (400 "exceeded maximum resolution");
# slices stay below it with a margin.
MAX_POINTS = 10_000


class TooBig(Exception):
    """The server could not finish this query (too many samples or too slow): split it and retry."""


@dataclass(frozen=True)
class Source:
    """Where the history is: the API's base URL and how to authenticate; `display` never holds a password."""

    base_url: str
    display: str
    authorization: str | None = None


def is_prometheus(text: str) -> bool:
    return text.startswith(SCHEME)


def parse_source(text: str, option: str = "--from") -> Source:
    """`prometheus+http://HOST:PORT[/PREFIX]` → Source; anything else is an InputError naming OPTION."""
    expected = "prometheus+http://HOST:PORT or prometheus+https://HOST[:PORT][/PREFIX]"
    if not is_prometheus(text):
        raise InputError(f"{option} {text!r}: expected {expected}")
    url = urllib.parse.urlsplit(text[len(SCHEME):])
    try:
        port = url.port
    except ValueError:
        raise InputError(f"{option} {text!r}: the port is not a number from 1 to 65535 (expected {expected})") from None
    if url.scheme not in ("http", "https") or not url.hostname or url.query or url.fragment:
        raise InputError(f"{option} {text!r}: expected {expected}")
    host = url.hostname if ":" not in url.hostname else f"[{url.hostname}]"
    netloc = host + (f":{port}" if port else "")
    base = urllib.parse.urlunsplit((url.scheme, netloc, url.path.rstrip("/"), "", ""))
    auth = None
    if url.username is not None:
        pair = f"{urllib.parse.unquote(url.username)}:{urllib.parse.unquote(url.password or '')}"
        auth = "Basic " + base64.b64encode(pair.encode()).decode()
    token = os.environ.get(TOKEN_ENV)
    if token:
        auth = f"Bearer {token.strip()}"
    return Source(base_url=base, display=SCHEME + base, authorization=auth)


class Client:
    """Blocking calls to one server; thread-safe (each call opens its own connection)."""

    def __init__(self, source: Source, timeout_s: float = 120.0, max_points: int = MAX_POINTS) -> None:
        self.source, self.timeout_s, self.max_points = source, timeout_s, max_points
        self.requests = 0
        self._lock = threading.Lock()

    # ---- the three endpoints ----------------------------------------------------------------------------------

    def series(self, matchers: list[str], start: float, end: float) -> list[dict[str, str]]:
        """Label sets of every series matching any of MATCHERS with samples between START and END (index only)."""
        data = self._call("/api/v1/series", [("match[]", m) for m in matchers]
                          + [("start", _ts(start)), ("end", _ts(end))])
        if not isinstance(data, list):
            raise self._bad_answer("/api/v1/series")
        return [dict(d) for d in data if isinstance(d, dict)]

    def query(self, expr: str, at: float) -> list[tuple[dict[str, str], float]]:
        """An instant query at AT: (labels, value) per series; NaN values dropped."""
        data = self._call("/api/v1/query", [("query", expr), ("time", _ts(at))])
        if not isinstance(data, dict) or data.get("resultType") != "vector":
            raise self._bad_answer("/api/v1/query")
        out = []
        for item in data.get("result", []):
            value = float(item["value"][1])
            if math.isfinite(value):
                out.append((dict(item["metric"]), value))
        return out

    def query_range(self, expr: str, start: float, end: float, step: float,
                    on_slice: Callable[[float, float], None] | None = None) -> dict[tuple[tuple[str, str], ...],
                                                                                  list[tuple[float, float]]]:
        """A range query from START to END (both on the step grid), in slices of at most `max_points` steps; a slice
        the server cannot finish is halved and retried alone, down to one step. Series keyed by sorted labels."""
        out: dict[tuple[tuple[str, str], ...], list[tuple[float, float]]] = {}
        span = (self.max_points - 1) * step
        slices = []
        t = start
        while t <= end:
            slices.append((t, min(end, t + span)))
            t += span + step
        while slices:
            lo, hi = slices.pop(0)
            try:
                data = self._call("/api/v1/query_range", [("query", expr), ("start", _ts(lo)), ("end", _ts(hi)),
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
            if not isinstance(data, dict) or data.get("resultType") != "matrix":
                raise self._bad_answer("/api/v1/query_range")
            for item in data.get("result", []):
                key = tuple(sorted(dict(item["metric"]).items()))
                out.setdefault(key, []).extend((float(ts), float(v)) for ts, v in item["values"])
        return out

    # ---- HTTP ---------------------------------------------------------------------------------------------------

    def _call(self, path: str, params: list[tuple[str, str]]) -> Any:
        """POST the form (a long selector does not fit a URL), return the answer's `data`."""
        body = urllib.parse.urlencode(params).encode()
        req = urllib.request.Request(self.source.base_url + path, data=body, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded",
                                              "Accept": "application/json", "User-Agent": "blockfit"})
        if self.source.authorization:
            req.add_header("Authorization", self.source.authorization)
        with self._lock:
            self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:  # noqa: S310 - http(s) only
                payload = resp.read()
        except urllib.error.HTTPError as exc:
            return self._http_error(path, exc)
        except TimeoutError:
            raise TooBig(f"{path}: no answer within {self.timeout_s:g} s") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise TooBig(f"{path}: no answer within {self.timeout_s:g} s") from None
            why = getattr(reason, "strerror", None) or str(reason)
            raise EnvironmentProblem(f"{self.source.display}: cannot reach the server ({why})") from None
        except (ConnectionError, OSError) as exc:
            raise EnvironmentProblem(f"{self.source.display}: connection failed ({exc.strerror or exc})") from None
        doc = self._json(path, payload)
        if doc.get("status") != "success":
            raise EnvironmentProblem(f"{self.source.display}{path}: {doc.get('error', 'the query failed')}")
        return doc.get("data")

    def _http_error(self, path: str, exc: urllib.error.HTTPError) -> Any:
        try:
            doc = json.loads(exc.read() or b"{}")
        except ValueError:
            doc = {}
        error = str(doc.get("error", "")) if isinstance(doc, dict) else ""
        kind = str(doc.get("errorType", "")) if isinstance(doc, dict) else ""
        if exc.code == 422 or exc.code == 504 or (exc.code == 503 and kind == "timeout") or kind == "timeout":
            raise TooBig(f"{path}: {exc.code} {error or exc.reason}")
        if exc.code == 400 and kind == "bad_data":
            raise QueryRefused(error or "bad_data")
        if exc.code in (401, 403):
            raise EnvironmentProblem(f"{self.source.display}: {exc.code} {exc.reason}: the server wants credentials "
                                     f"(user:password@ in the URL, or a token in {TOKEN_ENV})")
        if exc.code == 404:
            raise EnvironmentProblem(f"{self.source.display}{path}: 404 Not Found (is this the Prometheus HTTP API? "
                                     "a PREFIX such as /prometheus goes in the URL)")
        raise EnvironmentProblem(f"{self.source.display}{path}: {exc.code} {error or exc.reason}")

    def _json(self, path: str, payload: bytes) -> dict[str, Any]:
        try:
            doc = json.loads(payload)
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            raise self._bad_answer(path)
        return doc

    def _bad_answer(self, path: str) -> EnvironmentProblem:
        return EnvironmentProblem(f"{self.source.display}{path}: not an answer of the Prometheus HTTP API")


class QueryRefused(Exception):
    """400 bad_data: the server refused a query as malformed (the caller says which input made it)."""


def _ts(t: float) -> str:
    return f"{t:.3f}"
