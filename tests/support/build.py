"""Plans for the build tests, made by hand (no dependency on `blockfit plan` or the model); the host settings a
candidate states (iSCSI session queue depth, multipath policy) come from the planner's own rule (model/host.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from blockfit.model.host import host_settings
from blockfit.model.kinds import cloud_of
from blockfit.plan.evaluate import PLAN_SESSION_DEPTH
from blockfit.schema import Candidate, Cost, Instance, Layout, Plan, Prediction, Requirements, Volume, Workload


def make_layout(cloud: str = "oci", members: int = 9, size_gb: int = 500, vtype: str | None = None,
                vpu: int | None = 10, stripe: int | None = 4 * 1024 * 1024, iops: int | None = None,
                throughput: float | None = None, manager: str = "lvm", redundancy: str = "none",
                paths: int | None = None, attachment: str | None = None) -> Layout:
    vtype = vtype or ("block" if cloud == "oci" else "gp3")
    return Layout(members=members, stripe_size=stripe, manager=manager, redundancy=redundancy,  # type: ignore[arg-type]
                  paths=paths, attachment=attachment,  # type: ignore[arg-type]
                  volume=Volume(cloud=cloud, type=vtype, size_gb=size_gb,  # type: ignore[arg-type]
                                vpu_per_gb=vpu if cloud == "oci" else None,
                                provisioned_iops=iops, provisioned_throughput=throughput))


def make_plan(layout: Layout, instance: str = "VM.Standard.E4.Flex:16") -> Plan:
    """A one-candidate plan; an OCI layout attaches over iSCSI (its catalog default) unless it says otherwise,
    at the session queue depth plan assumes, on its paths (1 unless it says)."""
    spec = f"{layout.members}x{layout.volume.size_gb}G"
    oci = layout.volume.cloud == "oci"
    attachment = (layout.attachment or "iscsi") if oci else None
    paths = (layout.paths or 1) if oci else None
    shape, _, ocpus = instance.partition(":")
    counts = cloud_of(layout.volume.cloud).count_fields(shape, float(ocpus)) if ocpus else {}   # vcpus (+ OCI's ocpus)
    inst = Instance(cloud=layout.volume.cloud, shape=shape, **counts)
    layout = layout.model_copy(update={"stripe_size": layout.stripe_size or 1024 * 1024, "attachment": attachment,
                                       "paths": paths})
    prediction = Prediction(
        cloud=layout.volume.cloud, catalog_version="test", layout=spec, layout_detail=layout, instance=instance,
        instance_detail=inst, workload=Workload(), max_iops=1.0, iops_limited_by="test", max_mbps=1.0,
        mbps_limited_by="test", limits=[], member_iops=1.0, member_mbps=1.0,
        cost=Cost(storage=None, compute=None, total=None), base_latency_ms=1.0, curve=[], warnings=[],
        attachment=attachment, paths=paths, session_depth=PLAN_SESSION_DEPTH if attachment == "iscsi" else None)
    cand = Candidate(layout=spec, instance=instance, stripe_reason="test", meets_targets=True, prediction=prediction,
                     **host_settings(prediction))
    req = Requirements(cloud=layout.volume.cloud, capacity_gb=float(layout.total_gb), instance_shape=instance)
    return Plan(blockfit_version="test", created=datetime.now(UTC), cloud=layout.volume.cloud,
                catalog_version="test", requirements=req, candidates=[cand])
