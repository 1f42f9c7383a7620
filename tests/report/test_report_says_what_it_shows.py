"""The report says what it shows (issue 49 item 9): the plan's count is the count of the table under it; the bench
shows no table of dashes; no legend covers a plot; an interval too wide to read is called inconclusive, not shown
as a result; the shipped bench example is labelled for what it is. (The bench table at 1,280 px:
test_report_bench_width.py.)"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import html5lib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from blockfit.catalog import load_catalog
from blockfit.plan import make_plan
from blockfit.report import load, render, sections
from blockfit.report.figures import FigureSink, ReportFigure
from blockfit.report.page import render_page
from blockfit.schema import Plan, Requirements
from blockfit.schema.bench import BenchResult, Drift
from support.report import cli_json

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "bench.json"
CALIBRATE = ROOT / "docs" / "examples" / "calibrate.json"
EMPTY = {"-", "–", ""}


def _sections(html: str) -> dict[str, Any]:
    doc = html5lib.parse(html, namespaceHTMLElements=False)
    return {s.get("data-kind"): s for s in doc.iter("section") if s.get("class") == "result"}


def _text(node: Any) -> str:
    return " ".join("".join(node.itertext()).split())


def _tables(section: Any) -> list[tuple[str, list[list[str]]]]:
    """(caption, body rows) of every table."""
    return [(_text(t.find("caption")), [[_text(c) for c in tr if c.tag == "td"] for tr in t.find("tbody").iter("tr")])
            for t in section.iter("table")]


def _summary(section: Any) -> str:
    return next(_text(p) for p in section.iter("p") if p.get("class") == "summary")


class _Keep(FigureSink):
    """A sink that keeps the matplotlib figures too, to measure what was drawn where."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: list[tuple[str, Figure]] = []

    def add(self, fig: Figure, name: str, caption: str) -> ReportFigure:
        self.figures.append((name, fig))
        return super().add(fig, name, caption)


def _priced_mixed_plan(tmp_path: Path) -> Path:
    """An Azure plan whose premium-v2 and ultra types have no storage price: listed apart from the ranked ones."""
    azure = load_catalog("azure")
    unpriced = {"price_per_gb": None, "price_per_vpu_gb": None, "price_per_iops": None, "price_iops_tiers": [],
                "price_tiers": [], "price_per_tput": None}
    vts = {k: v.model_copy(update=unpriced) if k in ("premium-v2", "ultra") else v
           for k, v in azure.volume_types.items()}
    plan = make_plan(Requirements(cloud="azure", capacity_gb=4096, target_iops=60_000,
                                  instance_shape="Standard_E48s_v5", levels=["premium-v1", "premium-v2", "ultra"]),
                     azure.model_copy(update={"volume_types": vts}))
    path = tmp_path / "mixed.json"
    path.write_text(plan.model_dump_json())
    return path


@pytest.mark.parametrize("which", ["part3", "mixed"])
def test_the_plan_summary_counts_the_layouts_its_first_table_lists(which: str, tmp_path: Path) -> None:
    """'5 priced layouts meet every target' stood above a table of the chosen layout and the front (3 rows)."""
    if which == "part3":
        path = tmp_path / "plan.json"
        cli_json(path, "plan", "--example", "part3")
    else:
        path = _priced_mixed_plan(tmp_path)
    plan = Plan.model_validate_json(path.read_text())
    section = _sections(render([load(path)]))["plan"]
    m = re.search(r"(\d+) (priced )?layouts? meets? every target", _summary(section))
    assert m, _summary(section)
    caption, rows = _tables(section)[0]
    assert int(m.group(1)) == len(rows), (m.group(0), caption, rows)
    # the rows are the layouts that meet every target, the chosen one first, all of them priced when it is
    assert [r[0] for r in rows][0] == plan.candidates[0].layout
    listed = {(r[0], r[1]) for r in rows}
    assert all(c.meets_targets for c in plan.candidates if (c.layout, c.instance) in listed)
    priced = {(c.layout, c.instance) for c in plan.candidates if c.price_known and c.cap_known}
    assert listed == priced
    if which == "mixed":  # the unpriced ones have their own table, and the summary counts them apart
        unpriced = [c for c in plan.candidates if not c.price_known]
        assert unpriced and f"{len(unpriced)} more, of types without a storage price" in _summary(section)
        apart = next(rows for cap, rows in _tables(section) if cap.startswith("Layouts of types without"))
        assert len(apart) == len(unpriced)


