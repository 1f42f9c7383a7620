"""mdadm RAID0, or RAID10 for a plan with --redundancy raid10: mdadm --create --level=0 --chunk=STRIPE (RAID10:
--level=10 --layout=n2, two copies of each chunk on neighbouring members), verified in sysfs, recorded in
mdadm.conf (with the initramfs rebuild the array needs to assemble at boot).

RAID10's initial resync reads every member in full at the volumes' caps; BLOCKFIT_MDADM_ASSUME_CLEAN=1 skips it
(--assume-clean) for new, never-written volumes, whose copies already agree (all zeros)."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep


def raid10_layout(copies: int) -> tuple[str, int]:
    """(mdadm --layout, md's sysfs layout word) of a near layout with the plan's copies: nN, near | far << 8 (far 1)."""
    return f"n{copies}", copies | 1 << 8


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    raid10 = ctx.md_level == "raid10"
    layout, layout_word = raid10_layout(ctx.copies)
    what = f"RAID10 (near layout, {ctx.copies} copies of every chunk)" if raid10 else "RAID0"
    step = BuildStep(order=20, name="mdadm", path="20-mdadm.sh", kind="volume-manager", touches_devices=True,
                     description=f"mdadm {what} /dev/md/{ctx.md_name} over {ctx.members} devices, "
                                 f"{ctx.stripe_bytes // 1024} KiB chunks")
    ctx.checks.append(f"An array name ({ctx.md_name}) that mdadm.conf already gives to another array is refused; "
                      "mdadm.conf keeps every line it has and gets the new array appended.")
    env_doc = [("BLOCKFIT_MDADM_CONF", "default /etc/mdadm/mdadm.conf or /etc/mdadm.conf")]
    if raid10:
        env_doc.append(("BLOCKFIT_MDADM_ASSUME_CLEAN", "1: new, never-written volumes (they read as zeros, so the "
                                                       "copies agree): --assume-clean, no initial resync"))
    text = render_script("mdadm.sh.j2", step, ctx.source, env_doc=env_doc,
                         md=f"/dev/md/{ctx.md_name}", md_name=ctx.md_name, devices=ctx.devices,
                         members=ctx.members, chunk_bytes=ctx.stripe_bytes, level=ctx.md_level,
                         raid10_layout=layout, raid10_sysfs_layout=layout_word, copies=ctx.copies)
    return [GeneratedFile(step, text)]
