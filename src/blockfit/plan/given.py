"""A one-candidate plan for a layout the user names, so `build --layout` writes the scripts of a layout that was
decided elsewhere (the field reports' 9 x 500 GB striped with `lvcreate -i9 -I4M`) exactly as it writes a plan's."""

from __future__ import annotations

from datetime import UTC, datetime

from blockfit import __version__
from blockfit.catalog.models import Catalog
from blockfit.model import predict
from blockfit.model.host import host_settings
from blockfit.plan.stripe import recommend_stripe
from blockfit.schema import Candidate, Instance, Layout, Plan, Requirements, Workload
from blockfit.units import fmt_io_size


def plan_for_layout(layout: Layout, instance: Instance, cat: Catalog, stripe_size: int | None) -> Plan:
    """LAYOUT on INSTANCE as the plan's one candidate; its stripe STRIPE_SIZE (bytes) when given, else the size
    `plan` recommends for the default workload, with the reason either way."""
    wl = Workload()
    if stripe_size is not None:
        stripe, reason = stripe_size, f"given with --stripe-size {fmt_io_size(stripe_size)}"
    else:
        stripe, reason = recommend_stripe(layout.members, layout.manager, wl.small_io, wl.large_io)
    layout = layout.model_copy(update={"stripe_size": stripe if layout.members > 1 or stripe else None})
    pred = predict(layout, instance, wl, catalog=cat)
    return Plan(
        blockfit_version=__version__, created=datetime.now(UTC), cloud=cat.cloud, catalog_version=pred.catalog_version,
        requirements=Requirements(cloud=cat.cloud, capacity_gb=layout.usable_gb, instance_shape=instance.shape,
                                  instance_vcpus=instance.vcpus, instance_ocpus=instance.ocpus,
                                  manager=layout.manager),
        candidates=[Candidate(layout=pred.layout, instance=instance.spec, stripe_reason=reason, meets_targets=True,
                              prediction=pred, **host_settings(pred))],
        notes=[f"written by blockfit build for the layout given, {pred.layout} on {instance.spec}"])
