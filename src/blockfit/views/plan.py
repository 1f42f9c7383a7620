"""`blockfit plan` on the terminal: the targets, the candidates' tables, the recommendation and what it needs, the
move from the current layout, and why nothing meets the targets (on stderr). The HTML is report/plan.py's."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from blockfit.history import describe
from blockfit.model.kinds.clouds import cloud_of
from blockfit.plan.advice import money
from blockfit.plan.migration import hours
from blockfit.plan.search import TIE_WINDOW
from blockfit.schema import Candidate, Plan, Requirements
from blockfit.schema.migration import METHOD_WORDS
from blockfit.terminal import cell, markup, safe
from blockfit.views.limits import limit_label


def _dollars(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def _row(c: Candidate, req: Requirements) -> list[Text]:
    layout = cell(c.layout)
    if not c.meets_targets:
        layout.append(" *", style="dim")   # the caption says what * means: the column stays narrow
    return [layout, cell(c.instance), cell(f"{c.max_iops:,.0f}"), cell(f"{c.max_mbps:,.0f}"),
            cell(_dollars(c.cost.storage)), cell(_dollars(c.cost.compute)), cell(_dollars(c.cost.total)),
            cell(limit_label(c.limited_by(req)))]


COLUMNS = ("layout", "instance", "max IOPS", "max MB/s", "storage", "compute", "total /month", "limited by")


def _table(title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for col in COLUMNS:
        table.add_column(col, justify="left" if col in ("layout", "instance", "limited by") else "right",
                         no_wrap=col != "limited by")
    return table


def render_plan(plan: Plan, out: Path | None, console: Console, given: bool = False) -> None:
    """The plan for people: its targets and history, the candidates' tables, the recommendation, the move, the
    warnings, and where it was written."""
    req = plan.requirements
    console.print(f"[bold]Plan[/] for {', '.join(_targets(req))} on {markup(req.instance_shape)}"
                  f"{'' if req.instance_count is None else f':{req.instance_count:g}'} "
                  f"({plan.cloud} catalog {plan.catalog_version})")
    if req.history is not None:
        for line in describe.lines(req.history):
            console.print(safe(line), markup=False, highlight=False)
    for title, group in [("The layout given, meeting every target", plan.candidates)] if given else _groups(plan):
        table = _table(title)
        for c in group:
            table.add_row(*_row(c, req))
        console.print(table)
    _render_best(plan, console, "Given" if given else "Recommended")
    if plan.current is not None:
        render_move(plan, console)
    if plan.pareto:
        _render_pareto(plan, console)
    for w in plan.candidates[0].prediction.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}")
    for w in req.history.warnings if req.history is not None else []:
        console.print(f"[yellow]warning:[/] history: {markup(w)}")
    if out is not None:
        console.print(f"plan written to {markup(out)} (feed it to 'blockfit build --plan {markup(out)}' "
                      f"or 'blockfit lab --plan {markup(out)}')", soft_wrap=True)   # a path is never folded


def _render_pareto(plan: Plan, console: Console) -> None:
    pt = _table("What each extra dollar buys (Pareto: total cost vs IOPS vs MB/s, capacity met)")
    for c in plan.pareto:
        pt.add_row(*_row(c, plan.requirements))
    if not all(c.meets_targets for c in plan.pareto):
        pt.caption, pt.caption_justify = "* misses a target (shown for what it costs)", "left"
    console.print(pt)




def render_move(plan: Plan, console: Console) -> None:
    """plan --inventory: the layout the host has beside the recommendation, then each way to move and how long."""
    cur, best, req = plan.current, plan.candidates[0], plan.requirements
    assert cur is not None
    p = cur.prediction
    where = f"{safe(cur.mount_point or cur.device)} ({safe(cur.device)})"
    words = p.limit_description(p.iops_limited_by) or limit_label(p.iops_limited_by)
    mb_words = p.limit_description(p.mbps_limited_by) or limit_label(p.mbps_limited_by)
    console.print(f"[bold]Now:[/] {markup(where)}: {markup(p.layout)} on {markup(p.instance)}: "
                  f"{p.max_iops:,.0f} IOPS / {p.max_mbps:,.0f} MB/s for {markup(money(p.cost))} a month; "
                  f"IOPS limited by {markup(words)}, MB/s by {markup(mb_words)}. The recommendation gives "
                  f"{best.max_iops / p.max_iops:.1f}x the IOPS and {best.max_mbps / p.max_mbps:.1f}x the MB/s.")
    if not plan.migrations:
        console.print("  The move: no copy method fits (the recommended layout holds less than the device and its "
                      "used bytes are unknown).")
    else:
        console.print(f"[bold]The move[/] onto {markup(best.layout)} (each figure from the model; "
                      f"{req.large_io // 1024 ** 2 or 1} MiB I/Os):")
    for m in plan.migrations:
        console.print(f"  {METHOD_WORDS[m.method]} ({markup(m.tool)}): [bold]{hours(m.duration_s)}[/] at "
                      f"{m.rate_mbps:,.0f} MB/s", soft_wrap=True)
        for line in m.arithmetic:
            console.print(f"      {safe(line)}", markup=False, highlight=False)
        for note in m.notes:
            console.print(f"      note: {safe(note)}", markup=False, highlight=False)
        if m.sources:
            console.print(f"      sources: {'; '.join(safe(str(c)) for c in m.sources)}", markup=False,
                          highlight=False)


def _targets(req: Requirements) -> list[str]:
    """The plan's targets in words: capacity, read share, IOPS, MB/s, latency."""
    redundancy = "" if req.redundancy == "none" else f" raw ({req.redundancy} redundancy)"
    return [f"{req.needed_gb:,.0f} GB{redundancy}",
            *([f"{req.read_pct:.0f} % reads"] if req.read_pct < 100 else []),
            *([f"{req.target_iops:,.0f} IOPS"] if req.target_iops else []),
            *([f"{req.target_mbps:,.0f} MB/s"] if req.target_mbps else []),
            *([f"<= {req.max_latency_ms:g} ms"] if req.max_latency_ms else []),
            *([outstanding_words(req)] if req.outstanding else [])]


