"""The move in a plan or build section: the layout the host has beside the recommendation (plan --inventory), and
each way to move with its duration and arithmetic (plan and build --inventory)."""

from __future__ import annotations

from blockfit.report.model import limit_name
from blockfit.report.page import Section, Table
from blockfit.schema import Candidate, CurrentLayout, Migration
from blockfit.schema.migration import METHOD_WORDS
from blockfit.units import fmt_hours, fmt_money, fmt_num

LIMIT_WORDS = {"source_read": "the source's reads", "target_write": "the target's writes",
               "instance_mbps": "the instance's MB/s left for a copy", "in_flight": "what the tool keeps in flight"}


def current_table(cur: CurrentLayout, best: Candidate) -> Table:
    """Now and recommended, side by side, each with its binding limits."""
    p = cur.prediction
    rows = [["now: " + (cur.mount_point or cur.device), p.layout, p.instance, fmt_num(p.max_iops), fmt_num(p.max_mbps),
             fmt_money(p.cost.total), f"{limit_name(p.iops_limited_by)}; {limit_name(p.mbps_limited_by)}"],
            ["recommended", best.layout, best.instance, fmt_num(best.max_iops), fmt_num(best.max_mbps),
             fmt_money(best.cost.total),
             f"{limit_name(best.prediction.iops_limited_by)}; {limit_name(best.prediction.mbps_limited_by)}"]]
    return Table("The layout the host has (from its inventory) and the recommendation",
                 ["", "layout", "instance", "max IOPS", "max MB/s", "total /month", "limited by (IOPS; MB/s)"],
                 rows, numeric={3, 4, 5}, strong_rows={1})


def migrations_table(moves: list[Migration]) -> Table:
    return Table("How long the move takes, per method (the model's figures)",
                 ["method", "tool", "data", "MB/s", "duration", "binding"],
                 [[METHOD_WORDS[m.method], m.tool, f"{m.data_bytes / 1e12:,.2f} TB", fmt_num(m.rate_mbps),
                   fmt_hours(m.duration_s), LIMIT_WORDS[m.limited_by]] for m in moves], numeric={2, 3, 4})


def extend(s: Section, moves: list[Migration], cur: CurrentLayout | None = None, best: Candidate | None = None) -> None:
    """Add the move's tables and each method's arithmetic and sources to S."""
    if cur is not None and best is not None:
        s.tables.append(current_table(cur, best))
    if not moves:
        return
    s.tables.append(migrations_table(moves))
    for m in moves:
        lines = [*m.arithmetic, *(f"note: {n}" for n in m.notes), *(f"source: {c}" for c in m.sources)]
        s.lists.append((f"{METHOD_WORDS[m.method]}: {fmt_hours(m.duration_s)} — the arithmetic", lines))