def test_the_bench_section_shows_no_table_of_dashes_and_says_why_a_table_is_left_out() -> None:
    """The shipped bench (from before warm-up by evidence) showed a warm-up table of nothing but '-'."""
    r = BenchResult.model_validate_json(EXAMPLE.read_text())
    assert all(m.warmup is None and m.drift is None for lay in r.layouts for m in lay.measures)
    section = _sections(render([load(EXAMPLE)]))["bench"]
    for caption, rows in _tables(section):
        for row in rows:   # the first two cells name the row (measure and layouts, or layout and measure)
            assert any(cell not in EMPTY for cell in row[2:]), (caption, row)
    assert not any(cap.startswith("Warm-up") for cap, _ in _tables(section))
    assert "No warm-up table: this result records no warm-up by evidence" in _text(section)


def test_a_measured_warm_up_keeps_its_rows_and_only_those() -> None:
    r = BenchResult.model_validate_json(EXAMPLE.read_text())
    lay = r.layouts[1]
    lay.measures[0].drift = Drift(change_pct=3.5, first_last_pct=4.0, t=0.8, drifts=False)
    page = _sections(_render_bench(r))["bench"]
    warm = next(rows for cap, rows in _tables(page) if cap.startswith("Warm-up"))
    assert [row[:2] for row in warm] == [[lay.label, lay.measures[0].measure]]
    assert "+3.5 %" in warm[0] and "No warm-up table" not in _text(page)


def _render_bench(r: BenchResult) -> str:
    return _render_bench_with(r, FigureSink())


def _extent(artist: Any, renderer: Any) -> Bbox:
    return artist.get_window_extent(renderer)


def test_no_legend_covers_a_plot(tmp_path: Path) -> None:
    """Every legend of every figure lies outside every plot area (where the data is) and inside its figure: a
    legend placed in a corner of the plot covered the curve it named."""
    hist = tmp_path / "h.csv"
    hist.write_text("timestamp,read_iops,write_iops,read_mbps,write_mbps\n"
                    + "".join(f"2026-12-01T00:{i:02d}:00Z,{1000 + 10 * i},{500},{20},{10}\n" for i in range(20)))
    files = [cli_json(tmp_path / "plan.json", "plan", "--example", "part3") and tmp_path / "plan.json",
             cli_json(tmp_path / "hist.json", "plan", "--cloud", "oci", "--capacity", "1T", "--instance",
                      "VM.Standard.E4.Flex:8", "--from", str(hist), "--headroom", "30%") and tmp_path / "hist.json",
             cli_json(tmp_path / "model.json", "model", "--cloud", "oci", "--layout", "9x500G@balanced",
                      "--instance", "VM.Standard.E3.Flex:12", "--max-latency", "2ms") and tmp_path / "model.json",
             CALIBRATE, tmp_path / "lab-bench.json"]
    from test_report_lab_bench import lab_bench_result

    files[-1].write_text(lab_bench_result().model_dump_json())
    sink = _Keep()
    sections([load(p) for p in files], sink)
    checked = []
    for name, fig in sink.figures:
        FigureCanvasAgg(fig)
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
        whole = fig.bbox
        for legend in legends:
            box = _extent(legend, renderer)
            for ax in fig.axes:
                assert not box.overlaps(ax.bbox), f"{name}: the legend covers the plot area"
            assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1 and whole.y0 - 1 <= box.y0 \
                and box.y1 <= whole.y1 + 1, f"{name}: the legend runs out of the figure ({box} in {whole})"
            checked.append(name)
    # the figures with a legend that were drawn: the plan's front, the history, the model's curve, calibrate's two,
    # the lab bench's ratios
    assert {"plan-front", "plan-history", "model-curve", "calibrate-latency", "calibrate-mbps",
            "lab-bench-ratios"} <= set(checked)


