"""Every PromQL expression the fleet sends, checked by a real PromQL parser: promtool (Prometheus's own) reads each
generated query as a recording rule's `expr` (`promtool check rules`), over drawn host names, device rules,
selectors, percentiles and windows. One promtool run checks them all; a wrong expression fails with its number."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from blockfit.fleet.promql import Queries, disk_series, mount_series
from blockfit.fleet.query import FleetQuery, check_selector, device_regex, window

PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian prometheus) is not installed")

SELECTORS = ["", 'job="node"', 'job="node",instance=~"db-.*"', "{env!='prod'}", 'dc=~`eu-\\d+`,', 'a!~"x|y"']
DEVICES = [["sdb"], ["nvme[0-9]+n1"], ["/dev/dm-3", "md0"], ["sd[b-e]", "xvd.+"], ["dm-.*"]]
ALPHABET = "abcz09-_.:/\\\"'`{}[]()|*+?^$ é中\t\r\x7f\u202e"


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12)))


def _expressions(rng: random.Random, cases: int) -> list[str]:
    out: list[str] = []
    for _ in range(cases):
        match = check_selector(rng.choice(SELECTORS))
        hosts = sorted({_name(rng) for _ in range(rng.randint(1, 5))})
        rules = {h: rng.choice([device_regex(rng.choice(DEVICES)) or "",
                                "|".join(re.escape(_name(rng)) for _ in range(rng.randint(1, 3)))]) for h in hosts}
        step = rng.choice((15, 60, 300))
        q = FleetQuery(match=match, window=window(1_800_000_000, step * rng.randint(2, 50_000), step),
                       percentile=rng.choice((50, 95, 99, 99.9, 100 * rng.random())))
        devices = {h: rng.choice((1, 2, 4)) for h in hosts}
        queries = Queries(q, rules, devices if rng.random() < 0.7 else None)
        out += [*queries.all(hosts).values(), queries.iops(hosts[:1]), queries.mbps(hosts[:1])]
        out += [disk_series(match), *mount_series(match, "/" + _name(rng))]
    return out


def _promtool_check(tmp_path: Path, exprs: list[str]) -> subprocess.CompletedProcess[str]:
    rules = {"groups": [{"name": "blockfit", "rules": [{"record": f"blockfit:q{i}", "expr": e}
                                                        for i, e in enumerate(exprs)]}]}
    path = tmp_path / "rules.yml"
    path.write_text(json.dumps(rules), encoding="utf-8")   # JSON is YAML
    return subprocess.run([str(PROMTOOL), "check", "rules", str(path)], capture_output=True, text=True, timeout=120)


def test_every_generated_query_parses_as_promql(tmp_path: Path) -> None:
    exprs = _expressions(random.Random(20261207), 150)
    assert len(exprs) > 1000 and any("quantile_over_time" in e for e in exprs)
    run = _promtool_check(tmp_path, exprs)
    assert run.returncode == 0, (run.stdout + run.stderr)[-2000:]
    assert f"{len(exprs)} rules found" in run.stdout


def test_promtool_refuses_what_is_not_promql(tmp_path: Path) -> None:
    """The check can fail: a selector left open, a bad regex and a string not closed are each refused."""
    for bad in ('node_disk_reads_completed_total{instance="a"', 'x{device=~"("}', 'x{instance="a}'):
        assert _promtool_check(tmp_path, [bad]).returncode != 0, bad

