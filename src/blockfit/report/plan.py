"""Section for `blockfit plan` (Plan): the Pareto front of cost vs IOPS and vs MB/s, the chosen layout marked."""

from __future__ import annotations

from typing import NamedTuple

from blockfit.errors import InputError
from blockfit.model.burst import fmt_duration
from blockfit.report import history, move
from blockfit.report.figures import FigureSink, ReportFigure, legend_above, new_figure, number_axis
from blockfit.report.model import cite, cost_phrase, limit_name
from blockfit.report.page import Section, Table
from blockfit.report.palette import ACCENT, GREY, LIGHT, MAIN
from blockfit.schema import Candidate, Plan, Requirements
from blockfit.units import fmt_compute, fmt_count, fmt_io_size, fmt_money, fmt_ms, fmt_num, fmt_qty


def _targets(plan: Plan) -> list[str]:
    req = plan.requirements
    out = [fmt_qty(req.needed_gb, "GB")]
    if req.target_iops:
        out.append(f"{fmt_qty(req.target_iops, 'IOPS')} at {fmt_io_size(req.small_io)}")
    if req.target_mbps:
        out.append(f"{fmt_qty(req.target_mbps, 'MB/s')} at {fmt_io_size(req.large_io)}")
    if req.max_latency_ms:
        out.append(f"mean latency within {fmt_ms(req.max_latency_ms)}")
    return out


def summary(plan: Plan) -> str:
    if not plan.feasible:
        return _infeasible_summary(plan)
    best = plan.candidates[0]
    chosen = ("The cheapest layout" if best.cost.storage is not None else
              "With no storage price to compare, the layout with the fewest volumes and the least provisioned")
    compute = fmt_compute(best.instance_detail.vcpus, best.instance_detail.ocpus)
    on = f"{best.instance} ({compute})" if compute else best.instance
    text = (f"{chosen} that meets {', '.join(_targets(plan))} is {best.layout} on {on}: "
            f"{fmt_qty(best.max_iops, 'IOPS')} and {fmt_qty(best.max_mbps, 'MB/s')} {cost_phrase(best.cost)}, "
            f"limited by {_limit_words(best, plan.requirements)}. {_count_words(plan)}.")
    if best.burst_replay is not None:
        text += f" Replayed through its credit buckets, {best.burst_replay.summary}."
    return text + _more_money_words(plan, best)


class _Groups(NamedTuple):
    """The candidates as the tables list them: ranked together, and the two groups listed apart."""

    ranked: list[Candidate]
    unpriced: list[Candidate]   # types without a storage price, beside a priced choice: no cost to rank them by
    capless: list[Candidate]    # the instance cap unknown, beside a choice whose cap is known


def _groups(plan: Plan) -> _Groups:
    best = plan.candidates[0]
    unpriced = [c for c in plan.candidates if not c.price_known and c.cap_known] if best.price_known else []
    capless = [c for c in plan.candidates if not c.cap_known] if best.cap_known else []
    apart = {_key(c) for c in unpriced + capless}
    return _Groups([c for c in plan.candidates if _key(c) not in apart], unpriced, capless)


def _count_words(plan: Plan) -> str:
    """How many layouts meet every target, counted as the first table lists them, and how many more are listed
    apart (a summary counted 5 priced layouts above a table of 3)."""
    g = _groups(plan)
    n = len(g.ranked)
    what = "priced layout" if plan.candidates[0].price_known else "layout"
    count = (f"{fmt_count(n, what)} {'meets' if n == 1 else 'meet'} every target (the first table lists them, the "
             "chosen one first)")
    if g.unpriced:
        count += f"; {len(g.unpriced)} more, of types without a storage price, are listed apart (not ranked by cost)"
    if g.capless:
        count += f"; {len(g.capless)} more meet them only with the instance cap unknown: not applied (listed apart)"
    return count


def _more_money_words(plan: Plan, best: Candidate) -> str:
    """What more money buys: a dearer layout with more IOPS than the chosen one (never the chosen one itself, never
    less than it: a report once read "more money buys up to 35,000 IOPS" beside a 60,000-IOPS choice)."""
    more = [c for c in plan.pareto if _key(c) != _key(best) and c.price_known and best.price_known and c.cap_known
            and c.ranked_cost > best.ranked_cost and c.max_iops > best.max_iops]
    if not more:
        return ""
    top = max(more, key=lambda c: c.max_iops)
    return (f" Along the cost–performance front more money buys up to {fmt_qty(top.max_iops, 'IOPS')} "
            f"({top.layout} on {top.instance}, {fmt_money(top.ranked_cost)} a month in all, "
            f"{fmt_money(top.ranked_cost - best.ranked_cost)} more).")


