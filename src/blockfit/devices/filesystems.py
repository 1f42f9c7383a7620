"""Mounted filesystems on block devices: where, on which device, with which options, and how full.

From /proc/self/mountinfo (mountinfo.py) and statvfs(2) of each mount point; filesystems on no block device
(proc, tmpfs, NFS) are left out. XFS shows its stripe unit and width as `sunit=`/`swidth=` in 512-byte sectors.
On a copy of another host's tree (--root) the mount points are that host's, so statvfs is not asked.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

from blockfit.devices import mountinfo
from blockfit.devices.sysfs import name_of

MAX_MOUNTINFO = 4 * 1024 * 1024  # a host with thousands of mounts has a few hundred KB


class FilesystemUse(BaseModel):
    mount_point: str
    device: str = Field(description="kernel name of the device it is mounted from")
    fstype: str
    options: list[str]
    barrier: bool | None = None
    noatime: bool
    xfs_sunit_bytes: int | None = None
    xfs_swidth_bytes: int | None = None
    size_bytes: int | None = None
    used_bytes: int | None = None


def _sectors(mount: mountinfo.Mount, key: str) -> int | None:
    value = mount.option(key)
    return int(value) * 512 if value is not None and value.isdigit() and mount.fstype == "xfs" else None


def _usage(mount_point: str) -> tuple[int | None, int | None]:
    try:
        st = os.statvfs(mount_point)
    except OSError:
        return None, None
    return st.f_blocks * st.f_frsize, (st.f_blocks - st.f_bfree) * st.f_frsize


def read_filesystems(root: Path) -> list[FilesystemUse]:
    """The block-device filesystems ROOT's mountinfo lists; one entry per device (the first mount of a bind)."""
    path = root / "proc" / "self" / "mountinfo"
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            mounts = mountinfo.parse(fh.read(MAX_MOUNTINFO), str(path))
    except OSError:
        return []
    here = root.resolve() == Path("/")
    found: list[FilesystemUse] = []
    seen: set[str] = set()
    for m in mounts:
        device = name_of(m.dev, root / "sys")
        if device is None or device in seen:
            continue
        seen.add(device)
        size, used = _usage(m.mount_point) if here else (None, None)
        found.append(FilesystemUse(
            mount_point=m.mount_point, device=device, fstype=m.fstype, options=m.all_options, barrier=m.barriers,
            noatime="noatime" in m.mount_options, xfs_sunit_bytes=_sectors(m, "sunit"),
            xfs_swidth_bytes=_sectors(m, "swidth"), size_bytes=size, used_bytes=used))
    return found