def outstanding_words(req: Requirements) -> str:
    """'8 outstanding I/Os (the history's: iostat's aqu-sz, p95 3.2 x 2 devices ...)' in the plan's targets."""
    said = f"{req.outstanding:,} outstanding I/Os"
    if req.outstanding_from == "history" and req.history is not None and req.history.outstanding is not None:
        h = req.history
        at = h.percentile_name if h.percentile_name != "custom" else f"p{h.percentile:g}"
        said += (f" (the history's: {h.outstanding:g} in flight at {at}, "
                 f"{h.outstanding_from}; --outstanding overrides)")
    return said


def _groups(plan: Plan) -> list[tuple[str, list[Candidate]]]:
    """The candidates' tables: priced ones ranked by cost, then those whose storage price is unknown."""
    where = f", prices in {safe(plan.candidates[0].cost.region)}" if plan.candidates[0].cost.region else ""
    priced = [c for c in plan.candidates if c.price_known and c.cap_known]
    unpriced = [c for c in plan.candidates if not c.price_known and c.cap_known]
    capless = [c for c in plan.candidates if not c.cap_known]
    tables = []
    if priced:
        tables.append((f"Candidates meeting every target, recommended first: cheapest total (storage + compute, 730 h "
                       f"a month{where}), but within {100 * (TIE_WINDOW - 1):g} % of it fewest volumes, then fewest "
                       f"{cloud_of(plan.cloud).compute_unit}s first", priced))
    if unpriced:
        tables.append(("Candidates meeting every target, storage price unknown (a group of their own, not ranked by "
                       "cost): known compute cost, then fewest volumes, then least provisioned first", unpriced))
    if capless:
        tables.append(("Candidates meeting every target only with the instance cap unknown: not applied (a group of "
                       "their own, after every layout whose caps are known; the VM may deliver less)", capless))
    return tables


