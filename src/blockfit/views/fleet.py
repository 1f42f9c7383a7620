"""`blockfit fleet` on the terminal: the hosts' table and the fleet's summary (the HTML is report/fleet.py's)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from blockfit.fleet.burst import cell as burst_cell
from blockfit.fleet.burst import summary as burst_summary
from blockfit.fleet.promql import fmt_span
from blockfit.schema.fleet import FleetHost, FleetResult
from blockfit.terminal import cell, markup, safe
from blockfit.units import fmt_count, fmt_money, fmt_num

STATUS_STYLE = {"under": "bold red", "over": "yellow", "within": "green", "unknown": "dim"}


def render_fleet(r: FleetResult, console: Console) -> None:
    """The fleet's hosts as a table, largest shortfall first, then the summary and each host's notes."""
    s = r.summary
    console.print(f"[bold]Fleet[/] {markup(r.source)} {{{markup(r.match)}}}: {fmt_count(s.planned, 'host')} "
                  "planned from "
                  f"p{r.percentile:g} of {fmt_span(r.range_s)} at {fmt_span(r.step_s)} steps"
                  f"{f' + {r.headroom_pct:g} % headroom' if r.headroom_pct else ''} ({r.cloud} catalog "
                  f"{r.catalog_version})")
    table = Table(title=f"Hosts, largest shortfall first: target = p{r.percentile:g} IOPS"
                        f"{' + headroom' if r.headroom_pct else ''}, $ a month", title_justify="left")
    for col in ("host", "status", "target", "now", "delivers", "short", "recommended", "burst", "now $", "rec. $"):
        table.add_column(col, justify="left" if col in ("host", "status", "now", "recommended") else "right",
                         no_wrap=col != "recommended")
    for h in r.hosts:
        # host names and labels come from the server: cells of escaped text, never markup
        table.add_row(cell(h.host), cell(h.status, STATUS_STYLE[h.status]), *(cell(v) for v in _host_cells(h)))
    console.print(table)
    _print_summary(r, console)


def _host_cells(h: FleetHost) -> tuple[str, ...]:
    """A host's row after its name and status: target, now, what now delivers, shortfall, the recommendation,
    burst, and the month's cost now and recommended."""
    best = h.plan.candidates[0] if h.plan is not None else None
    rec = h.recommended_cost
    same = best is None or (h.now is not None and best.instance == h.now.instance)
    where = "" if same or best is None else f" on {best.instance}"
    now = ((h.now.layout, fmt_num(h.now.max_iops), fmt_money(h.now.cost.total)) if h.now else ("–", "–", "–"))
    return (fmt_num(h.targets.target_iops), now[0], now[1],
            "–" if h.shortfall_pct is None else f"{h.shortfall_pct:+.0f} %",
            f"{best.layout}{where}" if best else f"none ({h.infeasible})",
            burst_cell(h.burst, h.now.burst if h.now else None), now[2], fmt_money(rec.total) if rec else "–")


def _print_summary(r: FleetResult, console: Console) -> None:
    """The counts by status, the month's cost, the burst, the largest shortfalls and savings, each host's notes."""
    s = r.summary
    console.print(f"[bold]{s.under}[/] under-provisioned, [bold]{s.within}[/] within, [bold]{s.over}[/] "
                  f"over-provisioned" + (f", {s.unknown} without a current layout" if s.unknown else "")
                  + (f"; {s.problems} not planned (below)" if s.problems else ""))
    console.print(f"Monthly cost of {fmt_count(s.priced, 'host')}: now {fmt_money(s.cost_now.total)}, recommended "
                  f"{fmt_money(s.cost_recommended.total)}"
                  + ("" if s.savings is None else f" ({'saves' if s.savings >= 0 else 'adds'} "
                                                  f"{fmt_money(abs(s.savings))} a month)"))
    if s.on_burst or s.on_burst_now:
        console.print(f"{burst_summary(s.on_burst, s.on_burst_now)}: the burst column is the worst stretch's share "
                      "of the credits, replayed over the recorded series", markup=False)
    if s.largest_shortfalls:
        console.print("Largest shortfalls: " + ", ".join(f"{safe(a.host)} {a.value:+.0f} %"
                                                         for a in s.largest_shortfalls), markup=False)
    if s.largest_savings:
        console.print("Largest savings: " + ", ".join(f"{safe(a.host)} {fmt_money(a.value)}"
                                                      for a in s.largest_savings), markup=False)
    for h in r.hosts:
        for note in [*h.targets.skipped, *h.notes]:
            console.print(f"note: {safe(h.host)}: {safe(note)}", highlight=False, markup=False)
