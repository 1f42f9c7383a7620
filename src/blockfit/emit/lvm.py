"""LVM stripe: pvcreate, vgcreate/vgextend, lvcreate -i N -I STRIPE with an extent count divisible by N,
verified with `lvs --segments` (N stripes of the asked size). In online-migration mode the step only adds
the new PVs to the source's VG; 30-migrate-online.sh builds the stripe as a mirror leg."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep
from blockfit.units import fmt_count

MIB = 1024 * 1024


def extent_bytes(stripe_bytes: int) -> int:
    """Physical extent size: LVM's 4 MiB default, raised to the stripe when the stripe is larger
    (lvcreate refuses a stripe larger than the extent)."""
    return max(4 * MIB, stripe_bytes)


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    online = ctx.online
    vg, lv = ctx.source_vg_lv if online else (ctx.vg, ctx.lv)
    desc = (f"add the {fmt_count(ctx.members, 'new device')} to volume group {vg} for the online migration"
            if online else
            (f"LVM: volume group {vg}, logical volume {lv} striped over {ctx.members} devices in "
             f"{ctx.stripe_bytes // 1024} KiB stripes" if ctx.members > 1 else
             f"LVM: volume group {vg}, logical volume {lv} on one device"))
    if not online:
        ctx.checks.append(f"A volume group named {vg} that already holds other devices is never extended: the step "
                          "stops.")
    step = BuildStep(order=20, name="lvm", path="20-lvm.sh", kind="volume-manager", touches_devices=True,
                     description=desc)
    text = render_script("lvm.sh.j2", step, ctx.source, vg=vg, lv=lv, devices=ctx.devices, stripes=ctx.members,
                         stripe_bytes=ctx.stripe_bytes if ctx.members > 1 else 0,
                         pe_bytes=extent_bytes(ctx.stripe_bytes), mode="extend" if online else "create")
    return [GeneratedFile(step, text)]
