"""Section for `blockfit diagnose` (Diagnosis): a timeline per device in the stack, each finding marked on it.

A recording gives the per-interval samples (timeline); a live run's JSON keeps only per-device medians, drawn
as bars. A finding is marked on the panel of the metric its evidence is about, at the value it cites, over the
intervals in which the device was active (the span its medians were taken from).
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from blockfit.devices.iostat import Interval
from blockfit.report.figures import FigureSink, ReportFigure, label_width, new_figure, number_axis
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN
from blockfit.schema import DeviceSummary, Diagnosis, Finding
from blockfit.units import fmt_count, fmt_num

MAX_DEVICES = 8
METRICS: list[tuple[str, str]] = [("iops", "IOPS"), ("mbps", "MB/s"), ("await_ms", "await ms"),
                                  ("aqu_sz", "queue depth"), ("flushes_per_s", "flushes/s")]


def evidence_metric(f: Finding) -> tuple[str, float | None] | None:
    """The timeline metric a finding's evidence is about, and the value it cites there (None: a setting)."""
    m = f.measurements
    if f.kind == "flush_storm":
        return "flushes_per_s", m.get("flushes_per_s")
    if f.kind == "queue_depth_bound":
        return "aqu_sz", m.get("in_flight", m.get("aqu_high"))
    if f.kind in ("member_cap", "instance_cap"):
        return (f.metric or "iops"), m.get("cap", m.get("value"))
    if f.kind == "stripe_slow_member":
        return "await_ms", m.get("await_ms")
    if f.kind == "stripe_imbalance":
        return "iops", None
    if f.kind == "small_io_on_throughput_bound":
        return "iops", None
    return None


def summary(d: Diagnosis) -> str:
    active = [dev for dev in d.devices if dev.active_intervals > 0]
    origin = "a recording" if d.source.startswith("replay:") else "a live run"
    text = (f"{d.samples} samples every {fmt_num(d.interval_s)} s ({fmt_num(d.duration_s)} s, from {origin}) of "
            f"{fmt_count(len(d.devices), 'device')}, {len(active)} of them busy. ")
    if not d.findings:
        return text + "Nothing in these samples points at a flush storm, a queue-depth limit or a cap."
    counts = {sev: sum(1 for f in d.findings if f.severity == sev) for sev in ("critical", "warning", "info")}
    parts = [f"{n} {sev}" for sev, n in counts.items() if n]
    first = d.findings[0]
    return text + (f"{fmt_count(len(d.findings), 'finding')} ({', '.join(parts)}). First: {first.summary.rstrip('.')}. "
                   f"Recommended: {first.recommendation}")


def _shown(d: Diagnosis, intervals: dict[str, list[Interval]]) -> list[str]:
    flagged = [f.device for f in d.findings]
    names = [dev.device for dev in d.devices if dev.active_intervals > 0 or dev.device in flagged]
    if intervals:
        names = [n for n in names if n in intervals]
    ordered = list(dict.fromkeys([n for n in flagged if n in names] + names))
    return ordered[:MAX_DEVICES]


def section(d: Diagnosis, source: str, sink: FigureSink, intervals: dict[str, list[Interval]]) -> Section:
    s = Section("diagnose", f"Diagnose: {d.source}", source, summary(d))
    shown = _shown(d, intervals)
    s.figures += _figures(d, shown, intervals, sink)
    hidden = len([dev for dev in d.devices if dev.active_intervals > 0]) - len(shown)
    if hidden > 0:
        s.notes.append(f"{hidden} more busy device(s) are in the table but not drawn (at most {MAX_DEVICES} are).")
    if d.findings:
        s.tables.append(_findings_table(d))
    s.tables.append(_devices_table(d))
    if d.caveats:
        s.lists.append(("Caveats", list(d.caveats)))
    return s


def _figures(d: Diagnosis, shown: list[str], intervals: dict[str, list[Interval]],
             sink: FigureSink) -> list[ReportFigure]:
    """A timeline per shown device from a recording; from a live run's medians, one set of bars."""
    by_name = {dev.device: dev for dev in d.devices}
    if intervals:
        return [_timeline(name, by_name.get(name), intervals[name], [f for f in d.findings if f.device == name], sink)
                for name in shown]
    if shown:
        return [_bars([by_name[n] for n in shown if n in by_name], d.findings, sink)]
    return []


def _findings_table(d: Diagnosis) -> Table:
    return Table(
        "Findings", ["severity", "finding", "device", "what", "evidence", "recommended change"],
        [[f.severity, f.kind.replace("_", " "), f.device, f.summary, "; ".join(f.evidence), f.recommendation]
         for f in d.findings], strong_rows={i for i, f in enumerate(d.findings) if f.severity == "critical"})


