"""The plan section's history part (`plan --from`): IOPS and MB/s over time, reads and writes, the chosen
percentile and the target with headroom, the peak window marked; then where the figures came from.

Kept apart from report/plan.py so the plan section only calls `extend(section, history, sink)`.
"""

from __future__ import annotations

from typing import NamedTuple

from matplotlib.axes import Axes

from blockfit.history.describe import interval_words, percentile_words, source_line, summary_line, window_words
from blockfit.report.figures import FigureSink, ReportFigure, legend_above, new_figure, number_axis
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN, SECOND
from blockfit.schema.history import DerivedTargets, HistoryPoint, PeakWindow
from blockfit.units import fmt_num


def extend(s: Section, h: DerivedTargets, sink: FigureSink) -> None:
    """Add the history figure, the sources table and the notes to the plan's section."""
    s.summary += " " + summary_line(h) + "."
    if h.series:
        s.figures.append(figure(h, sink))
    s.tables.append(Table(
        "Where the targets came from",
        ["history", "format", "members", "intervals", "every", "from", "to"],
        [[src.path, src.format, ", ".join(src.members[:6]) + (" …" if len(src.members) > 6 else ""),
          fmt_num(src.samples), interval_words(src.interval_s), src.start or "", src.end or ""]
         for src in h.sources],
        numeric={3}, wrap={0}))
    facts = [f"{percentile_words(h).capitalize()} of {h.samples} intervals of {interval_words(h.interval_s)}, "
             f"x peak factor {h.peak_factor:g} ({h.peak_factor_source}), + {h.headroom_pct:g} % headroom: "
             f"{fmt_num(h.target_iops)} IOPS and {fmt_num(h.target_mbps)} MB/s",
             f"peak window (IOPS): {window_words(h.peak_iops_window)}",
             f"peak window (MB/s): {window_words(h.peak_mbps_window)}"]
    s.lists.append(("How the history became targets", facts + [source_line(x) for x in h.sources]))
    if h.warnings:
        s.lists.append(("What this history cannot show", list(h.warnings)))
    if h.notes or h.skipped:
        s.lists.append(("Readings and reconciliations", list(h.notes) + [f"skipped {x}" for x in h.skipped]))


def _scale(span_s: float) -> tuple[float, str]:
    if span_s >= 3 * 86400:
        return 86400.0, "days"
    if span_s >= 3 * 3600:
        return 3600.0, "hours"
    if span_s >= 180:
        return 60.0, "minutes"
    return 1.0, "seconds"


def _window_span(points: list[HistoryPoint], w: PeakWindow | None) -> tuple[float, float] | None:
    if w is None:
        return None
    for p in points:
        if p.label == w.label:
            return p.t, p.t + p.duration_s
    return None


class _Panel(NamedTuple):
    """One measure's series and levels, as the history gives them."""

    what: str
    reads: list[float]
    writes: list[float]
    peaks: list[float | None]
    level: float
    target: float
    window: PeakWindow | None


def _panel(ax: Axes, h: DerivedTargets, edges: list[float], scale: tuple[float, str], p: _Panel,
           labels: tuple[str, str]) -> None:
    """Reads and writes stacked per interval, the busiest minutes, the percentile and the target (LABELS: their
    legend entries, which give both panels' values) and the peak window."""
    unit, unit_name = scale
    total = [r + w for r, w in zip(p.reads, p.writes, strict=True)]
    ax.stairs(total, edges, baseline=p.reads, fill=True, color=SECOND, alpha=0.55, label="writes")
    ax.stairs(p.reads, edges, fill=True, color=MAIN, alpha=0.55, label="reads")
    if all(x is not None for x in p.peaks):
        mids = [(a + b) / 2 for a, b in zip(edges, edges[1:], strict=False)]
        ax.plot(mids, [x or 0.0 for x in p.peaks], ".", color="#333333", markersize=2.5,
                label="busiest minute in the interval")
    ax.axhline(p.level, color=GREY, linestyle=(0, (6, 3)), linewidth=1.2, label=labels[0])
    ax.axhline(p.target, color=ACCENT, linewidth=1.2, label=labels[1])
    span_w = _window_span(h.series, p.window)
    if span_w is not None:
        ax.axvspan(span_w[0] / unit, span_w[1] / unit, color=ACCENT, alpha=0.12, label="peak window")
    ax.set_ylabel(p.what)
    ax.set_xlabel(f"{unit_name} since {h.sources[0].start or 'the start'}")
    ax.set_ylim(bottom=0, top=max(max(total), p.target, *(x or 0 for x in p.peaks)) * 1.15 or 1)
    number_axis(ax, "y")


def figure(h: DerivedTargets, sink: FigureSink) -> ReportFigure:
    pts = h.series
    span = max(p.t + p.duration_s for p in pts) or 1.0
    scale = _scale(span)
    edges = [p.t / scale[0] for p in pts] + [(pts[-1].t + pts[-1].duration_s) / scale[0]]
    fig = new_figure(7.5, 5.0, hspace=0.45)
    axes = fig.subplots(2, 1)
    panels = (_Panel("IOPS", [p.read_iops for p in pts], [p.write_iops for p in pts], [p.peak_iops for p in pts],
                     h.iops, h.target_iops, h.peak_iops_window),
              _Panel("MB/s", [p.read_mbps for p in pts], [p.write_mbps for p in pts], [p.peak_mbps for p in pts],
                     h.mbps, h.target_mbps, h.peak_mbps_window))
    label = percentile_words(h) + (f" x {h.peak_factor:g}" if h.peak_factor != 1 else "")
    labels = (f"{label}: {fmt_num(h.iops)} IOPS, {fmt_num(h.mbps)} MB/s",
              f"target (+{h.headroom_pct:g} %): {fmt_num(h.target_iops)} IOPS, {fmt_num(h.target_mbps)} MB/s")
    for ax, panel in zip(axes, panels, strict=True):
        _panel(ax, h, edges, scale, panel, labels)
    legend_above(fig, *axes)
    return sink.add(fig, "plan-history", f"The history the targets come from: reads (blue) and writes (orange) per "
                                         f"interval of {interval_words(h.interval_s)}, {label} dashed, the target "
                                         "with headroom red, the peak window shaded.")
