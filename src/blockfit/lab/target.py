"""What the lab emulates, parsed once at the edge: a ``LabTarget`` from a plan or from layout and instance specs.

The CLI loads the catalog once and builds the target (every spec parsed once, the plan file read and validated
once, as `build --plan` reads it); `lab` and `lab --bench` take it as typed objects. Nothing under lab/ reads a
spec string or a plan file again: a request that crossed the layers as strings was re-parsed four times and
loaded the catalog three times on its way to the guest.
"""

from __future__ import annotations

from dataclasses import dataclass

from blockfit.catalog.models import Catalog
from blockfit.errors import InputError
from blockfit.schema import Instance, Layout, Plan, Workload


@dataclass(frozen=True)
class LabTarget:
    """The cloud and its catalog, the layout, the instance and the workload the predictions are for; the plan when
    one was given (its JSON goes to the guest's `blockfit build` as the user's plan); ORIGIN names the input in
    messages ("--layout", "--plan plan.json")."""

    cloud: str
    cat: Catalog
    layout: Layout
    instance: Instance
    workload: Workload
    plan: Plan | None = None
    origin: str = "--layout"


def from_specs(cat: Catalog, layout: str, instance: str, manager: str = "lvm") -> LabTarget:
    """A target from --layout and --instance specs on CAT's cloud (the default workload)."""
    from blockfit.specs import parse_instance, parse_layout

    return LabTarget(cloud=cat.cloud, cat=cat,
                     layout=parse_layout(layout, cat.cloud, cat, manager="mdadm" if manager == "mdadm" else "lvm"),
                     instance=parse_instance(instance, cat.cloud, cat), workload=Workload())


def from_plan(plan: Plan, cat: Catalog, origin: str) -> LabTarget:
    """A target from a plan's first candidate: its layout, instance and workload, on CAT (the plan's cloud)."""
    from blockfit.specs import parse_instance

    if not plan.candidates:
        raise InputError(f"{origin}: the plan has no candidates")
    best = plan.candidates[0]
    return LabTarget(cloud=plan.cloud, cat=cat, layout=best.layout_detail,
                     instance=parse_instance(best.instance, plan.cloud, cat), workload=best.prediction.workload,
                     plan=plan, origin=origin)
