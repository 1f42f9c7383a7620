"""Section for `blockfit model` (Prediction): which cap binds, how far the others clear it; the queueing curve."""

from __future__ import annotations

from blockfit.model.burst import burst_line, fmt_duration
from blockfit.report.figures import (
    FigureSink,
    ReportFigure,
    label_bars,
    label_width,
    legend_above,
    new_figure,
    number_axis,
)
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN
from blockfit.schema import Citation, Cost, Prediction
from blockfit.units import fmt_compute, fmt_io_size, fmt_money, fmt_ms, fmt_num, fmt_pct, fmt_qty, fmt_random_mix


def limit_name(name: str) -> str:
    """volume_iops_cap → 'volume IOPS cap' (bar labels; the table carries each limit's full description)."""
    return name.replace("per_gb", "per GB").replace("_", " ").replace("mbps", "MB/s").replace("iops", "IOPS")


def _headroom(binds: bool, pct: float) -> str:
    return "binds" if binds else fmt_pct(pct / 100, signed=True)


def summary(p: Prediction) -> str:
    why = {row.name: row.description for row in p.limits}
    for name in (p.iops_limited_by, p.mbps_limited_by):   # a hand-made prediction may carry no table
        why.setdefault(name, limit_name(name) or "an unnamed limit")
    mix = fmt_random_mix(p.workload.read_share)
    count = fmt_compute(p.instance_detail.vcpus, p.instance_detail.ocpus)
    on = f"{p.instance} ({count})" if count else p.instance
    text = (f"{p.layout} on {on} gives {fmt_qty(p.max_iops, 'IOPS')} at {fmt_io_size(p.workload.small_io)} "
            f"{mix} and {fmt_qty(p.max_mbps, 'MB/s')} at {fmt_io_size(p.workload.large_io)} I/Os "
            f"{cost_phrase(p.cost)}. IOPS are limited by {why[p.iops_limited_by]}")
    text += "; so is MB/s." if p.mbps_limited_by == p.iops_limited_by else f"; MB/s by {why[p.mbps_limited_by]}."
    others = [r for r in p.limits if r.name != p.iops_limited_by]
    if others:
        nxt = min(others, key=lambda r: r.iops_headroom_pct)
        if nxt.iops_headroom_pct < 0.5:
            text += f" {why[nxt.name][0].upper()}{why[nxt.name][1:]} binds as tightly: both must rise to gain IOPS."
        else:
            text += (f" The next IOPS limit, {why[nxt.name]}, sits {fmt_pct(nxt.iops_headroom_pct / 100)} higher: "
                     f"raising the binding one gains at most that much.")
    if p.max_iops_at_latency is not None and p.latency_bound_ms is not None:
        text += (f" Keeping mean latency within {fmt_ms(p.latency_bound_ms)} allows "
                 f"{fmt_qty(p.max_iops_at_latency, 'IOPS')}.")
    line = burst_line(p)
    return text + (f" {line[0].upper()}{line[1:].rstrip('.')}." if line else "")


def section(p: Prediction, source: str, sink: FigureSink) -> Section:
    s = Section("model", f"Model: {p.layout} on {p.instance}", source, summary(p))
    s.figures.append(_limits_figure(p, sink))
    if p.curve:
        s.figures.append(_curve_figure(p, sink))
    wl = p.workload
    s.tables.append(Table(
        "Limits, with the headroom each leaves over the binding one",
        ["limit (what sets it)", f"IOPS @{fmt_io_size(wl.small_io)}", "headroom", f"MB/s @{fmt_io_size(wl.large_io)}",
         "headroom", "source"],
        [[r.description, fmt_num(r.iops), _headroom(r.name == p.iops_limited_by, r.iops_headroom_pct),
          fmt_num(r.mbps), _headroom(r.name == p.mbps_limited_by, r.mbps_headroom_pct),
          "; ".join(cite(c) for c in r.sources)] for r in p.limits],
        numeric={1, 2, 3, 4}, wrap={5},
        strong_rows={i for i, r in enumerate(p.limits) if p.iops_limited_by == r.name or p.mbps_limited_by == r.name}))
    s.tables.append(cost_table(p.cost, f"{p.cloud} catalog {p.catalog_version}"))
    if p.burst is not None:
        s.tables.append(burst_table(p))
    if p.warnings:
        s.lists.append(("Warnings", list(p.warnings)))
    if p.notes:
        s.lists.append(("Notes", list(p.notes)))
    return s


def burst_table(p: Prediction) -> Table:
    """The credit buckets behind the burst: what each lifts, from and to what, how long a full one lasts."""
    assert p.burst is not None
    rows = []
    for b in p.burst.buckets:
        unit = "IOPS" if b.burst_iops is not None else "MB/s"
        rows.append([f"{b.mechanism.replace('_', ' ')}: {limit_name(b.limit)}", f"{fmt_num(b.sustained)} {unit}",
                     f"{fmt_num(b.burst)} {unit}", fmt_duration(b.full_s), b.refill, cite(b.source)])
    return Table("Burst: the credit buckets (a full one lasts this long at the burst figure)",
                 ["bucket (what it lifts)", "sustained", "burst", "full bucket lasts", "refill", "source"],
                 rows, numeric={1, 2, 3}, wrap={4, 5})


