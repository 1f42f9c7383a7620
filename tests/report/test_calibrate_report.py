"""report.calibrate: the calibrate section from the documented example; a model is drawn over it only where it
can describe the same target."""

from __future__ import annotations

from pathlib import Path

from blockfit.report.calibrate import comparable_models, section, summary
from blockfit.report.figures import FigureSink
from blockfit.schema import Measurement
from support.build import make_layout, make_plan

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "calibrate.json"


def _example() -> Measurement:
    return Measurement.model_validate_json(EXAMPLE.read_text())


def test_every_measured_point_is_a_row_smalls_first() -> None:
    m = _example().model_copy(update={"member_share_at_max_iops": {}})   # one figure fewer to draw
    s = section(m, "calibrate.json", FigureSink(), [])
    (table,) = s.tables
    assert len(table.rows) == len(m.curve)
    phases = [r[0] for r in table.rows]
    assert phases == sorted(phases, key=lambda p: p != "small")
    assert len(s.figures) == sum(bool([p for p in m.curve if p.phase == ph]) for ph in ("small", "large"))


def test_the_summary_says_whether_the_bound_was_met() -> None:
    m = _example()
    assert ("sustains" in summary(m)) == m.bound_met
    unmet = m.model_copy(update={"bound_met": False})
    assert summary(unmet).startswith("Even one outstanding I/O")
    partial = m.model_copy(update={"partial": True, "stopped_by": "Ctrl-C"})
    assert summary(partial).endswith("(Ctrl-C): the curve is incomplete.")


def test_only_a_model_within_3x_at_the_same_io_size_is_comparable() -> None:
    m = _example()
    pred = make_plan(make_layout()).candidates[0].prediction
    wl = pred.workload.model_copy(update={"small_io": m.small_io})
    near = pred.model_copy(update={"workload": wl, "max_iops": m.saturation_iops * 2, "curve": [object()]})
    far = near.model_copy(update={"max_iops": m.saturation_iops * 4})
    other_io = near.model_copy(update={"workload": wl.model_copy(update={"small_io": m.small_io * 2})})
    flat = near.model_copy(update={"curve": []})
    assert comparable_models(m, [near, far, other_io, flat]) == [near]
