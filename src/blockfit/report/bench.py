"""Section for `blockfit bench` (BenchResult): per measure the A/B bars with the comparison's confidence interval,
the verdict in words beside the model's ratio when the caps were known, each layout's warm-up and the drift
across its runs, and the device evidence under it.

A comparison's ratio is a speed ratio (other / baseline, > 1 = other faster); its CI is drawn on the other
layout's bar in the measure's own unit: baseline median x ratio bounds (divided, for time-like measures).
"""

from __future__ import annotations

from matplotlib.axes import Axes

from blockfit.report.figures import ACCENT, GREY, MAIN, FigureSink, ReportFigure, new_figure, number_axis
from blockfit.report.page import Section, Table
from blockfit.schema.bench import IO_BINDINGS, BenchResult, BenchRun, Comparison, MeasureResult
from blockfit.units import fmt_count, fmt_num, fmt_pct, fmt_times


def summary(r: BenchResult) -> str:
    labels = [lay.label for lay in r.layouts]
    text = (f"PostgreSQL {r.postgres_version} ran {', '.join(r.measures)} on {fmt_count(len(r.layouts), 'layout')} "
            f"({', '.join(labels)}) for {fmt_num(r.duration_s)} s.")
    for c in r.comparisons:
        text += f" {c.measure}: {c.text} ({fmt_count(c.runs_used, 'run')} each)."
        if c.model_ratio is not None:
            text += f" The model's ratio from the known {c.model_basis} caps: {fmt_times(c.model_ratio, 3)}."
    text += _warmup_words(r) + _binding_words(r)
    if r.partial:
        text += f" The bench stopped early ({r.stopped_by or 'interrupted'}): results are partial."
    return text


def _warmup_words(r: BenchResult) -> str:
    cold = [f"{lay.label} {m.measure}" for lay in r.layouts for m in lay.measures
            if m.warmup is not None and m.warmup.outcome != "steady"]
    return f" Warm-up not steady within its budget: {', '.join(cold)}." if cold else ""


def _binding_words(r: BenchResult) -> str:
    """How many layout-measure pairs storage held, and what held the rest."""
    bindings = {f"{lay.label} {m.measure}": m.binding for lay in r.layouts for m in lay.measures if m.binding}
    if not bindings:
        return ""
    io = [k for k, b in bindings.items() if b in IO_BINDINGS]
    rest = sorted({b for b in bindings.values() if b not in IO_BINDINGS})
    text = f" Storage held {len(io)} of the {len(bindings)} layout-measure pairs"
    return text + (f"; the rest were held by {', '.join(rest)}." if rest else ".")


def _measure(r: BenchResult, label: str, name: str) -> MeasureResult | None:
    lay = next(x for x in r.layouts if x.label == label)
    return next((m for m in lay.measures if m.measure == name), None)


def _cap_use(c: Comparison) -> str:
    """'94 % / 100 %': the fraction of their caps the other layout's members delivered, then the baseline's."""
    if c.other_cap_use is None or c.baseline_cap_use is None:
        return "-"
    return f"{fmt_pct(c.other_cap_use)} / {fmt_pct(c.baseline_cap_use)}"


def _ci(c: Comparison, m: MeasureResult) -> tuple[float, float] | None:
    """The comparison's CI in the measure's unit, on the other layout's bar."""
    if c.ci_low is None or c.ci_high is None or not c.baseline_median:
        return None
    if m.higher_is_better:
        return c.baseline_median * c.ci_low, c.baseline_median * c.ci_high
    return c.baseline_median / c.ci_high, c.baseline_median / c.ci_low


def section(r: BenchResult, source: str, sink: FigureSink) -> Section:
    s = Section("bench", f"Bench: {' vs '.join(lay.label for lay in r.layouts)}", source, summary(r))
    for name in r.measures:
        per_layout = [(lay.label, _measure(r, lay.label, name)) for lay in r.layouts]
        drawn = [(label, m) for label, m in per_layout if m is not None and m.median is not None]
        if drawn:
            s.figures.append(_bars(r, name, drawn, sink))
    s.tables += _verdict_tables(r) + _warmup_tables(r) + _evidence_tables(r)
    s.lists.append(("Layouts", [f"{lay.label}: {lay.dir} on {lay.source} ({lay.fstype}, {', '.join(lay.devices)})"
                                for lay in r.layouts]))
    if r.warnings:
        s.lists.append(("Warnings", list(r.warnings)))
    return s


def _verdict_tables(r: BenchResult) -> list[Table]:
    return [Table(
        "Verdicts (speed ratio other / baseline, > 1 = faster, with its confidence interval; the model's ratio from "
        "the known caps beside it, the ratio of the rates the members delivered, and how much of their caps that "
        "was: other / baseline)",
        ["measure", "baseline", "other", "ratio", "CI low", "CI high", "model", "members delivered",
         "members' cap use", "± reached", "target", "stopped", "verdict", "runs"],
        [[c.measure, c.baseline, c.other, fmt_num(c.ratio), fmt_num(c.ci_low), fmt_num(c.ci_high),
          fmt_num(c.model_ratio), fmt_num(c.device_ratio), _cap_use(c), _pct(c.half_width_pct),
          _pct(c.precision_pct), c.stopped or "-", c.text, str(c.runs_used)] for c in r.comparisons],
        numeric={3, 4, 5, 6, 7, 10, 13})]


