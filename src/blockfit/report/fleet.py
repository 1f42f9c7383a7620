"""Section for a fleet (`plan --from prometheus+…`): each host's demand against what its current layout delivers,
a table sorted by shortfall, and the full series of the hosts furthest short."""

from __future__ import annotations

from datetime import UTC, datetime

from blockfit.fleet.burst import cell as burst_cell
from blockfit.fleet.burst import summary as burst_summary
from blockfit.report.figures import FigureSink, ReportFigure, legend_above, new_figure, number_axis
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, MAIN, OK, SECOND
from blockfit.schema.fleet import FleetHost, FleetResult
from blockfit.units import fmt_count, fmt_money, fmt_num

STATUS_COLOR = {"under": ACCENT, "within": OK, "over": SECOND, "unknown": GREY}
ROWS = 200   # a page lists the hosts furthest short; the JSON holds every host


def _span(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def summary(r: FleetResult) -> str:
    s = r.summary
    text = (f"{fmt_count(s.planned, 'host')} planned from the p{r.percentile:g} of {_span(r.range_s)} of node_exporter "
            f"history at {_span(r.step_s)} steps"
            + (f" plus {r.headroom_pct:g} % headroom" if r.headroom_pct else "")
            + f": {s.under} under-provisioned (the current layout delivers less than the target), {s.within} within, "
              f"{s.over} over-provisioned (a layout at least 10 % cheaper meets the target)"
            + (f", {s.unknown} without a current layout" if s.unknown else "") + ".")
    if s.priced:
        text += (f" The {fmt_count(s.priced, 'host')} priced both ways cost {fmt_money(s.cost_now.total)} a month now "
                 f"and {fmt_money(s.cost_recommended.total)} recommended"
                 + (f" (prices in {s.cost_now.region})" if s.cost_now.region else ""))
        if s.savings is not None:
            text += f" ({'saving' if s.savings >= 0 else 'adding'} {fmt_money(abs(s.savings))})"
        text += "."
    if s.on_burst or s.on_burst_now:
        text += f" {burst_summary(s.on_burst, s.on_burst_now).capitalize()}: the recorded demand rises above its " \
                "sustained rate (the burst column: the worst stretch's share of the credits)."
    if s.largest_shortfalls:
        worst = s.largest_shortfalls[0]
        text += f" Furthest short: {worst.host}, whose target is {worst.value:.0f} % above what its layout delivers."
    if s.problems:
        text += f" {fmt_count(s.problems, 'host')} could not be planned (listed below)."
    return text


def section(r: FleetResult, source: str, sink: FigureSink) -> Section:
    s = Section("fleet", f"Fleet: {fmt_count(r.summary.planned, 'host')} from {r.source}", source, summary(r))
    if any(h.now is not None for h in r.hosts):
        s.figures.append(_demand_figure(r, sink))
    detailed = [h for h in r.hosts if h.detail is not None and h.detail.iops_max]
    if detailed:
        s.figures.append(_detail_figure(r, detailed, sink))
    rows = r.hosts[:ROWS]
    s.tables.append(_hosts_table(r, rows))
    _lists(s, r, rows)
    s.notes.append(f"Selector {{{r.match}}}; history from {_iso(r.start)} to {_iso(r.end)}; {r.queries} queries to "
                   "the server's HTTP API, percentiles computed there.")
    return s


def _bursts(rows: list[FleetHost]) -> bool:
    """The burst column only where a host's layout bursts (an empty column of dashes pushed the table past the
    page)."""
    return any(h.burst is not None or (h.now is not None and h.now.burst is not None) for h in rows)


def _hosts_table(r: FleetResult, rows: list[FleetHost]) -> Table:
    bursts = _bursts(rows)
    header = ["host", "status", "target IOPS", "target MB/s", "layout now", "IOPS now", "shortfall", "recommended",
              "burst", "$ now", "$ recommended", "saves"]
    keep = [i for i in range(len(header)) if bursts or header[i] != "burst"]
    numeric = {2, 3, 5, 6, 8, 9, 10, 11} if bursts else {2, 3, 5, 6, 8, 9, 10}
    return Table(
        "Hosts, largest shortfall first" + (f" (the first {ROWS} of {len(r.hosts)})" if len(r.hosts) > ROWS else "")
        + ": targets are the percentile plus headroom; IOPS at the plan's small I/O size; dollars a month; bold: "
        "under its target; grey: status unknown",
        [header[i] for i in keep],
        [[row[i] for i in keep] for row in map(_row, rows)], numeric=numeric,
        strong_rows={i for i, h in enumerate(rows) if h.status == "under"},
        muted_rows={i for i, h in enumerate(rows) if h.status == "unknown"})


def _lists(s: Section, r: FleetResult, rows: list[FleetHost]) -> None:
    """The largest savings, the hosts no layout serves (the reason in full), the hosts not planned."""
    if r.summary.largest_savings:
        s.lists.append(("Largest savings", [f"{a.host}: {fmt_money(a.value)} a month" for a in
                                            r.summary.largest_savings]))
    infeasible = [f"{h.host}: {h.infeasible}" for h in rows if h.infeasible and not (h.plan and h.plan.candidates)]
    if infeasible:   # the reason in full here; the table's cell says only "none" (it ran past the page)
        s.lists.append(("No layout meets the targets", infeasible))
    if r.problems:
        s.lists.append(("Not planned", [p.message for p in r.problems]))


def _row(h: FleetHost) -> list[str]:
    best = h.plan.candidates[0] if h.plan is not None and h.plan.candidates else None
    rec = h.recommended_cost
    return [h.host, h.status, fmt_num(h.targets.target_iops), fmt_num(h.targets.target_mbps),
            h.now.layout if h.now else "–", fmt_num(h.now.max_iops) if h.now else "–",
            "–" if h.shortfall_pct is None else f"{h.shortfall_pct:+.0f} %",
            f"{best.layout} on {best.instance}" if best else ("none (see below)" if h.infeasible else "no plan"),
            burst_cell(h.burst, h.now.burst if h.now else None),
            fmt_money(h.now.cost.total) if h.now else "–", fmt_money(rec.total) if rec else "–",
            "–" if h.savings is None else fmt_money(h.savings)]


def _demand_range(hosts: list[FleetHost]) -> tuple[float, float]:
    """Both axes' range: from a little below the least demand or delivery (at least 1) to above the most."""
    top = max(max(h.targets.iops, h.now.max_iops if h.now else 0) for h in hosts) * 1.1
    demands = [h.targets.iops for h in hosts if h.targets.iops > 0]
    bottom = max(1.0, min(min(demands) if demands else 1.0, min(h.now.max_iops for h in hosts if h.now)) / 1.5)
    return bottom, top


def _demand_figure(r: FleetResult, sink: FigureSink) -> ReportFigure:
    fig = new_figure(7.5, 3.8)
    ax = fig.subplots()
    hosts = [h for h in r.hosts if h.now is not None]
    bottom, top = _demand_range(hosts)
    ax.plot([bottom, top], [bottom, top], color=GREY, linewidth=1, linestyle="--",
            label="demand = what the layout delivers")
    for status in ("within", "over", "under"):
        group = [h for h in hosts if h.status == status]
        if group:
            ax.scatter([h.now.max_iops for h in group if h.now], [max(h.targets.iops, bottom) for h in group], s=14,
                       color=STATUS_COLOR[status], label=f"{status} ({len(group)})", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(bottom, top)
    ax.set_ylim(bottom, top)
    ax.set_xlabel("IOPS the current layout delivers (model)")
    ax.set_ylabel(f"p{r.percentile:g} demand, IOPS")
    number_axis(ax, "both")
    legend_above(fig, ax)
    return sink.add(fig, "fleet-demand", f"Each host's p{r.percentile:g} IOPS demand (before headroom) against what "
                                         "its current layout delivers on its instance: above the dashed line a host "
                                         "is short (red), far below it may pay for IOPS it does not use.")


def _detail_figure(r: FleetResult, hosts: list[FleetHost], sink: FigureSink) -> ReportFigure:
    fig = new_figure(7.5, 1.2 + 1.5 * len(hosts), hspace=0.6)
    axes = fig.subplots(len(hosts), 1, squeeze=False)[:, 0]
    for ax, h in zip(axes, hosts, strict=True):
        assert h.detail is not None
        xs = [datetime.fromtimestamp(t, UTC) for t, _ in h.detail.iops_max]
        ax.plot(xs, [v for _, v in h.detail.iops_max], color=MAIN, linewidth=0.8,
                label=f"highest IOPS per {_span(h.detail.bucket_s)}")
        if h.now is not None:
            ax.axhline(h.now.max_iops, color=ACCENT, linewidth=1, label="the current layout delivers")
        ax.axhline(h.targets.iops, color=GREY, linestyle="--", linewidth=1, label=f"p{r.percentile:g}")
        ax.set_title(f"{h.host}: {h.detail.steps_above_now:,} of {h.detail.steps:,} steps above the current layout",
                     fontsize=9, loc="left")
        ax.set_ylabel("IOPS")
        number_axis(ax)
    legend_above(fig, axes[0])
    return sink.add(fig, "fleet-detail", "The hosts furthest short, over the whole range: the highest IOPS per bucket "
                                         "of steps (blue), what the current layout delivers (red), the percentile "
                                         "the plan targets (dashed).")


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M UTC")
