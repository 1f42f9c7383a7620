"""Section for `blockfit calibrate` (Measurement): latency percentiles against IOPS with the bound, member shares."""

from __future__ import annotations

import io

from matplotlib.figure import Figure

from blockfit.report.figures import (
    FigureSink,
    ReportFigure,
    label_width,
    legend_above,
    new_figure,
    number_axis,
    report_style,
)
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN, SECOND
from blockfit.schema import Measurement, Prediction
from blockfit.units import fmt_io_size, fmt_ms, fmt_num, fmt_pct, fmt_qty


def summary(m: Measurement) -> str:
    what = m.targets[0] if len(m.targets) == 1 else f"a simulated stripe of {len(m.targets)} devices"
    pct = f"p{m.percentile:g}"
    io = f"{fmt_io_size(m.small_io)} random {'mixed I/O' if m.write_pct else 'reads'}"
    if m.bound_met:
        text = (f"{what[0].upper() + what[1:]} sustains {fmt_qty(m.max_iops, 'IOPS')} of {io} "
                f"with {pct} latency within {fmt_ms(m.max_latency_ms)} (measured {fmt_ms(m.latency_ms)}, average "
                f"{fmt_ms(m.avg_latency_ms)}, at {m.outstanding_at_max_iops} outstanding I/Os)")
    else:
        text = (f"Even one outstanding I/O on {what} exceeds the {pct} bound of {fmt_ms(m.max_latency_ms)} "
                f"({fmt_ms(m.latency_ms)} measured)")
    text += f", and {fmt_qty(m.max_mbps, 'MB/s')} with {fmt_io_size(m.large_io)} I/Os."
    if m.max_iops and m.saturation_iops > m.max_iops * 1.005:
        text += (f" Pushed harder it peaks at {fmt_qty(m.saturation_iops, 'IOPS')} "
                 f"({fmt_pct(m.saturation_iops / m.max_iops - 1, signed=True)}), with latency over the bound.")
    shares = m.member_share_at_max_iops
    if len(shares) > 1:
        busiest = max(shares, key=lambda k: shares[k])
        text += (f" The busiest member, {busiest}, carried {fmt_pct(shares[busiest], sig=3)} of the I/Os against "
                 f"a fair share of {fmt_pct(1 / len(shares), sig=3)}.")
    if m.partial:
        text += f" The run stopped early ({m.stopped_by or 'interrupted'}): the curve is incomplete."
    return text


def section(m: Measurement, source: str, sink: FigureSink, models: list[Prediction]) -> Section:
    s = Section("calibrate", f"Calibrate: {', '.join(m.targets)}", source, summary(m))
    small = sorted((p for p in m.curve if p.phase == "small"), key=lambda p: p.outstanding)
    large = sorted((p for p in m.curve if p.phase == "large"), key=lambda p: p.outstanding)
    if small:
        s.figures.append(_latency_figure(m, sink, models))
    if large:
        s.figures.append(_throughput_figure(m, sink))
    if len(m.member_share_at_max_iops) > 1:
        s.figures.append(_share_figure(m, sink))
    s.tables.append(Table(
        "Every measured point (outstanding = total I/Os in flight)",
        ["phase", "outstanding", "I/O size", "IOPS", "MB/s", "p50 ms", "p95 ms", "p99 ms", "avg ms", "within bound",
         "steady"],
        [[p.phase, str(p.outstanding), fmt_io_size(p.io_size), fmt_num(p.iops), fmt_num(p.mbps), fmt_num(p.p50_ms),
          fmt_num(p.p95_ms), fmt_num(p.p99_ms), fmt_num(p.avg_ms),
          "" if p.within_bound is None else ("yes" if p.within_bound else "no"), "yes" if p.steady else "no"]
         for p in small + large],
        numeric={1, 3, 4, 5, 6, 7, 8}))
    s.notes.append(f"{m.fio_version}, engine {m.engine}, direct={int(m.direct)}, kernel {m.kernel}; "
                   f"{fmt_num(m.elapsed_s)} s of a {fmt_num(m.duration_budget_s)} s budget.")
    if m.warnings:
        s.lists.append(("Warnings", list(m.warnings)))
    return s


def _latency_figure(m: Measurement, sink: FigureSink, models: list[Prediction]) -> ReportFigure:
    fig, caption = latency_figure(m, models)
    return sink.add(fig, "calibrate-latency", caption)


def latency_png(m: Measurement) -> bytes:
    """`calibrate --plot`: the report's latency figure on its own, as PNG bytes (one figure, drawn in one place;
    the caller writes them atomically, files.write_atomically)."""
    buf = io.BytesIO()
    with report_style():
        fig, _caption = latency_figure(m, [])
        fig.savefig(buf, format="png", dpi=150, metadata={"Software": None})
    return buf.getvalue()