def cite(c: Citation) -> str:
    """A source as a reader can follow it: its public URL and date (or that blockfit assumed the figure)."""
    return f"{c.url} ({c.date})" if c.url else f"{c.id}: assumed by blockfit, no published figure ({c.date})"


def cost_phrase(cost: Cost) -> str:
    """'for $427.98 a month ($195.84 storage + $232.14 compute)', or what is unknown."""
    if cost.total is not None:
        return (f"for {fmt_money(cost.total)} a month ({fmt_money(cost.storage)} storage + "
                f"{fmt_money(cost.compute)} compute)")
    if cost.storage is not None:
        return f"for {fmt_money(cost.storage)} a month of storage (compute price unknown)"
    return "at an unknown price"


def cost_table(cost: Cost, catalog: str) -> Table:
    """The storage line items, then storage, compute and total, in the cost's region."""
    d = cost.compute_detail
    count = "" if d is None else fmt_compute(d.vcpus, d.ocpus)
    compute = (d.shape + (f", {count}" if count else "")) if d else "compute"
    rows = [[c.item, f"{fmt_num(c.quantity)} {c.unit}", "unknown" if c.unit_price is None else f"${c.unit_price:g}",
             fmt_money(c.monthly)] for c in cost.items]
    rows += [["storage subtotal", "", "", fmt_money(cost.storage)], [compute, "", "", fmt_money(cost.compute)],
             ["total", "", "", fmt_money(cost.total)]]
    where = f", {cost.region}" if cost.region else ""
    return Table(f"Cost per month ({fmt_num(cost.hours_per_month)} h{where}; {catalog})",
                 ["item", "quantity", "unit price", "per month"], rows, numeric={1, 2, 3},
                 strong_rows={len(rows) - 1})


def _limits_figure(p: Prediction, sink: FigureSink) -> ReportFigure:
    names = [limit_name(r.name) for r in p.limits]
    fig = new_figure(7.5, 0.9 + 0.34 * len(p.limits), left=label_width(names), right=0.6, wspace=0.45)
    axes = fig.subplots(1, 2, sharey=True)
    wl = p.workload
    for ax, values, binding, headroom, xlabel in (
            (axes[0], [r.iops for r in p.limits], p.iops_limited_by,
             [r.iops_headroom_pct for r in p.limits], f"IOPS at {fmt_io_size(wl.small_io)}"),
            (axes[1], [r.mbps for r in p.limits], p.mbps_limited_by,
             [r.mbps_headroom_pct for r in p.limits], f"MB/s at {fmt_io_size(wl.large_io)}")):
        colors = [ACCENT if r.name == binding else GREY for r in p.limits]
        bars = ax.barh(range(len(names)), values, color=colors)
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        positive = [v for v in values if v > 0]
        if positive and max(positive) / min(positive) > 20:
            ax.set_xscale("log")
        number_axis(ax, "x")
        ax.set_xlabel(xlabel + (" (log scale)" if ax.get_xscale() == "log" else ""))
        label_bars(ax, bars, [_headroom(r.name == binding, h) for r, h in zip(p.limits, headroom, strict=True)])
        ax.margins(x=0.25)
        ax.grid(axis="y", visible=False)
    return sink.add(fig, "model-limits", f"Every limit of {p.layout} on {p.instance}: the binding one in red, the "
                                         "others with the headroom they leave.")


def _curve_figure(p: Prediction, sink: FigureSink) -> ReportFigure:
    fig = new_figure(7.5, 3.4, left=0.6)
    ax = fig.subplots()
    pts = sorted(p.curve, key=lambda c: c.outstanding)
    ax.plot([c.iops for c in pts], [c.latency_ms for c in pts], "o-", color=MAIN, markersize=3,
            label="predicted mean latency (mean value analysis)")
    ax.axvline(p.max_iops, color=ACCENT, linewidth=1, linestyle="--", label=f"max IOPS {fmt_num(p.max_iops)}")
    if p.latency_bound_ms is not None:
        ax.axhline(p.latency_bound_ms, color=GREY, linewidth=1, label=f"latency bound {fmt_ms(p.latency_bound_ms)}")
    if p.max_iops_at_latency is not None and p.latency_bound_ms is not None:
        ax.plot([p.max_iops_at_latency], [p.latency_bound_ms], "*", color=ACCENT, markersize=11,
                label=f"max IOPS within the bound: {fmt_num(p.max_iops_at_latency)}")
    for c in pts[:: max(1, len(pts) // 8)]:
        ax.annotate(str(c.outstanding), (c.iops, c.latency_ms), xytext=(3, 3), textcoords="offset points", fontsize=7)
    ax.set_xlabel(f"IOPS at {fmt_io_size(p.workload.small_io)} {fmt_random_mix(p.workload.read_share)}")
    ax.set_ylabel("mean latency, ms")
    number_axis(ax, "both")
    legend_above(fig, ax)
    return sink.add(fig, "model-curve", "Queueing curve: latency against IOPS as outstanding I/Os (numbers at the "
                                        "points) grow; latency climbs steeply once the binding limit is reached.")
