"""schema.bench: the bench result reads the documented example back unchanged, and an old warm-up is dropped."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
from pydantic import ValidationError

from blockfit.schema.bench import IO_BINDINGS, BenchResult, Binding, MeasureResult

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "bench.json"


def test_the_documented_example_round_trips() -> None:
    raw = EXAMPLE.read_text()
    res = BenchResult.model_validate_json(raw)
    assert res.kind == "bench" and res.layouts
    again = BenchResult.model_validate_json(res.model_dump_json())
    assert again == res
    assert json.loads(res.model_dump_json())["layouts"][0]["label"] == json.loads(raw)["layouts"][0]["label"]


def test_io_bindings_are_bindings_and_leave_out_the_cpu() -> None:
    assert set(IO_BINDINGS) <= set(typing.get_args(Binding))
    assert "cpu" not in IO_BINDINGS and "unknown" not in IO_BINDINGS


def test_a_fixed_length_warmup_run_of_an_old_result_is_not_carried_over() -> None:
    old = {"measure": "oltp-select", "unit": "TPS", "higher_is_better": True,
           "warmup": {"index": 0, "started_s": 0.0, "seconds": 60.0, "score": 812.0}}
    assert MeasureResult.model_validate(old).warmup is None
    assert old["warmup"] is not None   # the input is not changed in place


def test_a_warmup_by_evidence_is_kept_and_a_broken_one_refused() -> None:
    warm = {"unit": "transaction", "outcome": "steady", "steady_windows": 3, "steady_pct": 5.0, "budget_s": 300.0,
            "seconds": 90.0, "work": 1000.0, "text": "steady"}
    res = MeasureResult.model_validate({"measure": "oltp-tpcb", "unit": "TPS", "higher_is_better": True,
                                        "warmup": warm})
    assert res.warmup is not None and res.warmup.outcome == "steady"
    with pytest.raises(ValidationError):
        MeasureResult.model_validate({"measure": "oltp-tpcb", "unit": "TPS", "higher_is_better": True,
                                      "warmup": {**warm, "outcome": "guessed"}})


def test_an_unknown_measure_or_binding_is_refused() -> None:
    with pytest.raises(ValidationError):
        MeasureResult.model_validate({"measure": "tpcc", "unit": "TPS", "higher_is_better": True})
    with pytest.raises(ValidationError):
        MeasureResult.model_validate({"measure": "dss", "unit": "seconds", "higher_is_better": False,
                                      "binding": "network"})