def _limit_words(c: Candidate, req: Requirements) -> str:
    """The binding limit in the words the model section uses for it (its limits table's description)."""
    name = c.limited_by(req)
    return c.prediction.limit_description(name) or limit_name(name)


def _infeasible_summary(plan: Plan) -> str:
    inf = plan.infeasible
    assert inf is not None
    text = f"Nothing meets {', '.join(_targets(plan))} on {plan.requirements.instance_shape}: {inf.reason}."
    if inf.best is not None:
        b = inf.best
        text += (f" The most this instance reaches is {fmt_qty(b.max_iops, 'IOPS')} and {fmt_qty(b.max_mbps, 'MB/s')} "
                 f"with {b.layout} on {b.instance}, {cost_phrase(b.cost)}.")
    return text


def section(plan: Plan, source: str, sink: FigureSink) -> Section:
    req = plan.requirements
    title = f"Plan: {', '.join(_targets(plan))} on {req.instance_shape}"
    if not plan.feasible:
        return _infeasible_section(plan, source, title, sink)
    if not plan.candidates:
        raise InputError(f"{source}: a feasible plan with no candidates (expected at least the recommended layout)")
    s = Section("plan", title, source, summary(plan))
    if plan.candidates[0].cost.storage is not None:   # no storage price: no cost to draw the layouts against
        s.figures.append(_front_figure(plan, sink))
    if req.history is not None:
        history.extend(s, req.history, sink)
    best = plan.candidates[0]
    g = _groups(plan)
    s.tables.append(_candidate_table("Layouts that meet every target, the chosen one first" + _where(best), g.ranked,
                                     req))
    _apart_tables(s, plan, g)
    move.extend(s, plan.migrations, plan.current, best)
    _common_lists(s, plan, best)
    return s


def _apart_tables(s: Section, plan: Plan, g: _Groups) -> None:
    """The layouts listed apart from the ranked ones, then the rest of the front, then where the outlasted one runs
    out of credits."""
    req = plan.requirements
    if g.unpriced:
        s.tables.append(_candidate_table("Layouts of types without a storage price (planned on performance alone, "
                                         "not ranked by cost)", g.unpriced, req, strong_first=False))
    if g.capless:   # their own group: figures resting on a cap nobody applied
        s.tables.append(_candidate_table("Layouts with the instance cap unknown: not applied (the VM may deliver "
                                         "less)", g.capless, req, strong_first=False))
    listed = {_key(c) for c in plan.candidates}
    front = [c for c in plan.pareto if _key(c) not in listed]
    if front:
        s.tables.append(_candidate_table("The rest of the cost–performance front (what more or less money buys)"
                                         + _where(plan.candidates[0]), front, req, strong_first=False))
    if plan.outlasted and plan.outlasted[0].burst_replay is not None and plan.outlasted[0].burst_replay.drops:
        s.tables.append(_drops_table(plan.outlasted[0]))


def _candidate_table(title: str, rows: list[Candidate], req: Requirements, strong_first: bool = True) -> Table:
    """Rows that miss a target are grey and marked *, and the caption says so (the text table's legend)."""
    missing = {i for i, c in enumerate(rows) if (i or not strong_first) and not c.meets_targets}
    if missing:
        title += "; * (grey): misses a target, shown for what it costs"
    return Table(
        title, ["layout", "instance", "max IOPS", "max MB/s", "storage", "compute", "total /month", "limited by",
                "stripe"],
        [[c.layout + (" *" if i in missing else ""), c.instance, fmt_num(c.max_iops), fmt_num(c.max_mbps),
          fmt_money(c.cost.storage), fmt_money(c.cost.compute), fmt_money(c.cost.total),
          limit_name(c.limited_by(req)),
          fmt_io_size(c.layout_detail.stripe_size) if c.layout_detail.stripe_size else "none"]
         for i, c in enumerate(rows)],
        numeric={2, 3, 4, 5, 6}, strong_rows={0} if strong_first else set(), muted_rows=missing)


def _where(c: Candidate) -> str:
    """The price region of a table's costs (one per result: the catalog's)."""
    return f" (per month, 730 h, prices in {c.cost.region})" if c.cost.region else ""


