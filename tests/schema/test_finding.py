"""schema.finding: the kinds of finding diagnose may name, and the Diagnosis document that carries them."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from blockfit.schema import finding
from blockfit.schema.finding import DeviceSummary, Diagnosis, Finding, FindingKind


def _finding(**kw: object) -> Finding:
    base: dict[str, object] = {"kind": "flush_storm", "device": "sdb", "severity": "warning", "summary": "s",
                               "evidence": ["e"], "recommendation": "r"}
    return Finding.model_validate({**base, **kw})


def _summary(device: str = "sdb") -> DeviceSummary:
    return DeviceSummary(device=device, role="top", active_intervals=3, iops=10, read_iops=4, write_iops=6, mbps=1,
                         avg_request_kb=8, r_await_ms=1, w_await_ms=2, aqu_sz=0.5, util_pct=30, service_ms=1,
                         queue_ms=0.5)


def test_every_kind_the_module_documents_is_a_kind_it_accepts() -> None:
    doc = finding.__doc__ or ""
    kinds = typing.get_args(FindingKind)
    assert len(set(kinds)) == len(kinds)
    for kind in kinds:
        assert f"- {kind}:" in doc
        assert _finding(kind=kind).kind == kind


@pytest.mark.parametrize("bad", [{"kind": "slow_disk"}, {"severity": "fatal"}, {"metric": "latency"},
                                 {"evidence": "one string"}])
def test_a_finding_refuses_values_outside_its_vocabulary(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        _finding(**bad)


def test_measurements_default_to_a_fresh_dict() -> None:
    a, b = _finding(), _finding()
    a.measurements["iops"] = 1.0
    assert b.measurements == {} and a.metric is None


def test_a_diagnosis_round_trips_through_json() -> None:
    d = Diagnosis(source="replay:x.jsonl", interval_s=1, duration_s=3, samples=3, devices=[_summary()],
                  findings=[_finding(metric="iops", measurements={"cap": 3000.0})])
    back = Diagnosis.model_validate_json(d.model_dump_json())
    assert back == d and back.kind == "diagnose" and back.caveats == []
    with pytest.raises(ValidationError):
        Diagnosis.model_validate({**d.model_dump(), "samples": "many"})
