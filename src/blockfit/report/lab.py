"""Section for `blockfit lab` (LabResult): predicted against measured, per test, single volume beside the stripe."""

from __future__ import annotations

from blockfit.report.figures import FigureSink, ReportFigure, legend_above, new_figure, number_axis
from blockfit.report.model import limit_name
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN
from blockfit.schema import LabFigures, LabResult
from blockfit.units import fmt_compute, fmt_io_size, fmt_num, fmt_pct, fmt_qty, fmt_times


def _tests(r: LabResult) -> list[tuple[str, LabFigures]]:
    out: list[tuple[str, LabFigures]] = []
    if r.single is not None:
        out.append(("single volume", r.single))
    out.append(("stripe", r))
    return out


def _what(r: LabResult) -> str:
    """What was measured: reads, or (--redundancy raid10) writes to the mirrored stripe."""
    count = fmt_compute(r.vcpus, r.ocpus)
    on = f"{r.instance} ({count})" if count else r.instance
    if r.direction == "write":
        return f"the {r.redundancy} stripe {r.layout} on {on}, measured for writes,"
    return f"the stripe {r.layout} on {on}"


def summary(r: LabResult) -> str:
    text = (f"In a qemu guest with every cap scaled by {fmt_num(r.scale)}, {_what(r)} "
            f"measured {fmt_qty(r.measured_iops, 'IOPS')} against {fmt_num(r.predicted_iops)} predicted "
            f"({fmt_pct(r.iops_ratio - 1, signed=True)}) and {fmt_qty(r.measured_mbps, 'MB/s')} against "
            f"{fmt_num(r.predicted_mbps)} ({fmt_pct(r.mbps_ratio - 1, signed=True)}).")
    if r.single is not None and r.single.measured_iops > 0:
        text += (f" The single volume of the same size ({r.single.layout}) measured "
                 f"{fmt_qty(r.single.measured_iops, 'IOPS')}: the stripe gives "
                 f"{fmt_times(r.measured_iops / r.single.measured_iops)} its IOPS and "
                 f"{fmt_times(r.measured_mbps / r.single.measured_mbps if r.single.measured_mbps else None)} its MB/s.")
    same = r.limited_by.iops == r.predicted_limited_by.iops
    text += (f" The measured IOPS sit on {limit_name(r.limited_by.iops)}, "
             + ("the limit the model names." if same else
                f"while the model names {limit_name(r.predicted_limited_by.iops)}."))
    failed = [st.name for st in r.steps if not st.ok]
    if failed:
        text += f" {len(failed)} step(s) failed in the guest: {', '.join(failed)}."
    return text


def section(r: LabResult, source: str, sink: FigureSink) -> Section:
    s = Section("lab", f"Lab: {r.layout} on {r.instance}", source, summary(r))
    s.figures.append(_figure(r, sink))
    rows = []
    for name, f in _tests(r):
        rows.append([name, f.layout, fmt_num(f.predicted_iops), fmt_num(f.measured_iops),
                     fmt_pct(f.iops_ratio - 1, signed=True), fmt_num(f.predicted_mbps), fmt_num(f.measured_mbps),
                     fmt_pct(f.mbps_ratio - 1, signed=True), limit_name(f.limited_by.iops),
                     limit_name(f.predicted_limited_by.iops)])
    s.tables.append(Table(
        f"Predicted against measured {r.direction}s (scaled by {fmt_num(r.scale)}; IOPS at {fmt_io_size(r.small_io)}, "
        f"MB/s at {fmt_io_size(r.large_io)}, {r.iodepth} deep, {fmt_num(r.runtime_s)} s per test)",
        ["test", "layout", "IOPS predicted", "IOPS measured", "error", "MB/s predicted", "MB/s measured", "error",
         "IOPS limit measured", "IOPS limit predicted"], rows, numeric={2, 3, 4, 5, 6, 7}))
    if r.steps:
        s.lists.append(("Steps run in the guest",
                        [f"{'ok' if st.ok else 'FAILED'}: {st.name}{' — ' + st.detail if st.detail else ''}"
                         for st in r.steps]))
    s.notes.append(f"{r.manager} + {r.fs}; guest kernel {r.kernel}; {fmt_num(r.guest_seconds)} s in the guest.")
    return s


def _figure(r: LabResult, sink: FigureSink) -> ReportFigure:
    tests = _tests(r)
    fig = new_figure(7.5, 3.0, bottom=0.65, wspace=0.35)
    axes = fig.subplots(1, 2)
    width = 0.38
    for ax, pred, meas, ratio, label in ((axes[0], "predicted_iops", "measured_iops", "iops_ratio", "IOPS (scaled)"),
                                         (axes[1], "predicted_mbps", "measured_mbps", "mbps_ratio", "MB/s (scaled)")):
        xs = list(range(len(tests)))
        ax.bar([x - width / 2 for x in xs], [getattr(f, pred) for _, f in tests], width, color=GREY, label="predicted")
        bars = ax.bar([x + width / 2 for x in xs], [getattr(f, meas) for _, f in tests], width, color=MAIN,
                      label="measured")
        for bar, (_, f) in zip(bars, tests, strict=True):
            err = getattr(f, ratio) - 1
            ax.annotate(fmt_pct(err, signed=True), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        xytext=(0, 2), textcoords="offset points", ha="center", fontsize=8,
                        color=ACCENT if abs(err) > 0.1 else "black")
        ax.set_xticks(xs, [f"{name}\n{f.layout}" for name, f in tests])
        ax.set_ylabel(label)
        ax.margins(y=0.15)
        number_axis(ax, "y")
        ax.grid(axis="x", visible=False)
    legend_above(fig, axes[0])
    return sink.add(fig, "lab-bars", "Predicted (grey) against measured (blue) per test, with the error in % above "
                                     "each measured bar (red beyond 10 %).")
