"""`blockfit report`: any number of blockfit results → one self-contained HTML page (inline CSS and SVG).

load.py reads and recognises a file; one module per result kind turns it into a Section (summary paragraph
from the result's own figures, then figures and tables); page.py renders the sections with a jinja2 template.
"""

from __future__ import annotations

from pathlib import Path

from blockfit.errors import InputError, ValueProblem
from blockfit.files import Batch, check_distinct
from blockfit.report import bench, build, calibrate, diagnose, fleet, inventory, lab, lab_bench, model, plan
from blockfit.report.figures import FigureSink, report_style
from blockfit.report.load import Loaded, load
from blockfit.report.page import Section, render_page
from blockfit.schema import BuildResult, Diagnosis, Inventory, LabResult, Measurement, Plan, Prediction
from blockfit.schema.bench import BenchResult
from blockfit.schema.fleet import FleetResult
from blockfit.schema.lab import LabBenchResult

__all__ = ["load", "render", "report", "sections"]


def sections(inputs: list[Loaded], sink: FigureSink) -> list[Section]:
    """One section per input, in the order given, their figures in the report's style."""
    with report_style():
        return [_section(item, sink, [x.result for x in inputs if isinstance(x.result, Prediction)])
                for item in inputs]


def _section(item: Loaded, sink: FigureSink, models: list[Prediction]) -> Section:
    r, name = item.result, item.path.name
    if isinstance(r, Prediction):
        return model.section(r, name, sink)
    if isinstance(r, Plan):
        return plan.section(r, name, sink)
    if isinstance(r, Measurement):
        return calibrate.section(r, name, sink, models)
    if isinstance(r, LabResult):
        return lab.section(r, name, sink)
    if isinstance(r, Diagnosis):
        return diagnose.section(r, name, sink, item.intervals)
    if isinstance(r, BuildResult):
        return build.section(r, name)
    if isinstance(r, BenchResult):
        return bench.section(r, name, sink)
    if isinstance(r, LabBenchResult):
        return lab_bench.section(r, name, sink)
    if isinstance(r, FleetResult):
        return fleet.section(r, name, sink)
    if isinstance(r, Inventory):
        return inventory.section(r, name)
    raise InputError(f"{name}: no report section for a {item.kind!r} result")


def render(inputs: list[Loaded], title: str | None = None, sink: FigureSink | None = None) -> str:
    """The page's HTML for results already loaded."""
    secs = sections(inputs, sink or FigureSink())
    if title is None:
        kinds = ", ".join(dict.fromkeys(s.kind for s in secs))
        title = secs[0].title if len(secs) == 1 else f"blockfit report: {kinds}"
    return render_page(title, secs, [x.path.name for x in inputs])


def check_png_dir(png_dir: Path) -> None:
    if not png_dir.is_dir():
        raise ValueProblem(f"{str(png_dir)!r}: expected an existing directory")


def report(paths: list[Path], out: Path, title: str | None = None, png_dir: Path | None = None) -> list[Path]:
    """Read every file first (any bad one fails before anything is written), render, write atomically.

    Returns the PNGs written (with png_dir)."""
    if not paths:
        raise InputError("RESULT.json: expected at least one blockfit result file")
    if png_dir is not None:
        check_png_dir(png_dir)
    inputs = [load(p) for p in paths]
    sink = FigureSink(png_dir)
    page = render(inputs, title, sink)
    # a PNG's name is known only now: it must not be an input or the page (a PNG over -o would lose the page)
    check_distinct([("-o", out), *(("--png", p) for p in sink.png_paths)], [("input", p) for p in paths])
    with Batch() as batch:  # the PNGs and the page are renamed into place together, or none of them
        for png, data in sink.pngs:
            batch.add(png, data, what="--png")
        batch.add(out, page, what="-o")
    return sink.png_paths
