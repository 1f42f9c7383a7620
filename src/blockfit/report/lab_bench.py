"""Section for `blockfit lab --bench` (LabBenchResult): per measure the database's speed ratio with its confidence
interval beside the model's predicted ratio, the stripe's member balance, then the inner bench's own figures and
tables (report/bench.py: A/B bars, verdicts, device evidence).

Ratios are speed ratios other / baseline (> 1 = the other layout faster), drawn on a log axis so that 2× and ½×
sit equally far from "no difference".
"""

from __future__ import annotations

import math

from matplotlib.axes import Axes
from matplotlib.ticker import NullLocator

from blockfit.report import bench as bench_report
from blockfit.report.figures import FigureSink, ReportFigure, label_bars, label_width, legend_above, new_figure
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN, SECOND
from blockfit.schema.bench import Comparison
from blockfit.schema.lab import LabBenchLayout, LabBenchRatio, LabBenchResult
from blockfit.units import fmt_compute, fmt_count, fmt_io_size, fmt_num, fmt_pct, fmt_times

DECIDED = ("faster", "slower")


def _what(lay: LabBenchLayout) -> str:
    unit = f" of {fmt_io_size(lay.stripe_size)} units" if lay.stripe_size else ""
    how = "one volume" if lay.members == 1 else f"{lay.members}-way {lay.manager} stripe{unit}"
    return f"{lay.label} ({lay.layout}, {how}, {lay.fs})"


def _basis(x: LabBenchRatio) -> str:
    return "IOPS" if x.basis == "iops" else "MB/s"


def _comparison(r: LabBenchResult, x: LabBenchRatio) -> Comparison | None:
    return next((c for c in r.bench.comparisons if c.measure == x.measure), None)


def _inconclusive(r: LabBenchResult, x: LabBenchRatio) -> bool:
    """The inner bench's comparison of this measure is inconclusive (report/bench.py's rule)."""
    c = _comparison(r, x)
    return c is not None and bench_report.inconclusive(r.bench, c)


def _ratio_sentence(r: LabBenchResult, x: LabBenchRatio) -> str:
    b, o = r.baseline.label, r.other.label
    model = f"the model predicts {fmt_times(x.predicted_ratio)} from its {_basis(x)}"
    if x.measured_ratio is None:
        return f"{x.measure}: no measured ratio ({x.verdict}); {model}."
    c = _comparison(r, x)
    level = f"{fmt_pct(c.confidence)} CI" if c is not None else "CI"
    ci = (f" [{level} {fmt_times(x.ci_low)} to {fmt_times(x.ci_high)}]"
          if x.ci_low is not None and x.ci_high is not None else " (no interval)")
    if _inconclusive(r, x):
        text = (f"{x.measure}: inconclusive, no winner called ({x.verdict}); measured {o}/{b} "
                f"{fmt_times(x.measured_ratio)}{ci}, an interval too wide to show a difference or its absence, where "
                f"{model}")
    elif x.verdict in DECIDED:
        winner, loser = (o, b) if x.measured_ratio > 1 else (b, o)
        by = x.measured_ratio if x.measured_ratio > 1 else 1 / x.measured_ratio
        head = f"{x.measure}: {winner} won, {fmt_times(by)} the speed of {loser}"
        text = f"{head} (measured {o}/{b} {fmt_times(x.measured_ratio)}{ci}), where {model}"
    else:
        text = (f"{x.measure}: no winner called ({x.verdict}); measured {o}/{b} {fmt_times(x.measured_ratio)}{ci}, "
                f"where {model}")
    if x.device_ratio is not None:
        text += f"; its members delivered {fmt_times(x.device_ratio)} the {_basis(x)} of {b}'s"
        if x.baseline_cap_use is not None and x.other_cap_use is not None:
            text += f" ({fmt_pct(x.other_cap_use)} of their caps, {b}'s {fmt_pct(x.baseline_cap_use)})"
    return f"{text}; {x.io_bound_runs} runs I/O-bound."


