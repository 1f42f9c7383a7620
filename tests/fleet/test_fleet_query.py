"""The fleet's queries on real servers, Prometheus and VictoriaMetrics (issue 24, issue 39): history for a
generated fleet whose per-host percentiles are known by construction (each host's IOPS per step is D times a
shuffled series whose p99 is exactly 1), and hosts built to be under, within or over their current layout. The
same generated history is loaded into both (promtool blocks; VictoriaMetrics' import API), one server start per
engine per session, and every test that reads the fleet runs against both; the CLI runs in-process.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
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
from blockfit.errors import InputError
from blockfit.fleet.promapi import Client, parse_source
from blockfit.fleet.query import (
    FleetQuery,
    Queries,
    fleet_history,
    host_series,
    parse_span,
    parse_until,
    prepare,
    window,
)
from blockfit.model import predict
from blockfit.plan import make_plan
from blockfit.plan.advice import workload
from blockfit.schema import Instance, Requirements
from blockfit.specs import parse_layout
from blockfit.testbed.promserver import (
    PROMETHEUS,
    PROMTOOL,
    VICTORIA_METRICS,
    SyntheticHost,
    create_blocks,
    prometheus_server,
    victoria_metrics_server,
    write_json_lines,
    write_openmetrics,
)
from support.fleet import hanging_prometheus, run_cli

# a server start each: slow (the marks ride on the fixture's params, so every test that reads a fleet has them)
ENGINES = [pytest.param(engine, marks=pytest.mark.slow) for engine in ("prometheus", "victoria-metrics")]
NEEDS = {"prometheus": (PROMETHEUS, PROMTOOL), "victoria-metrics": (VICTORIA_METRICS,)}
# a test of Prometheus's own flags (--query.max-samples, --query.timeout) or of a proxy in front of it
PROMETHEUS_ONLY = pytest.mark.parametrize("fleet", [ENGINES[0]], indirect=True)

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
class History:
    """The generated fleet: the truth per host, the mapping file, the history in each engine's input form."""

    hosts: dict[str, SyntheticHost]
    demand: dict[str, float]            # p99 IOPS by construction
    expected: dict[str, str]            # status by construction
    mapping: Path
    end: int
    work: Path
    twenty: list[str]                   # the 20 hosts of job="twenty"


@dataclass
class Fleet(History):
    """The generated fleet on a running server."""

    engine: str = ""
    url: str = ""
    data: Path | None = None            # Prometheus's data directory (a copy serves another server)


TWENTY = 20


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> History:
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
    # the acceptance fleet: 20 hosts of one device each, another job
    twenty = [f"db-{k:02d}.twenty:9100" for k in range(TWENTY)]
    for k, h in enumerate(twenty):
        demand[h] = 1000.0 + 977.0 * k
        hosts[h] = SyntheticHost(h, demand[h] * unit_series(steps, 200 + k), io_size=IO, idle_devices=(),
                                 labels={"job": "twenty"})
    # a host whose history ends an hour before the range: in the index, no sample in the window
    stale = SyntheticHost("db-stale:9100", np.full(120, 500.0), io_size=IO)
    for name, write in (("om", write_openmetrics), ("jsonl", write_json_lines)):
        with open(work / f"history.{name}", "w") as fh:
            write(fh, list(hosts.values()), w.start, STEP, SCRAPE)
        with open(work / f"stale.{name}", "w") as fh:
            write(fh, [stale], w.start - 3 * 3600, STEP, SCRAPE)
    with open(work / "history.jsonl", "a") as fh, open(work / "stale.jsonl") as stale_lines:
        fh.write(stale_lines.read())
    mapping = work / "hosts.toml"
    mapping.write_text(f'[defaults]\ninstance = "{INSTANCE}"\n\n'
                       + "".join(f'[hosts."{h}"]\nlayout = "{lay}"\n\n' for h, lay in layouts.items() if lay)
                       + '[hosts."db-gone"]\nlayout = "1x100G@balanced"\n')
    return History(hosts, demand, expected, mapping, w.end, work, twenty)