def test_an_interval_too_wide_to_read_is_called_inconclusive_not_shown_as_a_result() -> None:
    """The shipped bench's intervals (two runs each, e.g. '+23 % [-98 %, +6838 %]') are flagged, not drawn."""
    r = BenchResult.model_validate_json(EXAMPLE.read_text())
    assert all(c.ci_low is not None and c.ci_high is not None and c.ci_low < 1 < c.ci_high for c in r.comparisons)
    sink = _Keep()
    page = _sections(_render_bench_with(r, sink))["bench"]
    summary = _summary(page)
    for c in r.comparisons:
        assert f"{c.measure}: inconclusive" in summary
        assert c.text not in summary   # the interval is not given as the comparison's result
    verdicts = next(rows for cap, rows in _tables(page) if cap.startswith("Verdicts"))
    assert [row[-1] for row in verdicts] == ["inconclusive"] * len(r.comparisons)
    for name, fig in sink.figures:   # no confidence interval drawn on the bars
        assert not any(isinstance(x, ErrorbarContainer) for ax in fig.axes for x in ax.containers), name
        assert fig.axes[0].get_title(loc="left").endswith("inconclusive"), name


@pytest.mark.parametrize(("low", "ratio", "high", "flagged"), [
    (0.95, 1.0, 1.05, False),   # no difference, and none larger than ±5 %: conclusive
    (1.5, 3.0, 6.0, False),     # wide, but B is faster whatever the interval: a direction is known
    (0.5, 1.0, 2.0, True),      # no difference, but one of 2x either way not ruled out
])
def test_only_an_interval_that_holds_no_difference_and_is_wider_than_a_verdict_needs_is_inconclusive(
        low: float, ratio: float, high: float, flagged: bool) -> None:
    r = BenchResult.model_validate_json(EXAMPLE.read_text())
    c = r.comparisons[0]
    c.ratio, c.ci_low, c.ci_high, c.half_width_pct = ratio, low, high, None
    sink = _Keep()
    page = _sections(_render_bench_with(r, sink))["bench"]
    assert (f"{c.measure}: inconclusive" in _summary(page)) is flagged
    bars = next(fig for name, fig in sink.figures if name == f"bench-{c.measure}")
    drawn = any(isinstance(x, ErrorbarContainer) for x in bars.axes[0].containers)
    assert drawn is not flagged


def _render_bench_with(r: BenchResult, sink: FigureSink) -> str:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.json"
        path.write_text(r.model_dump_json())
        return render_page("bench", sections([load(path)], sink), ["bench.json"])


def test_the_docs_label_the_shipped_bench_example_for_what_it_is() -> None:
    """The example is a real two-run bench: the pages that show it say its intervals are inconclusive."""
    text = " ".join((ROOT / "docs" / "commands" / "report.md").read_text().split())
    assert "--repeat 2" in text and "inconclusive" in text


def test_a_lab_bench_draws_no_inconclusive_interval_and_says_inconclusive(tmp_path: Path) -> None:
    """The lab's ratios figure and table read the inner bench the same way (the example's measurements)."""
    from test_report_lab_bench import lab_bench_result

    r = lab_bench_result()
    path = tmp_path / "lab-bench.json"
    path.write_text(r.model_dump_json())
    sink = _Keep()
    page = _sections(render_page("lab", sections([load(path)], sink), ["lab-bench.json"]))["lab-bench"]
    ratios = next(fig for name, fig in sink.figures if name == "lab-bench-ratios")
    assert not any(isinstance(x, ErrorbarContainer) for x in ratios.axes[0].containers)
    table = next(rows for cap, rows in _tables(page) if cap.startswith("The model's ratio beside"))
    assert [row[7] for row in table] == ["inconclusive"] * len(r.ratios)
    assert all(f"{x.measure}: inconclusive" in _summary(page) for x in r.ratios if x.measured_ratio is not None)
