"""A one-candidate plan for a layout the user names: `build --layout` writes the scripts of a layout that was decided
elsewhere (the field reports' 9 x 500 GB striped with `lvcreate -i9 -I4M`) exactly as it writes a plan's, and
`plan --layout` judges that layout against the targets with the figures a plan's candidate has."""

from __future__ import annotations

from blockfit.catalog.models import Catalog
from blockfit.model import predict
from blockfit.model.given import given_requirements, one_candidate_plan
from blockfit.plan.advice import workload
from blockfit.plan.planner import host_notes, judged, missed_targets
from blockfit.plan.stripe import recommend_stripe
from blockfit.schema import Instance, Layout, Plan, Prediction, Requirements
from blockfit.units import fmt_io_size


def plan_for_layout(layout: Layout, instance: Instance, cat: Catalog, stripe_size: int | None,
                    req: Requirements | None = None, by: str = "build") -> Plan:
    """LAYOUT on INSTANCE as the plan's one candidate, judged against REQ's targets (`plan --layout`; without
    REQ, `build --layout`: its capacity, no targets; BY names the command in the note). Its stripe STRIPE_SIZE
    (bytes) when given, else the size `plan` recommends for the workload, with the reason either way."""
    req = req or given_requirements(cat.cloud, layout.usable_gb, instance, layout.manager)
    if stripe_size is not None:
        stripe, reason = stripe_size, f"given with --stripe-size {fmt_io_size(stripe_size)}"
    else:
        stripe, reason = recommend_stripe(layout.members, req.manager, req.small_io, req.large_io)
    layout = layout.model_copy(update={"stripe_size": stripe if layout.members > 1 or stripe else None,
                                       "manager": req.manager, "redundancy": req.redundancy,
                                       "attachment": req.attachment or layout.attachment,
                                       "paths": req.paths or layout.paths})
    pred = predict(layout, instance, workload(req), cat, latency_bound_ms=req.max_latency_ms,
                   memory_gb=req.memory_gb)
    meets, replayed = judged(pred, req, f"the {layout.volume.type} volumes")
    notes = [f"written by blockfit {by} for the layout given, {pred.layout} on {instance.spec}"]
    plan = one_candidate_plan(pred, req, reason, notes, meets, replayed, None if meets else _missed(req, pred))
    cand = plan.candidates[0] if plan.candidates else plan.infeasible.best if plan.infeasible else None
    if by == "plan" and cand is not None:   # what a plan's recommendation says of its host, said here too
        plan.notes += host_notes(cat, cand)
    return plan


def _missed(req: Requirements, pred: Prediction) -> list[str]:
    """The targets the layout misses, its capacity first (a search never offers a layout short of it)."""
    needed = req.capacity_gb * (1 + req.growth_pct / 100)
    usable = pred.layout_detail.usable_gb
    short = [f"{needed:,.0f} GB usable (it holds {usable:,.0f})"] if usable < needed - 1e-6 else []
    return short + missed_targets(req, pred)
