"""Issue 36 (3, 4, 8): hostile Prometheus servers, real http.server on loopback, met through the real command
(`blockfit fleet --from prometheus+http://…`). Whatever a server does, the command ends with one line
on stderr, no traceback, exit 2 (its answer is bad input) or 4 (it cannot be reached, closes, stalls), within a
generous bound, and neither the token nor the URL's password appears in anything it prints.

Each case runs in-process (run_cli) but the endless answer, which runs as its own process so that its peak memory
can be read (ru_maxrss from wait4). About 20 s in all, most of it the timeouts of 1-1.5 s the slow cases wait out.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from blockfit.fleet.promapi import MAX_SERIES, MAX_TIMEOUTS
from blockfit.fleet.query import MAX_HOSTS
from blockfit.http import MAX_BYTES
from support.fleet import run_cli
from support.metrics_servers import (
    HOST,
    Request,
    Served,
    honest,
    ok,
    quantity,
    self_signed,
    send,
    series_rows,
    serve,
    vector,
)
from support.peak_rss import StillRunning, run_with_peak_rss

TOKEN = "s3cr3t-T0KEN-9f8e7d"
PASSWORD = "pa55-w0rd-c4b3a2"
BOUND_S = 30           # every case ends well within this, on a busy machine
END = int(time.time()) // 60 * 60 - 3600


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case runs with a token set: it must show up in no output, whatever the server does."""
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TOKEN", TOKEN)
    monkeypatch.delenv("BLOCKFIT_PROMETHEUS_TIMEOUT", raising=False)


def fleet(url: str, *extra: str) -> list[str]:
    return ["fleet", "--from", url, "--devices", "dm-3", "--range", "1h", "--step", "1m", "--until", str(END),
            "--instance", "VM.Standard.E4.Flex:8", "--capacity", "1T", *extra]


def prom(base: str, userinfo: str = "") -> str:
    return "prometheus+" + base.replace("://", f"://{userinfo}", 1)


def one_line(code: int, out: str, err: str, expect_code: int) -> str:
    """The common verdict: the exit code, one line on stderr, no traceback, no secret anywhere."""
    assert code == expect_code, (code, err[-2000:])
    assert "Traceback" not in err and "Traceback" not in out
    assert TOKEN not in out + err and PASSWORD not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("blockfit: "), lines[:5]
    return lines[0]


def timed(args: list[str]) -> tuple[int, str, str]:
    start = time.monotonic()
    got = run_cli(*args)
    assert time.monotonic() - start < BOUND_S
    return got


def test_an_honest_server_is_planned() -> None:
    """The stand-in speaks the API as Prometheus does: the host is planned from its answers (the checks refuse
    nothing a real server sends), the token went along, and only to it."""
    with serve(honest) as s:
        code, out, err = timed(fleet(prom(s.base), "--json"))
    assert code == 0, err
    host = json.loads(out)["hosts"][0]
    assert host["host"] == HOST and host["targets"]["iops"] == pytest.approx(2000.0)
    assert host["targets"]["read_pct"] == pytest.approx(70.0)
    assert {r.headers.get("authorization") for r in s.seen} == {f"Bearer {TOKEN}"}
    assert TOKEN not in out + err


# ---- (a) a redirect to another host ------------------------------------------------------------------------------