def latency_figure(m: Measurement, models: list[Prediction]) -> tuple[Figure, str]:
    """Measured latency percentiles against IOPS with the bound (and the model's curve where one fits); the
    figure and its caption."""
    small = sorted((p for p in m.curve if p.phase == "small"), key=lambda p: p.outstanding)
    comparable = comparable_models(m, models)
    fig = new_figure(7.5, 3.8)
    ax = fig.subplots()
    iops = [p.iops for p in small]
    ax.plot(iops, [p.p50_ms for p in small], ".-", color=GREY, label="p50")
    ax.plot(iops, [p.p95_ms for p in small], "o-", color=MAIN, markersize=4, label="p95")
    ax.plot(iops, [p.p99_ms for p in small], "s:", color=SECOND, markersize=3, label="p99")
    if m.percentile not in (50, 95, 99):
        ax.plot(iops, [p.percentile_ms for p in small], "^-", label=f"p{m.percentile:g}")
    ax.axhline(m.max_latency_ms, color=ACCENT, linewidth=1,
               label=f"bound: p{m.percentile:g} ≤ {fmt_ms(m.max_latency_ms)}")
    if m.bound_met:
        ax.plot([m.max_iops], [m.latency_ms], "*", color=ACCENT, markersize=13,
                label=f"max IOPS within the bound: {fmt_num(m.max_iops)}")
    for model in comparable:
        pts = sorted(model.curve, key=lambda c: c.outstanding)
        ax.plot([c.iops for c in pts], [c.latency_ms for c in pts], "--", color="black", linewidth=1,
                label=f"model: {model.layout} (mean latency)")
    for p in small:
        ax.annotate(str(p.outstanding), (p.iops, p.p95_ms), xytext=(3, 3), textcoords="offset points", fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel(f"IOPS at {fmt_io_size(m.small_io)}")
    ax.set_ylabel("latency, ms (log scale)")
    number_axis(ax, "both")
    legend_above(fig, ax)
    caption = "Measured latency percentiles against IOPS (numbers at the points: outstanding I/Os), with the bound."
    if comparable:
        caption += " Dashed black: the model's predicted mean latency for the layout modelled in this report."
    else:
        caption += (" Add the 'blockfit model' result of this layout to the report to draw the model's curve over "
                    "it.")
    return fig, caption


def comparable_models(m: Measurement, models: list[Prediction]) -> list[Prediction]:
    """Models in the same report that can describe this target: same small I/O size and a peak within 3x of the
    measured one (a 9-volume cloud layout is not drawn over a loop device's curve)."""
    return [p for p in models if p.workload.small_io == m.small_io and p.curve
            and 1 / 3 <= p.max_iops / max(m.saturation_iops, 1e-9) <= 3]


def _throughput_figure(m: Measurement, sink: FigureSink) -> ReportFigure:
    large = sorted((p for p in m.curve if p.phase == "large"), key=lambda p: p.outstanding)
    fig = new_figure(7.5, 2.8)
    ax = fig.subplots()
    ax.plot([p.outstanding for p in large], [p.mbps for p in large], "o-", color=MAIN, label="MB/s")
    ax.axhline(m.max_mbps, color=ACCENT, linewidth=1, linestyle="--", label=f"max {fmt_qty(m.max_mbps, 'MB/s')}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"outstanding {fmt_io_size(m.large_io)} I/Os")
    ax.set_ylabel("MB/s")
    number_axis(ax, "both")
    legend_above(fig, ax)
    return sink.add(fig, "calibrate-mbps", "Large-I/O throughput against outstanding I/Os.")


def _share_figure(m: Measurement, sink: FigureSink) -> ReportFigure:
    shares = m.member_share_at_max_iops
    names = list(shares)
    fig = new_figure(7.5, 0.8 + 0.3 * len(names), left=label_width(names))
    ax = fig.subplots()
    ax.barh(range(len(names)), [shares[n] * 100 for n in names], color=MAIN)
    ax.set_yticks(range(len(names)), names)
    ax.axvline(100 / len(names), color=ACCENT, linestyle="--", linewidth=1)
    ax.invert_yaxis()
    ax.set_xlabel("share of completed I/Os at max IOPS, % (dashed: the fair share)")
    ax.grid(axis="y", visible=False)
    return sink.add(fig, "calibrate-shares", "Each member's share of the I/Os in the simulated stripe; a balanced "
                                             "stripe sits on the dashed line.")
