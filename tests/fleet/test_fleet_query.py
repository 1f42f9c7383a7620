"""Issue 24 on a real Prometheus: history for a generated fleet, loaded once per session with promtool, whose
per-host percentiles are known by construction (each host's IOPS per step is D times a shuffled series whose p99
is exactly 1), and hosts built to be under, within or over their current layout.

Costs one block generation (~1 M samples) and a few Prometheus starts; the CLI runs in-process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from blockfit.catalog import load_catalog
from blockfit.fleet.promapi import Client, parse_source
from blockfit.fleet.query import FleetQuery, fleet_history, host_series, prepare, window
from blockfit.model import predict
from blockfit.plan import make_plan
from blockfit.plan.advice import workload
from blockfit.schema import Instance, Requirements
from blockfit.specs import parse_layout
from blockfit.testbed.promserver import (
    PROMETHEUS,
    SyntheticHost,
    create_blocks,
    prometheus_server,
    write_openmetrics,
)
from support.fleet import hanging_prometheus, run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which(PROMETHEUS) is None or shutil.which("promtool") is None,
                       reason="needs Debian's prometheus package (scripts/setup.sh)"),
]

STEP, RANGE, SCRAPE, P = 60, 86400, 30, 99.0
IO = 16384
SHAPE = "VM.Standard.E4.Flex"
INSTANCE = f"{SHAPE}:8"
CAT = load_catalog("oci")
BLOCKS_ONLY = shutil.ignore_patterns("wal", "chunks_head", "lock", "queries.active", "*.tmp*")  # a copy to serve


def unit_series(steps: int, seed: int) -> np.ndarray:
    """A shuffled ramp whose p99 (numpy's linear rule, PromQL's too) is exactly 1."""
    ramp = np.linspace(0.3, 1.0, steps)
    ramp /= np.percentile(ramp, P)
    np.random.default_rng(seed).shuffle(ramp)
    return ramp


def now_iops(layout: str) -> float:
    req = Requirements(cloud="oci", capacity_gb=1, instance_shape=SHAPE, instance_ocpus=8, read_pct=70)
    return predict(parse_layout(layout, "oci", CAT), Instance(cloud="oci", shape=SHAPE, ocpus=8), workload(req), CAT,
                   with_curve=False).max_iops


def cheapest_layout(demand: float, capacity: float) -> str:
    req = Requirements(cloud="oci", capacity_gb=capacity, target_iops=demand, target_mbps=demand * IO / 1e6,
                       instance_shape=SHAPE, instance_ocpus=8, read_pct=70)
    return make_plan(req, CAT, keep=1, brief=True).candidates[0].layout


@dataclass
class Fleet:
    """The generated fleet: its server, the truth per host and the mapping file."""

    url: str
    data: Path
    hosts: dict[str, SyntheticHost]
    demand: dict[str, float]            # p99 IOPS by construction
    expected: dict[str, str]            # status by construction
    mapping: Path
    end: int


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    work = tmp_path_factory.mktemp("fleet")
    w = window(time.time(), RANGE, STEP)
    steps = w.steps
    layouts: dict[str, str | None] = {}
    demand: dict[str, float] = {}
    expected: dict[str, str] = {}
    for i, (layout, factor) in enumerate((("1x500G@balanced", 1.5), ("2x1000G@balanced", 1.3))):
        host = f"db-under-{i}:9100"
        layouts[host], demand[host], expected[host] = layout, factor * now_iops(layout), "under"
    for i, d in enumerate((2500.0, 9000.0, 21000.0)):
        host = f"db-within-{i}:9100"
        layouts[host], demand[host], expected[host] = cheapest_layout(1.02 * d, 1000), d, "within"  # 2 % spare
    for i, d in enumerate((1500.0, 3000.0, 6000.0)):
        host = f"db-over-{i}:9100"
        layouts[host], demand[host], expected[host] = "8x1000G@higher", d, "over"
    layouts["db-unmapped:9100"], demand["db-unmapped:9100"], expected["db-unmapped:9100"] = None, 4000.0, "unknown"
    layouts["db-reset:9100"], demand["db-reset:9100"] = "2x1000G@balanced", 12000.0
    hosts = {h: SyntheticHost(h, demand[h] * unit_series(steps, k), io_size=IO,
                              reset_at=steps // 3 if h == "db-reset:9100" else None)
             for k, h in enumerate(demand)}
    hosts["db-missing:9100"] = SyntheticHost("db-missing:9100", 800 * unit_series(steps, 99), io_size=IO,
                                             missing=frozenset({"node_disk_written_bytes_total"}))
    # the mount-point hosts: another job, their database on an LVM volume under /u01
    for k in range(2):
        h = f"db-mount-{k}:9100"
        demand[h] = 3000.0 * (k + 1)
        hosts[h] = SyntheticHost(h, demand[h] * unit_series(steps, 50 + k), io_size=IO, devices=("dm-7",),
                                 mounts={"/u01": "/dev/mapper/vg-u01"}, dm_names={"dm-7": "vg-u01"},
                                 labels={"job": "mount", "blockfit_layout": "2x1000G@balanced",
                                         "blockfit_instance": INSTANCE})
    hosts["db-mount-nodm:9100"] = SyntheticHost("db-mount-nodm:9100", 1000 * unit_series(steps, 60), io_size=IO,
                                                devices=("dm-7",), mounts={"/u01": "/dev/mapper/vg-u01"},
                                                labels={"job": "mount"})
    om = work / "history.om"
    with open(om, "w") as fh:
        write_openmetrics(fh, list(hosts.values()), w.start, STEP, SCRAPE)
        # a host whose history ends an hour before the range: in the index, no sample in the window
    stale = SyntheticHost("db-stale:9100", np.full(120, 500.0), io_size=IO)
    with open(work / "stale.om", "w") as fh:
        write_openmetrics(fh, [stale], w.start - 3 * 3600, STEP, SCRAPE)
    data = work / "data"
    create_blocks(om, data, RANGE)
    create_blocks(work / "stale.om", data, 3 * 3600)
    mapping = work / "hosts.toml"
    mapping.write_text(f'[defaults]\ninstance = "{INSTANCE}"\n\n'
                       + "".join(f'[hosts."{h}"]\nlayout = "{lay}"\n\n' for h, lay in layouts.items() if lay)
                       + '[hosts."db-gone"]\nlayout = "1x100G@balanced"\n')
    with prometheus_server(data) as srv:
        yield Fleet(srv.url, data, hosts, demand, expected, mapping, w.end)


def fleet_args(fleet: Fleet, *extra: str) -> list[str]:
    return ["plan", "--from", fleet.url, "--match", 'job="node"', "--range", "1d", "--step", "1m",
            "--until", str(fleet.end), "--percentile", "99", "--hosts", str(fleet.mapping), "--capacity", "1T", *extra]


@pytest.fixture(scope="session")
def fleet_json(fleet: Fleet, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, str, Path]:
    report = tmp_path_factory.mktemp("fleet-report") / "fleet.html"
    code, out, err = run_cli(*fleet_args(fleet, "--devices", "dm-3", "--json", "--report", str(report)))
    return code, json.loads(out), err, report


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


def test_human_output_lists_hosts_and_reset_note(fleet: Fleet) -> None:
    code, out, err = run_cli(*fleet_args(fleet, "--devices", "dm-3"))
    assert code == 2
    assert "db-under-0:9100" in out and "under" in out and "Monthly cost of" in out
    assert "note: db-reset:9100: the counters restarted 1 time" in out
    assert len(err.strip().splitlines()) == 3


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


def test_server_and_client_percentiles_agree(fleet: Fleet) -> None:
    """The server's quantile_over_time against numpy over the same series fetched with query_range, sliced
    small (max_points 100: 15 slices) so the splitting is exercised; both against the construction."""
    client = Client(parse_source(fleet.url), max_points=100)
    q = FleetQuery(match='job="node"', window=window(fleet.end, RANGE, STEP), percentile=P, devices="dm-3")
    server = {h.host: h for h in fleet_history(client, q) if hasattr(h, "iops")}
    rules = prepare(client, q).rules
    before = client.requests
    for host in ("db-within-1:9100", "db-reset:9100", "db-over-2:9100"):
        series = host_series(client, q, rules, host)
        assert len(series) == RANGE // STEP
        assert [t for t, _ in series] == sorted({t for t, _ in series})   # no step twice across slices
        client_side = float(np.percentile([v for _, v in series], P))
        assert client_side == pytest.approx(server[host].iops, rel=1e-9)
        assert client_side == pytest.approx(fleet.demand[host], rel=1e-6)
    assert client.requests - before >= 3 * 15


def test_a_query_too_big_for_the_server_is_split(fleet: Fleet, tmp_path: Path) -> None:
    """A server whose --query.max-samples refuses the whole batch (422): the batch is halved until it fits, and
    every host gets the same answer as from the unconstrained server."""
    data = tmp_path / "data"
    shutil.copytree(fleet.data, data, ignore=BLOCKS_ONLY)
    q = FleetQuery(match='job="node"', window=window(fleet.end, RANGE, STEP), percentile=P, devices="dm-3")
    whole = Client(parse_source(fleet.url))
    expect = {h.host: h for h in fleet_history(whole, q) if hasattr(h, "iops")}
    with prometheus_server(data, extra_args=["--query.max-samples=12000"]) as small:
        client = Client(parse_source(small.url))
        got = {h.host: h for h in fleet_history(client, q) if hasattr(h, "iops")}
    assert set(got) == set(expect)
    for host, h in got.items():
        assert h.iops == pytest.approx(expect[host].iops, rel=1e-9) and h.samples == expect[host].samples
    assert client.requests > whole.requests


def test_mount_point_selects_the_device_under_it(fleet: Fleet) -> None:
    code, out, err = run_cli("plan", "--from", fleet.url, "--match", 'job="mount"', "--range", "1d",
                             "--until", str(fleet.end),
                             "--percentile", "99", "--mount", "/u01", "--json")
    r = json.loads(out)
    got = {h["host"]: h for h in r["hosts"]}
    assert set(got) == {"db-mount-0:9100", "db-mount-1:9100"}
    for host, h in got.items():
        assert h["targets"]["sources"][0]["members"] == ["dm-7"]
        assert abs(h["targets"]["iops"] / fleet.demand[host] - 1) <= 0.01
        assert h["now"]["layout"] == "2x1000G@balanced"   # from the blockfit_layout label
    assert code == 2 and [p["host"] for p in r["problems"]] == ["db-mount-nodm:9100"]
    assert "node_disk_device_mapper_info" in err and len(err.strip().splitlines()) == 1


def test_unreachable_server_is_exit_4() -> None:
    """A port held bound but not listening: the connection is refused for sure (a port merely free a moment ago
    could be taken by another process before blockfit connects)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        code, out, err = run_cli("plan", "--from", f"prometheus+http://127.0.0.1:{held.getsockname()[1]}",
                                 "--devices", "sda", "--instance", INSTANCE, "--capacity", "1T")
    assert code == 4 and out == ""
    assert err.startswith("blockfit: error: prometheus+http://127.0.0.1:") and "cannot reach" in err
    assert len(err.strip().splitlines()) == 1