def _warmup_tables(r: BenchResult) -> list[Table]:
    warm = _warmup_rows(r)
    if not warm:
        return []
    return [Table(
        "Warm-up by evidence and drift (each layout warmed until throughput and device I/Os per unit of work "
        "held steady, or its budget ran out; drift: the trend across its measured runs)",
        ["layout", "measure", "warm-up", "windows", "seconds", "work", "last rate /s", "last I/Os per unit",
         "first to last run", "trend", "drifts"], warm, numeric={3, 4, 5, 6, 7, 8, 9})]


def _evidence_tables(r: BenchResult) -> list[Table]:
    rows: list[list[str]] = []
    for lay in r.layouts:
        for m in lay.measures:
            run = _median_run(m)
            if run is None or run.evidence is None:
                continue
            ev = run.evidence
            for dev in ev.devices:
                rows.append([lay.label, m.measure, ev.binding_detail, dev.device, dev.role, fmt_num(dev.read_iops),
                             fmt_num(dev.write_iops), fmt_num(dev.mbps), fmt_num(dev.r_await_ms),
                             fmt_num(dev.w_await_ms), fmt_num(dev.aqu_sz), fmt_num(dev.util_pct),
                             fmt_pct(dev.cap_use)])
    if not rows:
        return []
    return [Table(
        "Device evidence under each verdict (the median run's 1 s medians per device in the stack)",
        ["layout", "measure", "what held it", "device", "role", "read IOPS", "write IOPS", "MB/s", "r_await ms",
         "w_await ms", "queue depth", "util %", "of cap"], rows, numeric=set(range(5, 13)))]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"±{fmt_num(value)} %"


def _warmup_rows(r: BenchResult) -> list[list[str]]:
    rows = []
    for lay in r.layouts:
        for m in lay.measures:
            w, d = m.warmup, m.drift
            last = w.windows[-1] if w is not None and w.windows else None
            rows.append([lay.label, m.measure, w.outcome if w else "-", str(len(w.windows)) if w else "-",
                         fmt_num(w.seconds) if w else "-", f"{fmt_num(w.work)} {w.unit}s" if w else "-",
                         fmt_num(last.throughput) if last else "-", fmt_num(last.ios_per_unit) if last else "-",
                         f"{d.first_last_pct:+.1f} %" if d else "-", f"{d.change_pct:+.1f} %" if d else "-",
                         ("yes" if d.drifts else "no") if d else "-"])
    return rows


def _median_run(m: MeasureResult) -> BenchRun | None:
    runs = sorted((x for x in m.runs if x.failed is None), key=lambda x: x.score)
    return runs[len(runs) // 2] if runs else None


def _draw_cis(ax: Axes, r: BenchResult, name: str, xs: list[int],
              drawn: list[tuple[str, MeasureResult]]) -> list[tuple[str, str]]:
    """Each comparison's CI on the other layout's bar; the verdicts (short, in words) in the bars' order."""
    verdicts: list[tuple[str, str]] = []
    for x, (label, m) in zip(xs, drawn, strict=True):
        c = next((c for c in r.comparisons if c.measure == name and c.other == label), None)
        if c is None:
            continue
        ci = _ci(c, m)
        if ci is not None:
            mid = m.median or 0.0
            ax.errorbar([x], [mid], yerr=[[max(mid - ci[0], 0)], [max(ci[1] - mid, 0)]], color=ACCENT, capsize=6,
                        linewidth=2)
        verdicts.append((c.verdict, c.text))
    return verdicts


def _bars(r: BenchResult, name: str, drawn: list[tuple[str, MeasureResult]], sink: FigureSink) -> ReportFigure:
    fig = new_figure(7.5, 2.6, left=0.9)
    ax = fig.subplots()
    xs = list(range(len(drawn)))
    medians = [m.median or 0.0 for _, m in drawn]
    ax.bar(xs, medians, 0.55, color=[GREY] + [MAIN] * (len(drawn) - 1))
    for x, (_, m) in zip(xs, drawn, strict=True):  # every measured run as a dot
        scores = [run.score for run in m.runs if run.failed is None]
        ax.plot([x] * len(scores), scores, "o", color="black", markersize=3, alpha=0.6)
    verdicts = _draw_cis(ax, r, name, xs, drawn)
    unit = drawn[0][1].unit
    ax.set_xticks(xs, [label for label, _ in drawn])
    ax.set_ylabel(f"{unit} ({'higher' if drawn[0][1].higher_is_better else 'lower'} is better)")
    ax.set_title(f"{name}: " + ("; ".join(v for v, _ in verdicts) or "no comparison"), loc="left", fontsize=9)
    number_axis(ax, "y")
    ax.grid(axis="x", visible=False)
    caption = (f"{name}: median per layout (bars; dots are the measured runs), the baseline grey; red: the "
               "comparison's confidence interval. " + " ".join(t for _, t in verdicts))
    return sink.add(fig, f"bench-{name}", caption)