def _devices_table(d: Diagnosis) -> Table:
    return Table(
        "Devices (medians over the intervals each was active)",
        ["device", "role", "parent", "IOPS", "read IOPS", "write IOPS", "MB/s", "request KB", "r_await ms",
         "w_await ms", "queue depth", "util %", "flushes/s"],
        [[v.device, v.role, v.parent or "", fmt_num(v.iops), fmt_num(v.read_iops), fmt_num(v.write_iops),
          fmt_num(v.mbps), fmt_num(v.avg_request_kb), fmt_num(v.r_await_ms), fmt_num(v.w_await_ms), fmt_num(v.aqu_sz),
          fmt_num(v.util_pct), fmt_num(v.flushes_per_s)] for v in d.devices],
        numeric=set(range(3, 13)), muted_rows={i for i, v in enumerate(d.devices) if v.active_intervals == 0})


def _timeline(name: str, dev: DeviceSummary | None, ivs: list[Interval], findings: list[Finding],
              sink: FigureSink) -> ReportFigure:
    metrics = _timeline_metrics(ivs, findings)
    fig = new_figure(7.5, 0.8 + 0.95 * len(metrics), top=0.35, hspace=0.15)
    axes = fig.subplots(len(metrics), 1, sharex=True, squeeze=False)[:, 0]
    t = [iv.t for iv in ivs]
    busy = [iv.t for iv in ivs if iv.iops > 0]
    for ax, (key, label) in zip(axes, metrics, strict=True):
        values = [getattr(iv, key) or 0.0 for iv in ivs]
        ax.plot(t, values, color=MAIN, linewidth=1.2)
        ax.set_ylabel(label, fontsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(3))  # a strip this short reads with three ticks (and draws faster)
        number_axis(ax, "y")
        _mark(ax, key, findings, busy)
    axes[-1].xaxis.set_major_locator(MaxNLocator(5, integer=True))  # shared by the strips: ticks are what cost
    axes[-1].set_xlabel("seconds since the first sample")
    axes[0].set_title(f"{name}{_role(dev)}", loc="left", fontsize=10)
    settings = [f for f in findings if evidence_metric(f) is None]
    if settings:
        fig.text(0.01, 0.005, "settings: " + "; ".join(f.summary for f in settings), fontsize=7, color=ACCENT)
    marked = ", ".join(sorted({f.kind.replace("_", " ") for f in findings})) or "none"
    caption = (f"Timeline of {name}: IOPS, MB/s, await, queue depth and flushes per interval (flushes only when "
               f"there were any). Findings marked in red (dashed: the value the evidence cites; shaded: the span it "
               f"was taken over): {marked}.")
    return sink.add(fig, f"diagnose-{name}", caption)


def _timeline_metrics(ivs: list[Interval], findings: list[Finding]) -> list[tuple[str, str]]:
    """Flushes only where the device flushed at all (a flush-free panel says nothing and costs a draw)."""
    return [(key, label) for key, label in METRICS if key != "flushes_per_s"
            or any(iv.flushes_per_s for iv in ivs) or any(f.kind == "flush_storm" for f in findings)]


def _mark(ax: Axes, key: str, findings: list[Finding], busy: list[float]) -> None:
    """Each finding about KEY on its panel: the span it was taken over, the value it cites, its name."""
    for f in findings:
        where = evidence_metric(f)
        if where is None or where[0] != key:
            continue
        if busy:
            ax.axvspan(min(busy), max(busy), color=ACCENT, alpha=0.08)
        if where[1] is not None:
            ax.axhline(where[1], color=ACCENT, linestyle="--", linewidth=1)
        ax.annotate(f"{f.kind.replace('_', ' ')} ({f.severity})", (0.01, 0.92), xycoords="axes fraction",
                    va="top", fontsize=8, color=ACCENT, fontweight="bold")


def _role(dev: DeviceSummary | None) -> str:
    return f" ({dev.role}{', in ' + dev.parent if dev.parent else ''})" if dev else ""


def _bars(devs: list[DeviceSummary], findings: list[Finding], sink: FigureSink) -> ReportFigure:
    flagged = {f.device for f in findings}
    fig = new_figure(7.5, 1.2 + 0.5 * len(devs), left=label_width([v.device for v in devs]), hspace=0.45)
    axes = fig.subplots(2, 2, sharey=True).ravel()
    names = [v.device for v in devs]
    colors = [ACCENT if v.device in flagged else GREY for v in devs]
    panels = [("IOPS", [v.iops for v in devs]), ("MB/s", [v.mbps for v in devs]),
              ("await ms (worse of read, write)", [max(v.r_await_ms, v.w_await_ms) for v in devs]),
              ("queue depth", [v.aqu_sz for v in devs])]
    for ax, (label, values) in zip(axes, panels, strict=True):
        ax.barh(range(len(names)), values, color=colors)
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel(label)
        number_axis(ax, "x")
        ax.grid(axis="y", visible=False)
    axes[0].invert_yaxis()
    return sink.add(fig, "diagnose-devices", "Per-device medians (a live run keeps no per-interval samples; record "
                                             "with --record for a timeline). Devices with a finding in red.")
