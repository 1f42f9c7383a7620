"""Section for `blockfit bench` (BenchResult): per measure the A/B bars with the comparison's confidence interval,
the verdict in words beside the model's ratio when the caps were known, each layout's warm-up and the drift
across its runs, and the device evidence under it.

A comparison's ratio is a speed ratio (other / baseline, > 1 = other faster); its CI is drawn on the other
layout's bar in the measure's own unit: baseline median x ratio bounds (divided, for time-like measures).

An interval that holds "no difference" and is wider than the precision a verdict needs is inconclusive: it shows
neither a difference nor its absence (two runs each gave "+23 % [-98 %, +6838 %]"). The report says so instead
of showing the interval as a result, and does not draw it.
"""

from __future__ import annotations

from matplotlib.axes import Axes

from blockfit.report.figures import FigureSink, ReportFigure, new_figure, number_axis
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN
from blockfit.schema.bench import IO_BINDINGS, BenchResult, BenchRun, Comparison, MeasureResult
from blockfit.units import fmt_count, fmt_num, fmt_pct, fmt_times

# The precision a verdict needs when the result names none (a bench from before --precision): the bench's own
# default target, an interval within ±10 % of the ratio.
DEFAULT_PRECISION_PCT = 10.0
EMPTY = ("-", "–")   # a cell without a figure


def summary(r: BenchResult) -> str:
    labels = [lay.label for lay in r.layouts]
    text = (f"PostgreSQL {r.postgres_version} ran {', '.join(r.measures)} on {fmt_count(len(r.layouts), 'layout')} "
            f"({', '.join(labels)}) for {fmt_num(r.duration_s)} s.")
    for c in r.comparisons:
        text += f" {c.measure}: {_inconclusive_words(r, c) or c.text} ({fmt_count(c.runs_used, 'run')} each)."
        if c.model_ratio is not None:
            text += f" The model's ratio from the known {c.model_basis} caps: {fmt_times(c.model_ratio, 3)}."
    text += _warmup_words(r) + _binding_words(r)
    if r.partial:
        text += f" The bench stopped early ({r.stopped_by or 'interrupted'}): results are partial."
    return text


def half_width_pct(c: Comparison) -> float | None:
    """The interval's wider side in percent of the ratio (as the bench reports it; computed for older results)."""
    if c.half_width_pct is not None:
        return c.half_width_pct
    if c.ratio is None or c.ci_low is None or c.ci_high is None or c.ratio <= 0 or c.ci_low <= 0:
        return None
    return max(c.ci_high / c.ratio - 1, c.ratio / c.ci_low - 1) * 100


def needed_pct(r: BenchResult, c: Comparison) -> float:
    return c.precision_pct or r.settings.precision_pct or DEFAULT_PRECISION_PCT


def inconclusive(r: BenchResult, c: Comparison) -> bool:
    """The interval holds 1 (no winner) and is wider than a verdict's precision: no evidence either way."""
    width = half_width_pct(c)
    if width is None or c.ci_low is None or c.ci_high is None:
        return False
    return c.ci_low <= 1.0 <= c.ci_high and width > needed_pct(r, c)


def _inconclusive_words(r: BenchResult, c: Comparison) -> str:
    """An inconclusive comparison in words, the bench's verdict beside it ("" for a conclusive one)."""
    if not inconclusive(r, c):
        return ""
    return (f"inconclusive: its interval, ±{fmt_num(half_width_pct(c))} %, is wider than the "
            f"±{fmt_num(needed_pct(r, c))} % a verdict needs and shows neither a difference nor its absence (the "
            f"bench's verdict: {c.verdict}; more runs: --repeat, --precision)")


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
    if not _warmup_rows(r):
        s.notes.append("No warm-up table: this result records no warm-up by evidence and no drift (a bench from "
                       "before it measured them).")
    if r.comparisons:
        s.lists.append(("Verdicts in words", _verdict_words(r)))
    held = _held_by(r)
    if held:
        s.lists.append(("What held each median run", held))
    s.lists.append(("Layouts", [f"{lay.label}: {lay.dir} on {lay.source} ({lay.fstype}, {', '.join(lay.devices)})"
                                for lay in r.layouts]))
    if r.warnings:
        s.lists.append(("Warnings", list(r.warnings)))
    return s


def _verdict_tables(r: BenchResult) -> list[Table]:
    """The figures of each verdict, one short cell each (the verdict in words is a list under the tables: as a
    column of a 14-column table it wrapped a word to a line at 1,280 px). A column no comparison has a figure for
    (the model's ratio with the caps unknown, a target with none set) is left out."""
    headers = ["measure", "baseline", "other", "ratio", "CI", "model", "members delivered", "members' cap use",
               "± reached (target)", "stopped", "runs", "verdict"]
    rows = [[c.measure, c.baseline, c.other, fmt_num(c.ratio), _ci_cell(c), fmt_num(c.model_ratio),
             fmt_num(c.device_ratio), _cap_use(c), _precision_cell(c), c.stopped or "-", str(c.runs_used),
             "inconclusive" if inconclusive(r, c) else c.verdict] for c in r.comparisons]
    return [_filled(Table(
        "Verdicts (speed ratio other / baseline, > 1 = faster, with its confidence interval; the model's ratio from "
        "the known caps beside it, the ratio of the rates the members delivered, and how much of their caps that "
        "was: other / baseline; ± reached: the interval's half width, its target in brackets)",
        headers, rows, numeric={3, 4, 5, 6, 10}, nowrap={0, 11}), always={0, 1, 2, 3, 10, 11})]


