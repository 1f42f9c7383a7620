"""report.diagnose: the diagnose section: findings first, the devices table, at most MAX_DEVICES drawn."""

from __future__ import annotations

import typing

import pytest

from blockfit.report.diagnose import MAX_DEVICES, METRICS, evidence_metric, section, summary
from blockfit.report.figures import FigureSink
from blockfit.schema.finding import DeviceSummary, Diagnosis, Finding, FindingKind


def _dev(name: str, active: int = 5) -> DeviceSummary:
    return DeviceSummary(device=name, role="member", active_intervals=active, iops=100, read_iops=60, write_iops=40,
                         mbps=1, avg_request_kb=8, r_await_ms=1, w_await_ms=2, aqu_sz=1, util_pct=50, service_ms=1,
                         queue_ms=1)


def _finding(kind: str, device: str = "sdb", severity: str = "warning", **m: float) -> Finding:
    return Finding.model_validate({"kind": kind, "device": device, "severity": severity, "summary": f"{kind}.",
                                   "evidence": ["e"], "measurements": m, "recommendation": "do x"})


def _diag(devices: list[DeviceSummary], findings: list[Finding]) -> Diagnosis:
    return Diagnosis(source="replay:x.jsonl", interval_s=1, duration_s=60, samples=60, devices=devices,
                     findings=findings)


@pytest.mark.parametrize("kind", typing.get_args(FindingKind))
def test_each_kind_points_at_a_drawn_metric_or_at_none(kind: str) -> None:
    got = evidence_metric(_finding(kind, cap=3000.0, flushes_per_s=9.0, in_flight=32.0, await_ms=40.0))
    assert got is None or got[0] in {key for key, _ in METRICS}


def test_the_cited_value_is_the_findings_own() -> None:
    assert evidence_metric(_finding("flush_storm", flushes_per_s=812.0)) == ("flushes_per_s", 812.0)
    assert evidence_metric(_finding("queue_depth_bound", aqu_high=31.0)) == ("aqu_sz", 31.0)
    assert evidence_metric(_finding("member_cap", cap=3000.0)) == ("iops", 3000.0)
    assert evidence_metric(_finding("misaligned_geometry")) is None


def test_nothing_found_says_so_and_draws_only_busy_devices() -> None:
    d = _diag([_dev("sda", 0)], [])
    assert summary(d).endswith("points at a flush storm, a queue-depth limit or a cap.")
    s = section(d, "d.json", FigureSink(), {})
    assert s.figures == [] and len(s.tables) == 1 and s.tables[0].muted_rows == {0}


def test_findings_lead_and_past_the_limit_devices_are_only_in_the_table() -> None:
    devs = [_dev(f"sd{c}") for c in "abcdefghijkl"]
    d = _diag(devs, [_finding("member_cap", "sdl", "critical"), _finding("flush_storm", "sdb")])
    s = section(d, "d.json", FigureSink(), {})
    findings, devices = s.tables
    assert [r[2] for r in findings.rows] == ["sdl", "sdb"] and findings.strong_rows == {0}
    assert len(devices.rows) == len(devs) and len(s.figures) == 1
    assert f"{len(devs) - MAX_DEVICES} more busy device(s)" in s.notes[0]
    assert "2 findings (1 critical, 1 warning). First: member_cap." in summary(d)