def _redirect_to(target: Served, status: int) -> Callable[[BaseHTTPRequestHandler, Request, Served], None]:
    def behave(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
        send(h, b"", status, {"Location": f"{target.base}{req.path}"})
    return behave


def _credentials(kind: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The URL's userinfo for KIND: 'userinfo' sends `dba:PASSWORD@` (the token unset), 'token' the token alone."""
    if kind != "userinfo":
        return ""
    monkeypatch.delenv("BLOCKFIT_PROMETHEUS_TOKEN")
    return f"dba:{PASSWORD}@"


@pytest.mark.parametrize("status", [302, 307])
@pytest.mark.parametrize("credentials", ["token", "userinfo"])
def test_a_redirect_to_another_host_gets_no_credentials(credentials: str, status: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    userinfo = _credentials(credentials, monkeypatch)
    try:
        other = serve(honest, "127.0.0.2")
        target = other.__enter__()
    except OSError:
        pytest.skip("127.0.0.2 cannot be bound here")
    try:
        with serve(_redirect_to(target, status)) as first:
            code, out, err = timed(fleet(prom(first.base, userinfo)))
    finally:
        other.__exit__(None, None, None)
    assert first.seen and first.seen[0].headers.get("authorization")      # the first server was asked, with them
    assert [r.headers.get("authorization") for r in target.seen if r.headers.get("authorization")] == []
    assert target.seen == []                                               # not followed at all
    line = one_line(code, out, err, 2)
    assert "127.0.0.2" in line and f"({status})" in line


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl")
    return self_signed(tmp_path_factory.mktemp("tls"))


def test_https_verifies_the_certificate(certificate: tuple[Path, Path]) -> None:
    """A certificate no authority signed: refused during the handshake, so the server never sees the token."""
    with serve(honest, tls=certificate) as s:
        code, out, err = timed(fleet(prom(s.base)))
    line = one_line(code, out, err, 4)
    assert "certificate is not trusted" in line and s.base.startswith("https://")
    assert s.seen == []


def test_https_to_http_is_not_followed(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same server trusted (SSL_CERT_FILE names its certificate): it answers over https, and its redirect to
    plain http on another host is refused; that host receives nothing."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    with serve(honest, tls=certificate) as s:
        code, out, err = timed(fleet(prom(s.base), "--json"))
    assert code == 0, err
    assert json.loads(out)["hosts"][0]["host"] == HOST
    try:
        other = serve(honest, "127.0.0.2")
        target = other.__enter__()
    except OSError:
        pytest.skip("127.0.0.2 cannot be bound here")
    try:
        with serve(_redirect_to(target, 302), tls=certificate) as first:
            code, out, err = timed(fleet(prom(first.base)))
    finally:
        other.__exit__(None, None, None)
    line = one_line(code, out, err, 2)
    assert f"to {target.base}" in line and target.base.startswith("http://")
    assert first.seen and target.seen == []


# ---- (b) an answer that never ends -------------------------------------------------------------------------------

def _endless(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.end_headers()                                    # no Content-Length: the body ends when the server closes
    row = json.dumps(series_rows()[0]).encode() + b","
    block = b'{"status":"success","data":[' + row * (65536 // len(row))
    sent = 0
    try:
        while not served.stop.is_set():
            h.wfile.write(block)
            sent += len(block)
            block = row * (65536 // len(row))
    except OSError:
        pass
    finally:
        served.sent.append(sent)
        served.done.set()


def test_an_endless_answer_stops_at_the_byte_cap(tmp_path: Path) -> None:
    """Before: 2.4 GB in 8 s, then a traceback. Now the read stops past the cap (32 MiB): one line stating it, the
    process's peak memory a fraction of what the stream would take, and the server's writes fail soon after."""
    with serve(_endless) as s:
        code, out, err, peak_kib = _run_process(fleet(prom(s.base)), tmp_path)
        assert s.done.wait(BOUND_S)
    line = one_line(code, out, err, 2)
    assert f"larger than {MAX_BYTES / 2**20:g} MiB" in line and "/api/v1/series" in line
    assert peak_kib * 1024 < MAX_BYTES + 400 * 2**20, peak_kib    # interpreter + blockfit + one cap's worth
    # the server wrote the cap, plus what the sockets' buffers held when the client let go
    assert MAX_BYTES <= sum(s.sent) < MAX_BYTES + 64 * 2**20, s.sent


def _run_process(args: list[str], tmp_path: Path) -> tuple[int, str, str, int]:
    """`blockfit ARGS` as its own process: exit code, stdout, stderr and its own peak RSS in KiB (killed past
    BOUND_S)."""
    out_path, err_path = tmp_path / "out", tmp_path / "err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            code, peak_kib = run_with_peak_rss([sys.executable, "-c", "from blockfit.cli import main; main()", *args],
                                               out, err, BOUND_S, env=dict(os.environ))
        except StillRunning as exc:
            pytest.fail(str(exc))
    return code, out_path.read_text(), err_path.read_text(), peak_kib


# ---- (c) a server that is slow -------------------------------------------------------------------------------------

def _silent(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
    served.stop.wait(120)                                  # accepts, reads the request, never answers


def _trickle_body(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.end_headers()
    h.wfile.write(b'{"status":"success","data":[')
    while not served.stop.wait(0.2):                       # a byte every 0.2 s: never idle for a read timeout
        h.wfile.write(b" ")
        h.wfile.flush()


def _trickle_headers(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
    h.wfile.write(b"HTTP/1.0 200 OK\r\n")
    while not served.stop.wait(0.2):
        h.wfile.write(b"X")                                # one endless header line, a byte at a time
        h.wfile.flush()


@pytest.mark.parametrize("behave", [_silent, _trickle_body, _trickle_headers], ids=["silent", "body", "headers"])
def test_a_slow_server_is_cut_off_at_the_deadline(behave: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: 120 s, then a traceback (TooBig from the series index). Now one line naming the URL and the timeout
    (BLOCKFIT_PROMETHEUS_TIMEOUT, here 1.5 s), exit 4, well within the bound."""
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TIMEOUT", "1.5")
    with serve(behave) as s:
        code, out, err = timed(fleet(prom(s.base)))
    line = one_line(code, out, err, 4)
    assert f"{prom(s.base)}/api/v1/series: no answer within 1.5 s" in line


def test_a_tls_handshake_that_never_comes_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """https to a port that accepts the connection (the kernel's backlog) and never says a word."""
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TIMEOUT", "1.5")
    with socket.create_server(("127.0.0.1", 0)) as mute:
        url = f"prometheus+https://127.0.0.1:{mute.getsockname()[1]}"
        line = one_line(*timed(fleet(url)), 4)
    assert f"{url}/api/v1/series: no answer within 1.5 s" in line


def test_slow_queries_are_split_then_the_host_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The index answers, every query stalls: the host is reported as the server's problem, in one line."""
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TIMEOUT", "1")

    def behave(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
        if req.path == "/api/v1/series":
            send(h, ok(series_rows()))
        else:
            served.stop.wait(120)

    with serve(behave) as s:
        code, out, err = timed(fleet(prom(s.base)))
    line = one_line(code, out, err, 4)
    assert HOST in line and "no answer within 1 s" in line


def test_a_server_that_never_answers_a_query_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """12 hosts, every query stalls: after MAX_TIMEOUTS deadlines the run ends, one line, exit 4 (before, each
    batch was split down to single hosts: 6 × (2n - 1) deadlines of 120 s for a batch of n hosts)."""
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TIMEOUT", "0.5")
    hosts = [f"db-{i:02d}:9100" for i in range(12)]

    def behave(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
        if req.path == "/api/v1/series":
            send(h, ok(series_rows(hosts)))
        else:
            served.stop.wait(120)

    with serve(behave) as s:
        code, out, err = timed(fleet(prom(s.base)))
        queries = len([r for r in s.seen if r.path == "/api/v1/query"])
    line = one_line(code, out, err, 4)
    assert f"more than {MAX_TIMEOUTS} requests had no answer within 0.5 s" in line
    assert MAX_TIMEOUTS < queries <= MAX_TIMEOUTS + 1 + 4     # the last round: --concurrency 4 at once


# ---- (d) garbage ---------------------------------------------------------------------------------------------------

NAN_SHARE = {"reads": "1e308", "writes": "1e308"}   # each finite; 100 × reads / (reads + writes) was NaN

GARBAGE: dict[str, tuple[str, bytes | dict[str, str], str]] = {
    # id: (the endpoint that misbehaves, its answer or per-quantity values, what the line must say)
    "not-json": ("series", b"<html>502 Bad Gateway</html>", "not JSON"),
    "deep-json": ("series", b"[" * 100_000 + b"]" * 100_000, "not JSON"),
    "json-array": ("series", b"[]", "not an object"),
    "status-error": ("series", b'{"status":"error","error":"no\\nway"}', "status 'error'"),
    "no-data": ("series", b'{"status":"success"}', "no data"),
    "data-object": ("series", ok({"a": 1}), "a list of label sets"),
    "row-not-object": ("series", ok([1, 2]), "labels that are not strings"),
    "label-number": ("series", ok([{"__name__": "node_disk_reads_completed_total", "instance": 5, "device": "dm-3"}]),
                     "labels that are not strings"),
    "wrong-result-type": ("query", ok({"resultType": "matrix", "result": []}), "resultType 'matrix'"),
    "no-result": ("query", ok({"resultType": "vector"}), "no data.result"),
    "result-object": ("query", ok({"resultType": "vector", "result": {}}), "a list of vector series"),
    "value-short": ("query", ok({"resultType": "vector", "result": [{"metric": {"instance": HOST},
                                                                      "value": [1]}]}), "[time, \"number\"]"),
    "value-bare-number": ("query", ok({"resultType": "vector", "result": [{"metric": {"instance": HOST},
                                                                            "value": [1, 5]}]}), "[time, \"number\"]"),
    "value-text": ("query", vector("lots"), "not a number: 'lots'"),
    "value-nan": ("query", vector("NaN"), "not a finite number: 'NaN'"),
    "value-inf": ("query", vector("+Inf"), "not a finite number: '+Inf'"),
    "metric-label-number": ("query", ok({"resultType": "vector", "result": [{"metric": {"instance": 7},
                                                                              "value": [1, "1"]}]}),
                            "labels that are not strings"),
    "label-escape": ("series", ok([{"__name__": "node_disk_reads_completed_total", "instance": "db\x1b[2J\nfake",
                                    "device": "dm-3"}]), "a label with a control character"),
    "nan-read-share": ("query", NAN_SHARE, "give no read share"),
}


def _garbage(where: str, answer: bytes | dict[str, str]) -> Callable[[BaseHTTPRequestHandler, Request, Served], None]:
    def behave(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
        if req.path == f"/api/v1/{where}":
            if isinstance(answer, bytes):
                send(h, answer)
                return
            what = quantity(req.form["query"][0])
            if what in answer:
                send(h, vector(answer[what]))
                return
        honest(h, req, served)
    return behave


@pytest.mark.parametrize("case", list(GARBAGE))
def test_a_malformed_answer_is_one_line_exit_2(case: str) -> None:
    """Before: IndexError, TypeError, ValueError tracebacks, a NaN read share, or values dropped in silence."""
    where, answer, says = GARBAGE[case]
    with serve(_garbage(where, answer)) as s:
        code, out, err = timed(fleet(prom(s.base)))
    line = one_line(code, out, err, 2)
    assert says in line, line
    assert "\\n" not in line or "no\\nway" in line          # the server's text quoted, never a second line


# ---- (e) a huge index ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("rows", "says"), [
    (series_rows([f"db-{i:06d}:9100" for i in range(100_000 // 4)]), f"more than {MAX_SERIES:,} series"),
    (series_rows([f"db-{i:06d}:9100" for i in range(MAX_HOSTS + 1)]), f"more than {MAX_HOSTS:,} hosts"),
], ids=["100000-series", "5001-hosts"])
def test_a_huge_fleet_is_refused_before_any_query(rows: list[dict[str, str]], says: str) -> None:
    """Before: 10^6 series cost 23,443 queries and 250,000 lines on stderr. Now one line, and no query is made."""
    body = ok(rows)

    def behave(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
        if req.path == "/api/v1/series":
            send(h, body)
        else:
            honest(h, req, served)

    with serve(behave) as s:
        code, out, err = timed(fleet(prom(s.base)))
    line = one_line(code, out, err, 2)
    assert says in line and len(err.splitlines()) < 5
    assert [r.path for r in s.seen] == ["/api/v1/series"]


# ---- a server that echoes the credentials ------------------------------------------------------------------------

def _echo(where: str) -> Callable[[BaseHTTPRequestHandler, Request, Served], None]:
    """A server (or an auth proxy) that quotes the Authorization header it got, and the decoded basic pair, back
    in its error: in the error of a 500, of a 400 bad_data, of a 200 whose status is not success, in a reason."""
    def behave(h: BaseHTTPRequestHandler, req: Request, served: Served) -> None:
        header = req.headers.get("authorization", "")
        kind, _, value = header.partition(" ")
        said = f"refused {header} ({base64.b64decode(value).decode() if kind == 'Basic' else value})"
        if where == "reason":
            h.send_response(502, said)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        status, error_type = {"500": (500, "internal"), "400": (400, "bad_data"), "200": (200, "internal")}[where]
        send(h, json.dumps({"status": "error", "errorType": error_type, "error": said}).encode(), status)
    return behave


@pytest.mark.parametrize("where", ["500", "400", "200", "reason"])
@pytest.mark.parametrize("credentials", ["token", "userinfo"])
def test_credentials_a_server_echoes_are_not_shown(credentials: str, where: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's words are shown (they say what went wrong), the credentials in them as ***."""
    userinfo = _credentials(credentials, monkeypatch)
    with serve(_echo(where)) as s:
        code, out, err = timed(fleet(prom(s.base, userinfo)))
    line = one_line(code, out, err, 2 if where in ("400", "200") else 4)
    assert "refused " in line and "***" in line
    assert base64.b64encode(f"dba:{PASSWORD}".encode()).decode() not in line


# ---- credentials in the URL itself ---------------------------------------------------------------------------------

@pytest.mark.parametrize("url", [
    f"prometheus+http://dba:{PASSWORD}@127.0.0.1:99999",
    f"prometheus+http://dba:{PASSWORD}@127.0.0.1:9090?x=1",
    f"prometheus+http://dba:{PASSWORD}@127.0.0.1:9090/a path",
    # a '/', '?' or '#' in the password ends the URL's host part early: the rest was shown as the URL's path,
    # query or fragment (the password with it), and `dba:9/pw@host` was sent to host `dba`, port 9
    f"prometheus+http://dba:{PASSWORD}/x@127.0.0.1:9090",
    f"prometheus+http://dba:{PASSWORD}?x@127.0.0.1:9090",
    f"prometheus+http://dba:{PASSWORD}#x@127.0.0.1:9090",
    f"prometheus+http://dba:9/{PASSWORD}@127.0.0.1:9090",
])
def test_a_bad_url_is_named_without_its_password(url: str) -> None:
    code, out, err = timed(fleet(url))
    line = one_line(code, out, err, 2)
    assert "--from 'prometheus+http://***@127.0.0.1:" in line
    assert "w0rd" not in line   # no piece of it either


@pytest.mark.parametrize("value", ["0", "-1", "nan", "soon", "1e9"])
def test_a_bad_timeout_is_refused(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TIMEOUT", value)
    line = one_line(*timed(fleet("prometheus+http://127.0.0.1:9")), 2)
    assert "BLOCKFIT_PROMETHEUS_TIMEOUT" in line and "from 0.1 to 3600" in line


def test_a_token_that_is_not_a_header_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TOKEN", f"{TOKEN}\r\nX-Evil: 1")
    line = one_line(*timed(fleet("prometheus+http://127.0.0.1:9")), 2)
    assert "BLOCKFIT_PROMETHEUS_TOKEN" in line


def test_a_fleet_given_with_another_source_is_named_without_its_password(tmp_path: Path) -> None:
    """plan refuses a Prometheus source beside another --from; its line used to quote the URL with the password."""
    other = tmp_path / "h.csv"
    other.write_text("timestamp,device,read_iops\n")
    code, out, err = timed(["plan", "--from", f"prometheus+http://dba:{PASSWORD}@127.0.0.1:9", "--from", str(other),
                            "--devices", "dm-3", "--instance", "VM.Standard.E4.Flex:8", "--capacity", "1T"])
    line = one_line(code, out, err, 2)
    assert "whole fleet" in line and "***@127.0.0.1:9" in line