def _render_best(plan: Plan, console: Console, label: str = "Recommended") -> None:
    """The recommendation and what it needs: redundancy, compute, attachment, stripe, the plan's notes."""
    req, best = plan.requirements, plan.candidates[0]
    console.print(f"[bold green]{label}:[/] {markup(best.layout)} on {markup(best.instance)}: "
                  f"{best.max_iops:,.0f} IOPS / {best.max_mbps:,.0f} MB/s for {markup(money(best.cost))} a month, "
                  f"limited by {markup(_limit_words(best, req))}.")
    if best.prediction.redundancy_note:
        console.print(f"  redundancy: {markup(best.prediction.redundancy_note)} "
                      f"(usable {best.prediction.usable_gb or 0:,.0f} GB of {best.layout_detail.total_gb:,} GB)")
    if best.cost.compute_detail and best.cost.compute_detail.note:
        console.print(f"  [yellow]{markup(best.cost.compute_detail.note)}[/]")
    attach = attachment_advice(best)
    if attach:
        console.print(f"  attach: {markup(attach)}")
    if best.burst_replay is not None:
        console.print(f"  burst: replayed through its credit buckets, {markup(best.burst_replay.summary)}")
    console.print(f"  stripe: {markup(best.stripe_reason)}")
    for note in plan.notes:
        console.print(f"  {markup(note)}")


def _limit_words(c: Candidate, req: Requirements) -> str:
    """The binding limit in the words `model` prints for the same layout (its limits table's description)."""
    name = c.limited_by(req)
    return c.prediction.limit_description(name) or limit_label(name)


def attachment_advice(c: Candidate) -> str | None:
    """How each volume must be attached: for UHP the iSCSI paths that must carry I/O."""
    p = c.prediction
    if p.attachment is None:
        return None
    if p.attachment == "iscsi" and p.paths and p.paths > 1:
        return (f"each volume over a multipath-enabled iSCSI attachment with I/O spread over {p.paths} paths "
                f"(one path carries at most {p.path_iops_cap:,.0f} IOPS / {p.path_mbps_cap:,.0f} MB/s).")
    return f"each volume over {'iSCSI' if p.attachment == 'iscsi' else p.attachment} ({p.paths or 1} path)."


def render_infeasible(plan: Plan) -> None:
    """Why nothing meets the targets, the best this instance reaches, and what other shapes would, on stderr."""
    inf = plan.infeasible
    assert inf is not None
    print(f"blockfit: infeasible: {safe(inf.reason)}", file=sys.stderr)
    req = plan.requirements
    print(f"  targets: {', '.join(_targets(req))}", file=sys.stderr)
    for line in describe.lines(req.history) if req.history is not None else []:
        print(f"  {safe(line)}", file=sys.stderr)
    if inf.best is not None:
        b = inf.best
        print(f"  best on {safe(b.instance)}: {safe(b.layout)}, {b.max_iops:,.0f} IOPS / {b.max_mbps:,.0f} MB/s for "
              f"{safe(money(b.cost))} a month" + ("" if b.cap_known else " (instance cap unknown: not applied)"),
              file=sys.stderr)
    for alt in inf.alternatives:
        print(f"  on {safe(alt.instance)}: {safe(alt.layout)}, {alt.max_iops:,.0f} IOPS / {alt.max_mbps:,.0f} MB/s "
              f"for {safe(money(alt.cost))} a month", file=sys.stderr)
    regions = {safe(c.cost.region) for c in [*([inf.best] if inf.best else []), *inf.alternatives] if c.cost.region}
    if regions:
        print(f"  prices: 730 h a month, in {', '.join(sorted(regions))}", file=sys.stderr)
    for note in plan.notes:   # the same notes as the JSON's ("not considered, no price" was once JSON only)
        print(f"  {safe(note)}", file=sys.stderr)
