"""report.bench: the bench section from the documented example: one verdict row per comparison, a figure per
measure with a median."""

from __future__ import annotations

from pathlib import Path

from blockfit.report.bench import inconclusive, section, summary
from blockfit.report.figures import FigureSink
from blockfit.schema import BenchResult

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "bench.json"


def _example() -> BenchResult:
    return BenchResult.model_validate_json(EXAMPLE.read_text())


def test_a_verdict_row_per_comparison_and_a_figure_per_drawn_measure() -> None:
    r = _example()
    s = section(r, "bench.json", FigureSink())
    verdicts = s.tables[0]
    assert [(row[0], row[1], row[2]) for row in verdicts.rows] == [(c.measure, c.baseline, c.other)
                                                                   for c in r.comparisons]
    drawn = [name for name in r.measures if any(m.measure == name and m.median is not None
                                                for lay in r.layouts for m in lay.measures)]
    assert len(s.figures) == len(drawn)
    assert s.title == "Bench: " + " vs ".join(lay.label for lay in r.layouts)


def test_the_summary_names_the_layouts_and_each_verdict() -> None:
    r = _example()
    text = summary(r)
    assert all(lay.label in text for lay in r.layouts)
    # each verdict: the bench's words, or for an interval too wide to decide (all the shipped example's), the
    # report's reading of it (the bench's words follow under the tables)
    assert all((f"{c.measure}: inconclusive" if inconclusive(r, c) else c.text) in text for c in r.comparisons)
    assert "partial" not in text
    assert "The bench stopped early (SIGTERM)" in summary(r.model_copy(update={"partial": True,
                                                                               "stopped_by": "SIGTERM"}))
