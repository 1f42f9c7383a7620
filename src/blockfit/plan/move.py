"""`plan --inventory`: the layout a host has under a mount point (an inventory's), what the model predicts for
it, and each way to move onto the plan's recommendation with how long it takes (plan/migration.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from blockfit.catalog import Catalog
from blockfit.errors import ValueProblem
from blockfit.model import predict
from blockfit.model.instance import instance_caps
from blockfit.plan.advice import workload
from blockfit.plan.migration import (
    Sides,
    asm_rebalance,
    copy_share,
    lvm_mirror,
    offline_block_copy,
    offline_file_copy,
    power_to_reach,
)
from blockfit.schema import Candidate, CurrentLayout, Instance, Inventory, InventoryLayout, Layout, Migration, Plan
from blockfit.schema import Workload as IoWorkload

GIB = 1024**3


@dataclass(frozen=True)
class Found:
    """The inventory's layout under one mount point, with everything a plan and a move need of it."""

    entry: InventoryLayout
    layout: Layout
    instance: Instance | None     # None: the inventory does not say; the plan's instance is taken
    device_bytes: int | None
    used_bytes: int | None

    @property
    def spec(self) -> str:
        return self.entry.spec or ""


def find(inv: Inventory, mount: str | None, need_instance: bool = True) -> Found:
    """The layout under MOUNT (None: the inventory's only mounted one). A mount point the inventory does not have, a
    layout it could not tell, or no instance (when NEED_INSTANCE: none given either) is a ValueProblem naming the
    value and what the inventory has."""
    entry = _mounted_layout(inv, mount)
    where = entry.mount_point
    if entry.layout is None or entry.spec is None:
        why = "; ".join(entry.unknown) or "no volume type"
        raise ValueProblem(f"{where}: its layout is unknown ({why}); give the provider's volume file to "
                           "'blockfit inspect --volumes' first")
    instance = entry.instance or inv.instance
    if instance is None and need_instance:
        raise ValueProblem(f"{where}: the inventory does not say which instance it ran on; give --instance")
    node = next((d for d in inv.devices if d.name == entry.device), None)
    return Found(entry, entry.layout, instance, None if node is None else node.size_bytes, _used_bytes(inv, entry))


def _mounted_layout(inv: Inventory, mount: str | None) -> InventoryLayout:
    """The mounted layout at MOUNT, spelt as typed ('data/', '/./data' are '/data'); None: the only mounted one.
    Refused naming the mount points the inventory has."""
    mounted = [e for e in inv.layouts if e.mount_point is not None]
    known = ", ".join(sorted({e.mount_point for e in mounted if e.mount_point})) or "none"
    if mount is None:
        if len(mounted) != 1:
            raise ValueProblem(f"has {len(mounted)} mounted layouts ({known}); name one with --mount")
        return mounted[0]
    want = "/" + "/".join(p for p in mount.split("/") if p not in ("", "."))
    entry = next((e for e in mounted if e.mount_point == want), None)
    if entry is None:
        raise ValueProblem(f"{mount!r}: not a mount point of the inventory (it has {known})", "--mount")
    return entry


def _used_bytes(inv: Inventory, entry: InventoryLayout) -> int | None:
    """The bytes in use on the layout (what a file copy moves): the layout's own figure, else its filesystem's."""
    if entry.used_bytes is not None:
        return entry.used_bytes
    fs = next((f for f in inv.filesystems if f.mount_point == entry.mount_point), None)
    return fs.used_bytes if fs is not None else None


def check(found: Found, cat: Catalog) -> None:
    """The found layout is one the model can predict (its volume type in the catalog, its size allowed): checked
    before the plan's search, so a bad inventory fails at once."""
    if found.instance is not None:
        predict(found.layout, found.instance, IoWorkload(), cat, with_curve=False)


def with_move(plan: Plan, found: Found, cat: Catalog) -> Plan:
    """PLAN with the current layout's prediction (at the plan's workload) and the migrations onto its first
    candidate (none when the plan is infeasible)."""
    req = plan.requirements
    if found.instance is None and plan.candidates:
        found = replace(found, instance=plan.candidates[0].instance_detail)
    if found.instance is None:
        return plan
    current = predict(found.layout, found.instance, workload(req), cat, with_curve=False)
    size = found.device_bytes if found.device_bytes is not None else int(found.layout.total_gb * GIB)
    cur = CurrentLayout(mount_point=found.entry.mount_point, device=found.entry.device, size_bytes=size,
                        used_bytes=found.used_bytes, prediction=current)
    moves = migrations(cat, found, plan.candidates[0], req.large_io, req.manager) if plan.feasible and \
        plan.candidates else []
    return plan.model_copy(update={"current": cur, "migrations": moves})


def sides(cat: Catalog, source: Layout, target: Layout, instance: Instance, large_io: int) -> Sides:
    """Both layouts on the instance the move runs on (the host's own): the source read, the target written."""
    src = predict(source, instance, IoWorkload(read_pct=100, large_io=large_io), cat, with_curve=False)
    dst = predict(target, instance, IoWorkload(read_pct=0, large_io=large_io), cat, with_curve=False)
    caps = instance_caps(cat, instance, source.volume.type)
    share, rule = copy_share(caps.mbps, caps.direction, caps.mbps_rule)
    return Sides(src, dst, share, rule)


def migrations(cat: Catalog, found: Found, target: Candidate, large_io: int, manager: str) -> list[Migration]:
    """The ways the data can move from FOUND onto TARGET, each with its duration: a block copy where the target
    holds the whole device, a file copy of the bytes in use, an LVM mirror from an LV onto an LVM stripe, an ASM
    rebalance from a disk group onto ASM disks (at power 1 and at the power that reaches the copy's rate)."""
    s = sides(cat, found.layout, target.layout_detail, found.instance or target.instance_detail, large_io)
    size = found.device_bytes if found.device_bytes is not None else int(found.layout.total_gb * GIB)
    holds = target.layout_detail.usable_gb * GIB >= size
    source_manager = found.layout.manager
    out: list[Migration] = []
    if source_manager != "asm":
        if holds:
            out.append(offline_block_copy(s, size))
        if found.used_bytes is not None:
            out.append(offline_file_copy(s, found.used_bytes))
        if source_manager == "lvm" and manager == "lvm" and holds and target.layout_detail.members > 1:
            out.append(lvm_mirror(s, size))
    elif manager == "asm":
        out += _rebalances(s, found.used_bytes if found.used_bytes is not None else size, target)
    return out


def _rebalances(s: Sides, data: int, target: Candidate) -> list[Migration]:
    """An ASM rebalance of DATA bytes onto the target's disks, at power 1 and at the power that reaches the copy's
    rate (one entry where they are the same); at the target's allocation unit where it names one."""
    au = target.layout_detail.stripe_size or None
    power = power_to_reach(s, au) if au else power_to_reach(s)
    return [asm_rebalance(s, data, p, au) if au else asm_rebalance(s, data, p) for p in sorted({1, power})]
