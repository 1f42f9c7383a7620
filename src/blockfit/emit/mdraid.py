"""mdadm RAID0: mdadm --create --level=0 --chunk=STRIPE, verified in sysfs, recorded in mdadm.conf
(with the initramfs rebuild the array needs to assemble at boot)."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    step = BuildStep(order=20, name="mdadm", path="20-mdadm.sh", kind="volume-manager", touches_devices=True,
                     description=f"mdadm RAID0 /dev/md/{ctx.md_name} over {ctx.members} devices, "
                                 f"chunk {ctx.stripe_bytes // 1024}K")
    text = render_script("mdadm.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_MDADM_CONF", "default /etc/mdadm/mdadm.conf or /etc/mdadm.conf")],
                         md=f"/dev/md/{ctx.md_name}", md_name=ctx.md_name, devices=ctx.devices,
                         members=ctx.members, chunk_bytes=ctx.stripe_bytes)
    return [GeneratedFile(step, text)]
