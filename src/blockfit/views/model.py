"""`blockfit model` on the terminal: the prediction's figures and binding limits, the limits' headroom, the cost,
then its warnings, notes and sources (the HTML is report/model.py's)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from blockfit.model.burst import burst_line
from blockfit.model.host import assumptions
from blockfit.schema import Citation, Cost, Prediction
from blockfit.terminal import cell, markup
from blockfit.units import fmt_compute, fmt_io_size, fmt_random_mix


def render_prediction(p: Prediction, console: Console) -> None:
    """The prediction for people: the figures, the limits and the cost, what to watch, where the figures come from."""
    _print_figures(p, console)
    console.print(_limits_table(p))
    console.print(_costs_table(p))
    _print_remarks(p, console)


def _print_figures(p: Prediction, console: Console) -> None:
    """The heading, max IOPS and MB/s with the limit that binds each, then the latency bound's answer, the burst,
    the cost, the host's settings and the mirroring, each where the prediction has it."""
    wl = p.workload
    count = fmt_compute(p.instance_detail.vcpus, p.instance_detail.ocpus)
    console.print(f"[bold]{markup(p.layout)}[/] on [bold]{markup(p.instance)}[/]{f' ({count})' if count else ''} "
                  f"({p.cloud} catalog {p.catalog_version})")
    why = {row.name: row.description for row in p.limits}
    mix = fmt_random_mix(wl.read_share)
    console.print(f"  max IOPS  [bold green]{p.max_iops:>12,.0f}[/] at {fmt_io_size(wl.small_io)} {mix}, "
                  f"limited by [bold]{markup(why[p.iops_limited_by])}[/]")
    console.print(f"  max MB/s  [bold green]{p.max_mbps:>12,.1f}[/] at {fmt_io_size(wl.large_io)} I/Os, "
                  f"limited by [bold]{markup(why[p.mbps_limited_by])}[/]")
    if p.max_iops_at_latency is not None:
        one = p.latency_floor_ms()
        floor = f" (one I/O alone takes {one:.3g} ms)" if one is not None else ""
        console.print(f"  max IOPS at mean latency <= {p.latency_bound_ms:g} ms: {p.max_iops_at_latency:,.0f}{floor}")
    if burst_line(p):
        console.print(f"  {markup(burst_line(p))}")
    console.print(f"  cost      {markup(cost_line(p.cost))}")
    host = assumptions(p)
    if host:
        console.print(f"  host      {markup(host)}")
    if p.redundancy_note:
        console.print(f"  mirroring {markup(p.redundancy_note)}; usable {p.usable_gb or 0:,.0f} GB "
                      f"of {p.layout_detail.total_gb:,} GB")


def _headroom(binds: bool, pct: float) -> str:
    if binds:
        return "[bold red]binds[/]"
    return "[dim]>10x[/]" if pct > 900 else f"+{pct:g}%"


def _limits_table(p: Prediction) -> Table:
    """Every limit's IOPS and MB/s, each with its headroom over the one that binds."""
    wl = p.workload
    table = Table(title="Limits (headroom over the binding limit)", title_justify="left")
    table.add_column("limit (what sets it)", ratio=3)
    for col in (f"IOPS @{fmt_io_size(wl.small_io)}", "", f"MB/s @{fmt_io_size(wl.large_io)}", ""):
        table.add_column(col, justify="right", no_wrap=True)
    for row in p.limits:
        table.add_row(cell(row.description), f"{row.iops:,.0f}",
                      _headroom(row.name == p.iops_limited_by, row.iops_headroom_pct),
                      f"{row.mbps:,.1f}", _headroom(row.name == p.mbps_limited_by, row.mbps_headroom_pct))
    return table


def _costs_table(p: Prediction) -> Table:
    costs = Table(title="Cost per month", title_justify="left")
    for col in ("item", "quantity", "unit price", "monthly"):
        costs.add_column(col, justify="left" if col == "item" else "right")
    for c in p.cost.items:
        costs.add_row(cell(c.item), cell(f"{c.quantity:,.0f} {c.unit}"),
                      "?" if c.unit_price is None else f"${c.unit_price:g}",
                      "?" if c.monthly is None else f"${c.monthly:,.2f}")
    return costs


def _print_remarks(p: Prediction, console: Console) -> None:
    """What to watch (warnings, notes), then every source behind the figures."""
    for w in p.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}")
    for note in p.notes:
        console.print(f"[dim]note:[/] {markup(note)}")
    console.print("[dim]sources: " + "; ".join(markup(c) for c in prediction_sources(p)) + "[/]")


def cost_line(c: Cost) -> str:
    """'$195.84 storage + $232.14 compute (12 OCPUs = 24 vCPUs, 12 GB) = $427.98 per month (730 h, us-ashburn-1)'."""
    storage = "unknown" if c.storage is None else f"${c.storage:,.2f}"
    where = f"{c.hours_per_month:g} h" + (f", {c.region}" if c.region else "")
    d = c.compute_detail
    if c.compute is None:
        note = (d.note or "").removesuffix(": compute cost unknown") if d else ""   # said once, not twice
        why = f" ({note})" if note else ""
        return f"{storage} storage per month ({where}); compute unknown{why}"
    count = "" if d is None else fmt_compute(d.vcpus, d.ocpus)
    shape = "" if d is None or d.memory_gb is None else f" ({count or 'count unknown'}, {d.memory_gb:g} GB)"
    total = "unknown" if c.total is None else f"${c.total:,.2f}"
    return f"{storage} storage + ${c.compute:,.2f} compute{shape} = {total} per month ({where})"


def prediction_sources(p: Prediction) -> list[Citation]:
    """Every source behind a prediction's figures, once each, by id."""
    found = {c.id: c for r in p.limits for c in r.sources}
    found.update({b.source.id: b.source for b in (p.burst.buckets if p.burst else [])})
    found.update({c.source.id: c.source for c in p.cost.items if c.source})
    detail = p.cost.compute_detail
    if detail and detail.source:
        found[detail.source.id] = detail.source
    return sorted(found.values(), key=lambda c: c.id)
