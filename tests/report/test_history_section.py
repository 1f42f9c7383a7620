"""report.history: the plan section's history part: a figure over the series, where the targets came from, and
how the history became them."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from blockfit.history import derive_targets
from blockfit.report.figures import FigureSink
from blockfit.report.history import extend
from blockfit.report.page import Section
from support.awr_layout import awr_spool
from support.awr_samples import SAMPLES, needs_samples


def _section() -> Section:
    return Section("plan", "Plan", "plan.json", "The plan.")


def test_a_spool_gives_a_figure_and_a_row_per_source(tmp_path: Path) -> None:
    spool = tmp_path / "spool.lst"
    spool.write_text(awr_spool("ORCL", 7, 2, 12, datetime(2025, 1, 6, 6, 0)))
    h = derive_targets(spool, percentile=95, headroom_pct=20)
    s, sink = _section(), FigureSink()
    extend(s, h, sink)
    assert len(s.figures) == 1 and sink.count == 1 and "<svg" in s.figures[0].svg
    (table,) = s.tables
    assert table.rows == [[str(spool), "oracle-spool", "instance 1, instance 2", str(h.samples), "1 h",
                           h.sources[0].start or "", h.sources[0].end or ""]]
    titles = [t for t, _ in s.lists]
    assert "How the history became targets" in titles
    assert s.summary.startswith("The plan. ")


@needs_samples
def test_one_report_has_no_series_figure_but_says_its_readings() -> None:
    h = derive_targets(SAMPLES / "awr122_bpsc_2668_2669.txt", percentile=100)
    s, sink = _section(), FigureSink()
    h = h.model_copy(update={"series": []})
    extend(s, h, sink)
    assert s.figures == [] and sink.count == 0
    readings = dict(s.lists)["Readings and reconciliations"]
    assert readings[: len(h.notes)] == h.notes
