"""The fleet's queries on real servers, Prometheus and VictoriaMetrics (issue 24, issue 39), over the generated
fleet (support.fleet_history; one server start per engine per session, every test that reads the fleet runs
against both): the server's percentiles against the construction and against numpy over the same series, a query
too big split, the hosts under a mount point, the 20 hosts of the acceptance count; and the queries' shape
(outer `by (instance)`, the subquery's quantile) without a server."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from blockfit.errors import ValueProblem
from blockfit.fleet.promapi import Client, parse_source
from blockfit.fleet.query import (
    FleetQuery,
    Queries,
    check_selector,
    fleet_history,
    host_series,
    parse_span,
    parse_until,
    prepare,
    window,
)
from blockfit.testbed.promserver import prometheus_server, victoria_metrics_server
from support.fleet import run_cli
from support.fleet_history import (
    BLOCKS_ONLY,
    INSTANCE,
    IO,
    NEEDS,
    PROMETHEUS_ONLY,
    RANGE,
    STEP,
    Fleet,
    P,
)


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


def test_the_selector_is_checked_for_promql_matchers_before_any_request() -> None:
    """--match was sent as given unless it held a brace or a line break: 'job=node' or '$(touch x)' reached the
    server, which refused it after discovery had begun. Now PromQL's matcher grammar is checked at the edge."""
    for good, sent in (('job="node"', 'job="node"'),
                       ('{job="node", instance=~"db-.*",}', 'job="node", instance=~"db-.*"'), ("", ""),
                       ("a!~'x'", "a!~'x'"), ('a=`b`', 'a=`b`'), ('j="a\\"b"', 'j="a\\"b"')):
        assert check_selector(good) == sent
    for bad in ("job=node", "$(touch pwned)\t", 'job="x"\ninstance="y"', 'a="b" ;rm -rf x', "\x1b[31m red",
                'job="x"}', '{job="x"', "job", 'job=~"x" or up',
                "\n", ' job="x"\t'):   # a line break alone is not '' (every host): it was sent, and fuzzing met it
        with pytest.raises(ValueProblem, match="^'.*': expected label matchers") as err:   # the CLI names --match
            check_selector(bad)
        assert err.value.option is None


def test_spans_and_times() -> None:
    assert parse_span("30d") == 30 * 86400 and parse_span("1m") == 60
    for bad in ("30", "1.5s", "0s", "1y", "-1d", "nan", "999w"):
        with pytest.raises(ValueProblem, match=f"^{re.escape(repr(bad))}: expected"):   # the CLI names --range
            parse_span(bad)
    assert parse_until("2026-01-01T00:00Z", 2e9) == 1767225600
    assert parse_until("1767225600", 2e9) == 1767225600
    for bad in ("yesterday", "3000-01-01", "-5", "inf"):
        with pytest.raises(ValueProblem, match=f"^{re.escape(repr(bad))}: expected a time"):
            parse_until(bad, 2e9)




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
    assert err.startswith("blockfit: error: --match 'job=\"nosuchjob\"': no node_disk_reads_completed_total series")
    assert len(err.strip().splitlines()) == 1 and err.count("--match") == 1   # named once, by the CLI


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
