"""The fleet planned end to end on real servers (fleet/run.py): every host's targets and status by construction,
the hosts that cannot be planned one line each, the detail series of the hosts furthest short, a server that
cannot answer, and Ctrl-C leaving no planner process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from blockfit.testbed.promserver import prometheus_server
from support.fleet import hanging_prometheus, run_cli
from support.fleet_history import (
    BLOCKS_ONLY,
    IO,
    PROMETHEUS_ONLY,
    RANGE,
    STEP,
    Fleet,
    fleet_args,
)


def test_targets_within_one_percent_and_classified(fleet: Fleet, fleet_json: tuple[int, dict, str, Path]) -> None:
    _, r, _, _ = fleet_json
    assert r["kind"] == "fleet" and r["schema_version"] >= 1
    got = {h["host"]: h for h in r["hosts"]}
    planned = {h for h in fleet.demand if h.startswith(("db-under", "db-within", "db-over", "db-unmapped", "db-reset"))}
    assert set(got) == planned
    for host in planned:
        t = got[host]["targets"]
        assert abs(t["iops"] / fleet.demand[host] - 1) <= 0.01, (host, t["iops"], fleet.demand[host])
        assert abs(t["mbps"] / (fleet.demand[host] * IO / 1e6) - 1) <= 0.01, host
        src = t["sources"][0]
        assert abs(t["read_pct"] - 70) < 0.01 and src["format"] == "prometheus" and src["members"] == ["dm-3"]
        assert t["samples"] == RANGE // STEP
    for host, status in fleet.expected.items():
        assert got[host]["status"] == status, (host, got[host]["shortfall_pct"], got[host]["savings"])
    # largest shortfall first
    shortfalls = [h["shortfall_pct"] for h in r["hosts"] if h["shortfall_pct"] is not None]
    assert shortfalls == sorted(shortfalls, reverse=True) and shortfalls[0] > 0


def test_fleet_totals_are_the_sum_of_the_host_plans(fleet_json: tuple[int, dict, str, Path]) -> None:
    _, r, _, _ = fleet_json
    s = r["summary"]
    priced = [h for h in r["hosts"] if h["now"] and h["plan"]]
    assert s["priced"] == len(priced) > 0
    for part in ("storage", "compute", "total"):
        assert s["cost_now"][part] == pytest.approx(sum(h["now"]["cost"][part] for h in priced), abs=0.005)
        assert s["cost_recommended"][part] == pytest.approx(
            sum(h["plan"]["candidates"][0]["prediction"]["cost"][part] for h in priced), abs=0.005)
    assert s["savings"] == pytest.approx(s["cost_now"]["total"] - s["cost_recommended"]["total"], abs=0.01)
    counts = {k: sum(1 for h in r["hosts"] if h["status"] == k) for k in ("under", "within", "over", "unknown")}
    assert {k: s[k] for k in counts} == counts
    assert [a["host"] for a in s["largest_shortfalls"]][:2] == [h["host"] for h in r["hosts"][:2]]
    best = max((h for h in r["hosts"] if h["savings"]), key=lambda h: h["savings"])
    assert s["largest_savings"][0] == {"host": best["host"], "value": best["savings"]}
    # each host's plan is a plan result a reader of plans takes (one candidate, for this host's targets)
    for h in priced:
        plan = h["plan"]
        assert plan["kind"] == "plan" and len(plan["candidates"]) == 1
        assert plan["requirements"]["target_iops"] == pytest.approx(h["targets"]["target_iops"])


def test_bad_hosts_are_one_line_each_and_the_rest_planned(fleet_json: tuple[int, dict, str, Path]) -> None:
    code, r, err, _ = fleet_json
    assert code == 2  # hosts the input could not plan; the server was fine
    lines = [line for line in err.strip().splitlines() if not line.startswith("report written to")]
    problems = {p["host"]: p["message"] for p in r["problems"]}
    assert set(problems) == {"db-missing:9100", "db-stale:9100", "db-gone"}
    assert all(p["cause"] == "input" for p in r["problems"])
    assert "node_disk_written_bytes_total" in problems["db-missing:9100"]
    assert "no samples" in problems["db-stale:9100"]
    assert "named in --hosts" in problems["db-gone"]
    assert len(lines) == 3 and all(line.startswith("blockfit: input: ") for line in lines), lines
    assert "Traceback" not in err
    reset = next(h for h in r["hosts"] if h["host"] == "db-reset:9100")
    assert any("restarted 1 time" in s for s in reset["targets"]["skipped"])


def test_report_has_fleet_section_and_figures(fleet_json: tuple[int, dict, str, Path], tmp_path: Path) -> None:
    _, r, _, report = fleet_json
    html = report.read_text()
    assert 'class="section' in html or "<section" in html
    assert "fleet-demand" in html and "fleet-detail" in html
    assert "db-under-0:9100" in html
    # the under hosts carry their full series (query_range), kept as an envelope
    detail = [h for h in r["hosts"] if h["detail"]]
    assert {h["host"] for h in detail} == {"db-under-0:9100", "db-under-1:9100"}
    for h in detail:
        assert h["detail"]["steps"] == RANGE // STEP
        assert h["detail"]["steps_above_now"] > 0
    saved = tmp_path / "fleet.json"
    saved.write_text(json.dumps(r))
    code, _, err = run_cli("report", str(saved), "-o", str(tmp_path / "again.html"))
    assert code == 0, err


@PROMETHEUS_ONLY
def test_server_that_cannot_answer_is_exit_4_and_names_each_host(fleet: Fleet, tmp_path: Path) -> None:
    """A server whose every query times out: split to single hosts, each then reported as the server's problem,
    exit 4. --query.timeout=0s makes the timeout certain: each query's deadline has passed when it is made, and
    Prometheus checks it before any work (a few milliseconds would let the small queries finish in time)."""
    assert fleet.data is not None
    data = tmp_path / "data"
    shutil.copytree(fleet.data, data, ignore=BLOCKS_ONLY)
    with prometheus_server(data, extra_args=["--query.timeout=0s"]) as slow:
        code, out, err = run_cli("fleet", "--from", slow.url, "--match", 'job="node",instance=~"db-over-.*"',
                                 "--range", "1d", "--until", str(fleet.end), "--devices", "dm-3", "--json")
    assert code == 4
    r = json.loads(out)
    assert r["hosts"] == []
    assert {p["host"] for p in r["problems"]} == {f"db-over-{i}:9100" for i in range(3)}
    for p in r["problems"]:
        assert p["cause"] == "server" and "the server could not answer for this host alone" in p["message"], p
        assert "timed out" in p["message"], p
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("blockfit: ") for line in lines), lines


@PROMETHEUS_ONLY
def test_ctrl_c_leaves_no_planner_process(fleet: Fleet, tmp_path: Path) -> None:
    """SIGINT while the planner workers are up (forked, one per CPU) and the server holds a query unanswered (the
    run holds more queries than the 12 it lets through), so the run cannot finish before the signal: exit 130 with
    one line, and no process that carries this run's marker survives it."""
    marker = f"BLOCKFIT_FLEET_TEST={uuid.uuid4().hex}"
    env = {**os.environ, "BLOCKFIT_FLEET_TEST": marker.split("=", 1)[1]}
    upstream = fleet.url.removeprefix("prometheus+")
    with hanging_prometheus(upstream, answered=12) as server, open(tmp_path / "out.json", "wb") as out:
        args = fleet_args(fleet, "--devices", "dm-3", "--json")
        args[args.index("--from") + 1] = server.url
        proc = subprocess.Popen([sys.executable, "-c", "from blockfit.cli import main; main()", *args],
                                stdout=out, stderr=subprocess.PIPE, env=env)
        try:
            assert server.held.wait(120), "no query reached the server"
            cpus = len(os.sched_getaffinity(0))
            while proc.poll() is None and len(_marked(marker)) < (1 + cpus if cpus > 1 else 1):
                time.sleep(0.05)   # the CLI and its planner workers are up
            assert proc.poll() is None
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130, err
    assert err.decode().strip() == "blockfit: error: interrupted"
    time.sleep(0.5)
    assert _marked(marker) == []


def _marked(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids
