"""A plan of one candidate, the layout given: what `build --layout`, `plan --layout` and the lab write for a layout
decided elsewhere, so `build` reads it as it reads a plan's. One place for the shape of that document: `plan/`
judges the candidate against targets, `lab/` (which may not import plan/) writes it for its guest."""

from __future__ import annotations

from datetime import UTC, datetime

from blockfit import __version__
from blockfit.model.host import host_settings
from blockfit.schema import Candidate, Infeasible, Instance, Plan, Prediction, Requirements
from blockfit.schema.plan import BurstReplay


def given_requirements(cloud: str, capacity_gb: float, instance: Instance, manager: str) -> Requirements:
    """The requirements of a layout given without targets: its capacity, on its instance."""
    return Requirements(cloud=cloud, capacity_gb=capacity_gb, instance_shape=instance.shape,
                        instance_vcpus=instance.vcpus, instance_ocpus=instance.ocpus, manager=manager)


def one_candidate_plan(pred: Prediction, req: Requirements, stripe_reason: str, notes: list[str],
                       meets: bool = True, replayed: BurstReplay | None = None,
                       missed: list[str] | None = None) -> Plan:
    """PRED as a plan's one candidate; where it misses the targets (MEETS false), an infeasible plan whose best is
    that candidate and whose reason names each target MISSED, as `plan` writes when nothing meets them."""
    cand = Candidate(layout=pred.layout, instance=pred.instance, stripe_reason=stripe_reason, meets_targets=meets,
                     prediction=pred, burst_replay=replayed, **host_settings(pred))
    infeasible = None if meets else Infeasible(
        reason=f"the layout given, {pred.layout} on {pred.instance}, misses " + " and ".join(missed or ["the targets"]),
        missed=missed or [], best=cand)
    return Plan(blockfit_version=__version__, created=datetime.now(UTC), cloud=pred.cloud,
                catalog_version=pred.catalog_version, requirements=req, feasible=meets,
                candidates=[cand] if meets else [], infeasible=infeasible, notes=notes)