@pytest.fixture(scope="session", params=ENGINES)
def fleet(request: pytest.FixtureRequest, generated: History) -> Iterator[Fleet]:
    """The generated fleet served by each engine in turn (one start per engine per session)."""
    engine = str(request.param)
    missing = [tool for tool in NEEDS[engine] if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (scripts/setup.sh)")
    fields = {k: getattr(generated, k) for k in History.__dataclass_fields__}
    if engine == "victoria-metrics":
        with victoria_metrics_server(generated.work / "history.jsonl") as vm:
            yield Fleet(**fields, engine=engine, url=vm.url)
        return
    data = generated.work / "data"
    if not data.exists():
        create_blocks(generated.work / "history.om", data, RANGE)
        create_blocks(generated.work / "stale.om", data, 3 * 3600)
    with prometheus_server(data) as srv:
        yield Fleet(**fields, engine=engine, url=srv.url, data=data)


def fleet_args(fleet: Fleet, *extra: str) -> list[str]:
    return ["fleet", "--from", fleet.url, "--match", 'job="node"', "--range", "1d", "--step", "1m",
            "--until", str(fleet.end), "--percentile", "99", "--hosts", str(fleet.mapping), "--capacity", "1T", *extra]


@pytest.fixture(scope="session")
def fleet_json(fleet: Fleet, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, str, Path]:
    report = tmp_path_factory.mktemp("fleet-report") / "fleet.html"
    code, out, err = run_cli(*fleet_args(fleet, "--devices", "dm-3", "--json", "--report", str(report)))
    return code, json.loads(out), err, report


def test_every_query_groups_by_instance_outermost_and_keeps_the_subquery_quantile() -> None:
    """Shaped for the scale-out engines (issue 39): each reduction is an aggregation `by (instance)` at its
    outermost, which a Thanos query frontend shards vertically, and the percentile a quantile_over_time over a
    subquery, which Mimir shards as it is; for one device a host and for several."""
    q = FleetQuery(match='job="node"', window=window(1_800_000_000, RANGE, STEP), percentile=P, devices="dm-3")
    hosts = ["db-1:9100", "db-2:9100"]
    for devices in (1, 2):
        queries = Queries(q, dict.fromkeys(hosts, "dm-3"), dict.fromkeys(hosts, devices))
        for what, expr in queries.all(hosts).items():
            body = expr.removesuffix(" / 1e6")   # MB/s: scaled after the percentile, a constant the shards keep
            assert re.match(r"^(max|sum) by \(instance\) \(", body), (what, expr)
            assert _closes_at(body, len(re.match(r"^\w+ by \(instance\) ", body)[0])) == len(body) - 1, expr
        for what in ("iops", "mbps"):
            inner = queries.all(hosts)[what]
            assert f"quantile_over_time({P / 100:g}, (" in inner and inner.count("[1d:1m]") == 1, inner


def _closes_at(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at START."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise AssertionError(text)


def test_spans_and_times() -> None:
    assert parse_span("30d", "--range") == 30 * 86400 and parse_span("1m", "--step") == 60
    for bad in ("30", "1.5s", "0s", "1y", "-1d", "nan", "999w"):
        with pytest.raises(InputError, match="--range"):
            parse_span(bad, "--range")
    assert parse_until("2026-01-01T00:00Z", 2e9) == 1767225600
    assert parse_until("1767225600", 2e9) == 1767225600
    for bad in ("yesterday", "3000-01-01", "-5", "inf"):
        with pytest.raises(InputError, match="--until"):
            parse_until(bad, 2e9)




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


@PROMETHEUS_ONLY
def test_a_query_too_big_for_the_server_is_split(fleet: Fleet, tmp_path: Path) -> None:
    """A server whose --query.max-samples refuses the whole batch (422): the batch is halved until it fits, and
    every host gets the same answer as from the unconstrained server."""
    assert fleet.data is not None
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
    code, out, err = run_cli("fleet", "--from", fleet.url, "--match", 'job="mount"', "--range", "1d",
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


def test_twenty_hosts_each_exactly(fleet: Fleet) -> None:
    """Issue 39's acceptance: a generated fleet of 20 hosts gives all 20, each at its constructed p99, on every
    engine (the percentile of rates that are exact by construction: equal to 9 digits)."""
    code, out, err = run_cli("fleet", "--from", fleet.url, "--match", 'job="twenty"', "--devices", "dm-3",
                             "--range", "1d", "--until", str(fleet.end), "--percentile", "99", "--instance",
                             INSTANCE, "--capacity", "1T", "--json")
    assert code == 0, err
    r = json.loads(out)
    got = {h["host"]: h["targets"] for h in r["hosts"]}
    assert sorted(got) == sorted(fleet.twenty) and r["problems"] == []
    for host, t in got.items():
        assert t["iops"] == pytest.approx(fleet.demand[host], rel=1e-9), (fleet.engine, host)
        assert t["mbps"] == pytest.approx(fleet.demand[host] * IO / 1e6, rel=1e-9), (fleet.engine, host)
        assert t["read_pct"] == pytest.approx(70, abs=0.01) and t["samples"] == RANGE // STEP


def test_selector_matching_nothing_is_exit_2(fleet: Fleet) -> None:
    code, out, err = run_cli("fleet", "--from", fleet.url, "--match", 'job="nosuchjob"', "--devices", "dm-3",
                             "--range", "1d", "--until", str(fleet.end))
    assert code == 2 and out == ""
    assert "--match" in err and "no node_disk_reads_completed_total series" in err
    assert len(err.strip().splitlines()) == 1


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


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["prometheus", "victoria-metrics"])
def test_server_is_stopped_and_removed_on_error_and_ctrl_c(engine: str) -> None:
    if shutil.which(NEEDS[engine][0]) is None:
        pytest.skip(f"needs {NEEDS[engine][0]} (scripts/setup.sh)")
    server = prometheus_server if engine == "prometheus" else victoria_metrics_server
    for exc in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)), server() as srv:
            pid, log = srv.proc.pid, srv.log
            assert log.exists()
            raise exc
        assert srv.proc.poll() is not None and not Path(f"/proc/{pid}").exists()
        assert not log.parent.exists()
