"""Section for `blockfit plan` (Plan): the Pareto front of cost vs IOPS and vs MB/s, the chosen layout marked."""

from __future__ import annotations

from blockfit.errors import InputError
from blockfit.report import history
from blockfit.report.figures import ACCENT, GREY, LIGHT, MAIN, FigureSink, ReportFigure, new_figure, number_axis
from blockfit.report.model import limit_name
from blockfit.report.page import Section, Table
from blockfit.schema import Candidate, Plan
from blockfit.units import fmt_count, fmt_io_size, fmt_money, fmt_ms, fmt_num, fmt_qty


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
    best = plan.candidates[0]
    text = (f"The cheapest layout that meets {', '.join(_targets(plan))} is {best.layout} on {best.instance}: "
            f"{fmt_qty(best.max_iops, 'IOPS')} and {fmt_qty(best.max_mbps, 'MB/s')} for "
            f"{fmt_money(best.cost_per_month)} a month, limited by {limit_name(best.limited_by)}. "
            f"{fmt_count(len(plan.candidates), 'layout')} "
            f"{'meets' if len(plan.candidates) == 1 else 'meet'} every target.")
    front = plan.pareto
    if len(front) > 1:
        top = max(front, key=lambda c: c.max_iops)
        text += (f" Along the cost–performance front ({len(front)} layouts) more money buys up to "
                 f"{fmt_qty(top.max_iops, 'IOPS')} ({top.layout}, {fmt_money(top.cost_per_month)} a month).")
    return text


def section(plan: Plan, source: str, sink: FigureSink) -> Section:
    if not plan.candidates:
        raise InputError(f"{source}: a plan with no candidates (expected at least the recommended layout)")
    req = plan.requirements
    s = Section("plan", f"Plan: {', '.join(_targets(plan))} on {req.instance_shape}", source, summary(plan))
    s.figures.append(_front_figure(plan, sink))
    if req.history is not None:
        history.extend(s, req.history, sink)
    best = plan.candidates[0]
    rows = [best, *[c for c in plan.pareto if _key(c) != _key(best)]]
    s.tables.append(Table(
        "The chosen layout (first) and the cost–performance front",
        ["layout", "instance", "max IOPS", "max MB/s", "per month", "limited by", "stripe"],
        [[c.layout, c.instance, fmt_num(c.max_iops), fmt_num(c.max_mbps), fmt_money(c.cost_per_month),
          limit_name(c.limited_by), c.stripe_size] for c in rows],
        numeric={2, 3, 4}, strong_rows={0}, muted_rows={i for i, c in enumerate(rows) if i and not c.meets_targets}))
    s.lists.append(("Why this stripe size", [best.stripe_reason]))
    if plan.notes:
        s.lists.append(("Notes", list(plan.notes)))
    return s


def _front_figure(plan: Plan, sink: FigureSink) -> ReportFigure:
    req = plan.requirements
    best = plan.candidates[0]
    fig = new_figure(7.5, 3.4, wspace=0.35)
    axes = fig.subplots(1, 2)
    for ax, metric, target, label in ((axes[0], "max_iops", req.target_iops, f"IOPS at {fmt_io_size(req.small_io)}"),
                                      (axes[1], "max_mbps", req.target_mbps, f"MB/s at {fmt_io_size(req.large_io)}")):
        on_front = {_key(c) for c in plan.pareto}
        others = [c for c in plan.candidates[1:] if _key(c) not in on_front]
        if others:
            ax.scatter([c.cost_per_month for c in others], [getattr(c, metric) for c in others], s=12, color=LIGHT,
                       label="other layouts meeting the targets")
        front = sorted(plan.pareto, key=lambda c: c.cost_per_month)
        if front:
            ax.plot([c.cost_per_month for c in front], [getattr(c, metric) for c in front], "o-", color=GREY,
                    markersize=4, drawstyle="steps-post", label="cost–performance front (alternatives)")
        ax.plot([best.cost_per_month], [getattr(best, metric)], "*", color=ACCENT, markersize=14,
                label=f"chosen: {best.layout}")
        if target:
            ax.axhline(target, color=MAIN, linestyle="--", linewidth=1, label=f"required {fmt_num(target)}")
        ax.set_xlabel("cost per month, $")
        ax.set_ylabel(label)
        number_axis(ax, "both")
    axes[0].legend(loc="lower right")
    return sink.add(fig, "plan-front", "Monthly cost against IOPS (left) and MB/s (right): the chosen layout is the "
                                       "red star, the front's alternatives grey, the requirements dashed blue.")


def _key(c: Candidate) -> tuple[str, str]:
    return (c.layout, c.instance)
