"""Filesystem: mkfs.xfs -d su=STRIPE,sw=N (ext4: -E stride=,stripe_width= in 4 KiB blocks; N counts the members
that hold distinct data: half of them in an mdadm RAID10), an fstab line
by UUID with nofail,noatime, and the mount. After an offline migration the step adopts the copied
filesystem instead: a new UUID for the copy, the fstab line swapped, the filesystem grown to the stripe.

Barriers/flushes stay on: turning them off (ext4 barrier=0) is only safe when every volatile cache on the
path is battery-backed or non-volatile; XFS has not accepted nobarrier since Linux 4.19
(https://docs.kernel.org/admin-guide/xfs.html)."""

from __future__ import annotations

import os

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep

FS_BLOCK = 4096
MOUNT_OPTIONS = "defaults,nofail,noatime"


def mkfs_command(fs: str, label: str, stripe_bytes: int, data_members: int, striped: bool | None = None) -> list[str]:
    """The mkfs argv (device appended by the script), with the stripe geometry when there is a stripe: su = the
    stripe unit, sw = the members holding distinct data (1 for a two-volume RAID10, which is still striped)."""
    striped = data_members > 1 if striped is None else striped
    if fs == "xfs":
        cmd = ["mkfs.xfs", "-L", label]
        if striped:
            cmd += ["-d", f"su={stripe_bytes // 1024}k,sw={data_members}"]
        return cmd
    cmd = ["mkfs.ext4", "-b", str(FS_BLOCK), "-L", label]
    if striped:
        stride = ext4_stride(stripe_bytes)
        cmd += ["-E", f"stride={stride},stripe_width={stride * data_members}"]
    return cmd


def ext4_stride(stripe_bytes: int) -> int:
    """ext4 stride: the stripe in filesystem blocks (4 KiB)."""
    return max(1, stripe_bytes // FS_BLOCK)


def fs_label(mount: str) -> str:
    """A label from the mount point (XFS allows 12 characters): /u01 → u01."""
    base = os.path.basename(mount.rstrip("/")) or "data"
    return "".join(c for c in base if c.isalnum() or c in "_-")[:12] or "data"


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    """A new filesystem on the build's target, or, after an offline migration, the copied one adopted."""
    device = ctx.target_device
    assert ctx.mount is not None and device is not None
    mode = "adopt" if ctx.migrate_from else "mkfs"
    label = fs_label(ctx.mount)
    desc = (f"{ctx.fs} on {device} aligned to the stripe, an fstab line by UUID ({MOUNT_OPTIONS}), mounted at "
            f"{ctx.mount}" if mode == "mkfs" else
            f"adopt the copied filesystem on {device}: a new UUID, its fstab line by UUID, mounted at {ctx.mount}, "
            "grown to the device")
    if mode == "mkfs":
        ctx.checks.append(f"fstab keeps every line it has: a mount point ({ctx.mount}) that fstab already gives to "
                          "another filesystem is refused.")
    else:
        ctx.checks.append(f"fstab: the source's line for {ctx.mount} is commented out, not deleted, and the copy's "
                          "line is added after it.")
    step = BuildStep(order=40, name="filesystem", path="40-filesystem.sh", kind="filesystem",
                     touches_devices=True, description=desc)
    text = render_script("filesystem.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_FSTAB", "default /etc/fstab")],
                         device=device, fs=ctx.fs, mount=ctx.mount, label=label, mode=mode,
                         mkfs=mkfs_command(ctx.fs, label, ctx.stripe_bytes, ctx.data_members, striped=ctx.members > 1),
                         options=MOUNT_OPTIONS, fsck_pass=0 if ctx.fs == "xfs" else 2, members=ctx.devices)
    return [GeneratedFile(step, text)]