def _filled(t: Table, always: set[int]) -> Table:
    """T without the columns no row has a figure in (but ALWAYS): an empty column takes width from the others."""
    keep = [i for i in range(len(t.headers)) if i in always or any(row[i] not in EMPTY for row in t.rows)]
    return Table(t.caption, [t.headers[i] for i in keep], [[row[i] for i in keep] for row in t.rows],
                 numeric={keep.index(i) for i in t.numeric if i in keep},
                 nowrap={keep.index(i) for i in t.nowrap if i in keep})


def _ci_cell(c: Comparison) -> str:
    return "-" if c.ci_low is None or c.ci_high is None else f"{fmt_num(c.ci_low)} – {fmt_num(c.ci_high)}"


def _precision_cell(c: Comparison) -> str:
    got = _pct(c.half_width_pct)
    return got if c.precision_pct is None else f"{got} ({_pct(c.precision_pct)})"


def _verdict_words(r: BenchResult) -> list[str]:
    """Each verdict in the bench's words, after the report's reading when the interval is inconclusive."""
    out = []
    for c in r.comparisons:
        words = _inconclusive_words(r, c)
        out.append(f"{c.measure}: {words}. In the bench's words: {c.text}" if words else f"{c.measure}: {c.text}")
    return out


def _warmup_tables(r: BenchResult) -> list[Table]:
    warm = _warmup_rows(r)
    if not warm:
        return []
    return [Table(
        "Warm-up by evidence and drift (each layout warmed until throughput and device I/Os per unit of work "
        "held steady, or its budget ran out; drift: the trend across its measured runs)",
        ["layout", "measure", "outcome", "windows", "seconds", "work", "last rate /s", "last I/Os per unit",
         "first to last run", "trend", "drifts"], warm, numeric={3, 4, 5, 6, 7, 8, 9}, nowrap={1})]


def _evidence_tables(r: BenchResult) -> list[Table]:
    rows: list[list[str]] = []
    for lay in r.layouts:
        for m in lay.measures:
            run = _median_run(m)
            if run is None or run.evidence is None:
                continue
            ev = run.evidence
            for dev in ev.devices:
                rows.append([lay.label, m.measure, dev.device, dev.role, fmt_num(dev.read_iops),
                             fmt_num(dev.write_iops), fmt_num(dev.mbps), fmt_num(dev.r_await_ms),
                             fmt_num(dev.w_await_ms), fmt_num(dev.aqu_sz), fmt_num(dev.util_pct),
                             fmt_pct(dev.cap_use)])
    if not rows:
        return []
    return [_filled(Table(
        "Device evidence under each verdict (the median run's 1 s medians per device in the stack)",
        ["layout", "measure", "device", "role", "read IOPS", "write IOPS", "MB/s", "r_await ms", "w_await ms",
         "queue depth", "util %", "of cap"], rows, numeric=set(range(4, 12)), nowrap={1}), always=set(range(11)))]


def _held_by(r: BenchResult) -> list[str]:
    """What held each layout's median run, in the words of its evidence (a sentence: a list item, not a narrow
    cell of the device table, where it wrapped a word to a line)."""
    out = []
    for lay in r.layouts:
        for m in lay.measures:
            run = _median_run(m)
            if run is not None and run.evidence is not None:
                out.append(f"{lay.label} {m.measure}: {run.evidence.binding_detail}")
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"±{fmt_num(value)} %"


def _warmup_rows(r: BenchResult) -> list[list[str]]:
    """A row per layout and measure with a warm-up by evidence or a drift measured (a row of dashes says nothing)."""
    return [_warmup_row(lay.label, m) for lay in r.layouts for m in lay.measures
            if m.warmup is not None or m.drift is not None]


def _warmup_row(label: str, m: MeasureResult) -> list[str]:
    w, d = m.warmup, m.drift
    last = w.windows[-1] if w is not None and w.windows else None
    return [label, m.measure, w.outcome if w else "-", str(len(w.windows)) if w else "-",
            fmt_num(w.seconds) if w else "-", f"{fmt_num(w.work)} {w.unit}s" if w else "-",
            fmt_num(last.throughput) if last else "-", fmt_num(last.ios_per_unit) if last else "-",
            f"{d.first_last_pct:+.1f} %" if d else "-", f"{d.change_pct:+.1f} %" if d else "-",
            ("yes" if d.drifts else "no") if d else "-"]


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
        ci = None if inconclusive(r, c) else _ci(c, m)   # an interval too wide to read is not drawn as one
        if ci is not None:
            mid = m.median or 0.0
            ax.errorbar([x], [mid], yerr=[[max(mid - ci[0], 0)], [max(ci[1] - mid, 0)]], color=ACCENT, capsize=6,
                        linewidth=2)
        verdicts.append(("inconclusive", _inconclusive_words(r, c)) if inconclusive(r, c) else (c.verdict, c.text))
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
               "comparison's confidence interval (not drawn when inconclusive). "
               + " ".join(t[:1].upper() + t[1:] for _, t in verdicts))
    return sink.add(fig, f"bench-{name}", caption)