def summary(r: LabBenchResult) -> str:
    b, o = r.baseline, r.other
    count = fmt_compute(r.vcpus, r.ocpus)
    where = f"{r.cloud}, {count}" if count else r.cloud
    text = (f"In a qemu guest on {r.instance} ({where}), with every IOPS cap scaled by {fmt_num(r.scale)} and "
            f"every MB/s cap by {fmt_num(r.mbps_scale)}, PostgreSQL {_pg_version(r)} ran {', '.join(r.bench.measures)} "
            f"on {_what(o)} against {_what(b)}.")
    for x in r.ratios:
        text += " " + _ratio_sentence(r, x)
    balance = [f"{lay.label} {m} {fmt_num(v, 2)}" for lay in (b, o) for m, v in lay.member_balance.items()]
    if balance:
        text += (" Member balance (least / most busy member by I/Os completed, 1 = even): "
                 + ", ".join(balance) + ".")
    failed = [st.name for st in r.steps if not st.ok]
    if failed:
        text += f" {fmt_count(len(failed), 'step')} failed in the guest: {', '.join(failed)}."
    if r.bench.partial:
        text += f" The bench stopped early ({r.bench.stopped_by or 'interrupted'}): results are partial."
    return text


def _pg_version(r: LabBenchResult) -> str:
    """'postgres (PostgreSQL) 15.18 (Debian …)' → '15.18'."""
    words = r.bench.postgres_version.replace("(PostgreSQL)", "").split()
    return next((w for w in words if w[:1].isdigit()), r.bench.postgres_version)


def section(r: LabBenchResult, source: str, sink: FigureSink) -> Section:
    s = Section("lab-bench", f"Lab bench: {r.other.label} vs {r.baseline.label} on {r.instance}", source, summary(r))
    if r.ratios:
        s.figures.append(_ratios_figure(r, sink))
    if any(lay.member_balance for lay in (r.baseline, r.other)):
        s.figures.append(_balance_figure(r, sink))
    s.tables.append(Table(
        f"The model's ratio beside the database's ({r.other.label} / {r.baseline.label} speed, > 1 = "
        f"{r.other.label} faster)",
        ["measure", "model's basis", "predicted", "measured", "CI low", "CI high", "members delivered", "verdict",
         "I/O-bound runs"],
        [[x.measure, _basis(x), fmt_times(x.predicted_ratio), fmt_times(x.measured_ratio), fmt_times(x.ci_low),
          fmt_times(x.ci_high), fmt_times(x.device_ratio), "inconclusive" if _inconclusive(r, x) else x.verdict,
          x.io_bound_runs] for x in r.ratios],
        numeric={2, 3, 4, 5, 6, 8}))
    s.lists.append(("The lab's verdicts in words", [f"{x.measure}: {x.text}" for x in r.ratios]))
    s.tables.append(Table(
        f"Layouts as built in the guest (caps scaled: IOPS by {fmt_num(r.scale)}, MB/s by {fmt_num(r.mbps_scale)})",
        ["label", "layout", "members", "manager", "fs", "mount", "stripe unit", "member IOPS cap", "member MB/s cap",
         "IOPS predicted", "MB/s predicted"],
        [[lay.label, lay.layout, str(lay.members), lay.manager, lay.fs, lay.mount,
          fmt_io_size(lay.stripe_size) if lay.stripe_size else "-", fmt_num(lay.caps.member_iops),
          fmt_num(lay.caps.member_bps / 1e6 if lay.caps.member_bps else None), fmt_num(lay.predicted_iops),
          fmt_num(lay.predicted_mbps)] for lay in (r.baseline, r.other)],
        numeric={2, 7, 8, 9, 10}))
    inner = bench_report.section(r.bench, source, sink)  # the bench's own bars, verdicts and device evidence
    s.figures.extend(inner.figures)
    s.tables.extend(inner.tables)
    s.lists.extend(inner.lists)
    s.notes.extend(inner.notes)
    if r.steps:
        s.lists.append(("Steps run in the guest",
                        [f"{'ok' if st.ok else 'FAILED'}: {st.name}{' — ' + st.detail if st.detail else ''}"
                         for st in r.steps]))
    s.notes.append(f"Caps during the run: {', '.join(r.cap_changes) or 'never changed'}; guest kernel {r.kernel}; "
                   f"{fmt_num(r.guest_seconds)} s in the guest.")
    return s


def _ratio_ticks(ax: Axes, values: list[float]) -> None:
    """A log axis labelled 0.5×, 1×, 2×, … (1-2-5 steps, fewer when the range spans many decades)."""
    lo, hi = min(values) / 1.25, max(values) * 1.25
    ax.set_ylim(lo, hi)
    steps = (1, 2, 5) if math.log10(hi / lo) <= 2.5 else (1,)
    ticks = [m * 10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for m in steps]
    ticks = [t for t in ticks if lo <= t <= hi]
    ax.set_yticks(ticks, [fmt_times(t) for t in ticks])
    ax.yaxis.set_minor_locator(NullLocator())