def test_selector_matching_nothing_is_exit_2(fleet: Fleet) -> None:
    code, out, err = run_cli("plan", "--from", fleet.url, "--match", 'job="nosuchjob"', "--devices", "dm-3",
                             "--range", "1d", "--until", str(fleet.end))
    assert code == 2 and out == ""
    assert "--match" in err and "no node_disk_reads_completed_total series" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("args", "names"), [
    (["--match", "job=\"node\""], "--match"),
    (["--range", "30d"], "--range"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--range", "3x"], "--range"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--step", "0s"], "--step"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--range", "1m", "--step", "1m"], "--range"),
    (["--from", "prometheus+http://127.0.0.1:1"], "--devices or --mount"),
    (["--from", "prometheus+ftp://x"], "--from"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--target-iops", "5"], "--target-iops"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "[", ], "--devices"),
    (["--from", "prometheus+http://127.0.0.1:1", "--mount", "u01"], "--mount"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--hosts", "/nonexistent.toml"], "--hosts"),
    (["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--until", "2999-01-01"], "--until"),
    (["--until", "2020-01-01"], "--until"),
])
def test_bad_options_fail_before_any_request(args: list[str], names: str) -> None:
    code, out, err = run_cli("plan", "--instance", INSTANCE, "--capacity", "1T", *args)
    assert code == 2 and out == "", err
    assert names in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_server_that_cannot_answer_is_exit_4_and_names_each_host(fleet: Fleet, tmp_path: Path) -> None:
    """A server whose every query times out: split to single hosts, each then reported as the server's problem,
    exit 4. --query.timeout=0s makes the timeout certain: each query's deadline has passed when it is made, and
    Prometheus checks it before any work (a few milliseconds would let the small queries finish in time)."""
    data = tmp_path / "data"
    shutil.copytree(fleet.data, data, ignore=BLOCKS_ONLY)
    with prometheus_server(data, extra_args=["--query.timeout=0s"]) as slow:
        code, out, err = run_cli("plan", "--from", slow.url, "--match", 'job="node",instance=~"db-over-.*"',
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


def test_server_is_stopped_and_removed_on_error_and_ctrl_c(tmp_path: Path) -> None:
    for exc in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)), prometheus_server() as srv:
            pid, log = srv.proc.pid, srv.log
            assert log.exists()
            raise exc
        assert srv.proc.poll() is not None and not Path(f"/proc/{pid}").exists()
        assert not log.parent.exists()
