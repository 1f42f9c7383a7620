"""Migration onto the new stripe.

Offline: dd with direct I/O, bs=128M, status=progress, after identity and size checks of source and target,
then a full compare (BLOCKFIT_VERIFY=none skips it). Online (LVM): lvconvert --type mirror onto the new PVs
as a striped leg, wait for the sync, split off the old leg, vgreduce, pvremove — with the LV's extent count
made divisible by the stripe count before the lvconvert (lvconvert's "needs to be divisible by 8" error)."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep


def extents_to_add(extents: int, stripes: int) -> int:
    """Extents to add so the count divides by the stripe count (0 when it already does)."""
    return (-extents) % stripes


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    assert ctx.migrate_from is not None
    if ctx.online:
        vg, lv = ctx.source_vg_lv
        step = BuildStep(order=30, name="migrate-online", path="30-migrate-online.sh", kind="migrate",
                         touches_devices=True,
                         description=f"online: mirror logical volume {vg}/{lv} onto a {ctx.members}-way stripe, "
                                     "wait for the copy, split the old side off and remove the old devices")
        ctx.checks.append("The old devices leave the volume group only when nothing is allocated on them any more.")
        text = render_script("migrate_online.sh.j2", step, ctx.source,
                             env_doc=[("BLOCKFIT_SYNC_TIMEOUT", "seconds, default 0 = wait as long as it takes")],
                             vg=vg, lv=lv, devices=ctx.devices, stripes=ctx.members,
                             stripe_bytes=ctx.stripe_bytes if ctx.members > 1 else 0)
        return [GeneratedFile(step, text)]
    target = ctx.target_device
    assert target is not None
    step = BuildStep(order=30, name="migrate-offline", path="30-migrate-offline.sh", kind="migrate",
                     touches_devices=True,
                     description=f"offline: copy {ctx.migrate_from} to {target} with direct I/O in 128 MiB blocks, "
                                 "then compare the two")
    ctx.checks.append("The offline copy needs a blank target at least as large as the unmounted, unused source, and "
                      "compares the two byte for byte afterwards.")
    text = render_script("migrate_offline.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_VERIFY", "full (default) or none")],
                         source_dev=ctx.migrate_from, target=target)
    return [GeneratedFile(step, text)]