def _draw_measured(ax: Axes, r: LabBenchResult) -> list[float]:
    """Each measured ratio as a dot (blue: a verdict, orange: none called) with its CI, unless inconclusive; the
    values drawn."""
    values: list[float] = []
    for i, x in enumerate(r.ratios):
        if x.measured_ratio is None:
            continue
        colour = MAIN if x.verdict in DECIDED else SECOND
        if x.ci_low is not None and x.ci_high is not None and not _inconclusive(r, x):
            ax.errorbar([i], [x.measured_ratio], yerr=[[x.measured_ratio - x.ci_low], [x.ci_high - x.measured_ratio]],
                        color=ACCENT, capsize=6, linewidth=2)
            values += [x.ci_low, x.ci_high]
        ax.plot([i], [x.measured_ratio], "o", color=colour, markersize=8, zorder=3)
        values.append(x.measured_ratio)
    return values


def _measured_keys(ax: Axes, ratios: list[LabBenchRatio]) -> None:
    """The legend's keys for the measured dots, only the colours drawn."""
    measured = [x for x in ratios if x.measured_ratio is not None]
    if any(x.verdict in DECIDED for x in measured):
        ax.plot([], [], "o", color=MAIN, label="measured (a verdict)")
    if any(x.verdict not in DECIDED for x in measured):
        ax.plot([], [], "o", color=SECOND, label="measured (no verdict called)")


def _ratios_figure(r: LabBenchResult, sink: FigureSink) -> ReportFigure:
    fig = new_figure(7.5, 3.0, left=0.8)
    ax = fig.subplots()
    ax.set_yscale("log")
    xs = list(range(len(r.ratios)))
    values = [1.0]
    ax.axhline(1.0, color=GREY, linewidth=1, linestyle="--")
    predicted = [x.predicted_ratio if x.predicted_ratio > 0 else 1.0 for x in r.ratios]
    ax.bar(xs, [p - 1.0 for p in predicted], 0.5, bottom=1.0, color=GREY, alpha=0.35)  # from "no difference"
    ax.hlines(predicted, [x - 0.25 for x in xs], [x + 0.25 for x in xs], color=GREY, linewidth=3,
              label="predicted by the model")
    values += [x.predicted_ratio for x in r.ratios if x.predicted_ratio > 0]
    values += _draw_measured(ax, r)
    for i, p in enumerate(predicted):
        ax.annotate(fmt_times(p), (i + 0.25, p), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=8, color="dimgray")
    _measured_keys(ax, r.ratios)
    _ratio_ticks(ax, [v for v in values if v > 0])
    ax.set_xticks(xs, [f"{x.measure}\n(model: {_basis(x)})" for x in r.ratios])
    ax.set_xlim(-0.6, len(xs) - 0.4)
    ax.set_ylabel(f"speed {r.other.label} / {r.baseline.label}")
    ax.grid(axis="x", visible=False)
    legend_above(fig, ax)
    caption = (f"Per measure: the speed of {r.other.label} over {r.baseline.label} (above the dashed line: "
               f"{r.other.label} faster), measured by the database (dot; red: its confidence interval, not drawn when "
               "inconclusive) against the model's predicted ratio (grey line, its bar drawn from 1×) from the rate the "
               "measure leans on (IOPS or MB/s). Log scale.")
    return sink.add(fig, "lab-bench-ratios", caption)


def _balance_figure(r: LabBenchResult, sink: FigureSink) -> ReportFigure:
    rows = [(f"{lay.label} {m}", v) for lay in (r.baseline, r.other) for m, v in lay.member_balance.items()]
    labels = [label for label, _ in rows]
    fig = new_figure(7.5, 0.7 + 0.32 * len(rows), left=max(1.8, label_width(labels)), bottom=0.45)
    ax = fig.subplots()
    ys = list(range(len(rows)))
    bars = ax.barh(ys, [v for _, v in rows], 0.55, color=[MAIN if v >= 0.8 else SECOND for _, v in rows])
    label_bars(ax, bars, [fmt_num(v, 2) for _, v in rows])
    ax.axvline(1.0, color=GREY, linewidth=1, linestyle="--")
    ax.set_yticks(ys, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("least / most busy member (I/Os completed over the measure's runs)")
    ax.grid(axis="y", visible=False)
    return sink.add(fig, "lab-bench-balance", "Member balance per layout and measure: 1 means every member completed "
                                              "the same number of I/Os; orange below 0.8.")