def _common_lists(s: Section, plan: Plan, best: Candidate | None) -> None:
    """What a reader needs beside the figures: where the targets came from, why the stripe, the notes, the
    warnings and the sources of the recommendation."""
    if best is not None:
        s.lists.append(("Why this stripe size", [best.stripe_reason]))
    if plan.notes:
        s.lists.append(("Notes", list(plan.notes)))
    if best is not None and best.prediction.warnings:
        s.lists.append(("Warnings", list(best.prediction.warnings)))
    if best is not None:
        sources = {c.id: c for r in best.prediction.limits for c in r.sources}
        sources.update({i.source.id: i.source for i in best.cost.items if i.source})
        if sources:
            s.lists.append(("Sources", [cite(c) for _, c in sorted(sources.items())]))


def _infeasible_section(plan: Plan, source: str, title: str, sink: FigureSink) -> Section:
    inf = plan.infeasible
    assert inf is not None
    s = Section("plan", title, source, summary(plan))
    if plan.requirements.history is not None:
        history.extend(s, plan.requirements.history, sink)
    rows = ([inf.best] if inf.best is not None else []) + list(inf.alternatives)
    if rows:
        caption = "The best on this instance (first, grey: misses a target) and the cheapest other shapes that meet "
        if inf.best is not None and not inf.best.cap_known:
            caption = ("The best on this instance (first, grey: instance cap unknown: not applied) and the cheapest "
                       "other shapes that meet ")
        s.tables.append(_candidate_table(caption + "the targets" + _where(rows[0]), rows, plan.requirements))
        s.tables[-1].muted_rows = {0} if inf.best is not None else set()
    if inf.missed:
        s.lists.append(("Targets missed", list(inf.missed)))
    if inf.best is not None and inf.best.burst_replay is not None and inf.best.burst_replay.drops:
        s.tables.append(_drops_table(inf.best))
    _common_lists(s, plan, inf.best)
    return s


def _drops_table(c: Candidate) -> Table:
    """Where the candidate's credits ran out in the history, and what it delivered then."""
    assert c.burst_replay is not None
    return Table(f"Where {c.layout} on {c.instance} runs out of burst credits in the history",
                 ["runs out at", "into the history", "bucket", "asked IOPS", "delivered IOPS", "asked MB/s",
                  "delivered MB/s"],
                 [[d.at or d.label, fmt_duration(d.t), d.bucket.replace("_", " "), fmt_num(d.asked_iops),
                   fmt_num(d.delivered_iops), fmt_num(d.asked_mbps), fmt_num(d.delivered_mbps)]
                  for d in c.burst_replay.drops], numeric={3, 4, 5, 6})


def _front_figure(plan: Plan, sink: FigureSink) -> ReportFigure:
    req = plan.requirements
    best = plan.candidates[0]
    fig = new_figure(7.5, 3.4, wspace=0.35)
    axes = fig.subplots(1, 2)
    for ax, metric, target, label in ((axes[0], "max_iops", req.target_iops, f"IOPS at {fmt_io_size(req.small_io)}"),
                                      (axes[1], "max_mbps", req.target_mbps, f"MB/s at {fmt_io_size(req.large_io)}")):
        on_front = {_key(c) for c in plan.pareto}
        others = [c for c in plan.candidates[1:] if _key(c) not in on_front and c.price_known and c.cap_known]
        if others:
            ax.scatter([c.ranked_cost for c in others], [getattr(c, metric) for c in others], s=12, color=LIGHT,
                       label="other layouts meeting the targets")
        front = sorted(plan.pareto, key=lambda c: c.ranked_cost)
        if front:
            ax.plot([c.ranked_cost for c in front], [getattr(c, metric) for c in front], "o-", color=GREY,
                    markersize=4, drawstyle="steps-post", label="cost–performance front (alternatives)")
        ax.plot([best.ranked_cost], [getattr(best, metric)], "*", color=ACCENT, markersize=14,
                label=f"chosen: {best.layout}")
        if target:
            ax.axhline(target, color=MAIN, linestyle="--", linewidth=1, label=f"required {fmt_num(target)}")
        ax.set_xlabel("total cost per month (storage + compute), $")
        ax.set_ylabel(label)
        number_axis(ax, "both")
    legend_above(fig, axes[0])
    return sink.add(fig, "plan-front", "Monthly cost against IOPS (left) and MB/s (right): the chosen layout is the "
                                       "red star, the front's alternatives grey, the requirements dashed blue.")


def _key(c: Candidate) -> tuple[str, str]:
    return (c.layout, c.instance)
