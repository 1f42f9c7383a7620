"""The names udev and the providers' own rules give disks under /dev, and the kernel device each one names.

Read: /dev/disk/by-id (nvme-Amazon_Elastic_Block_Store_vol…, google-NAME, scsi-…), /dev/disk/azure (Azure's
scsi1/lunN and data/by-lun/N), /dev/oracleoci (OCI's consistent device paths oraclevdb…), and the names ASM
disks go by: /dev/oracleasm/disks/NAME (ASMLib), /dev/oracleasm/NAME (blockfit build's udev rules) and
/dev/asm* (other udev rules). A link
is followed by its text (udev writes '../../sdb'); a node (ASMLib, a udev NAME= rule) by its device number. On a
host without udev (a minimal guest) there are none, and sysfs alone must say who a disk is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pydantic import BaseModel, Field

from blockfit.devices.sysfs import is_kernel_name, name_of

MAX_LINKS = 4096  # entries read per folder: a host has a few per disk
WALKED = ("disk/by-id", "disk/azure", "oracleoci", "oracleasm")


class DevLink(BaseModel):
    path: str = Field(description="the name as the host shows it, e.g. /dev/disk/azure/scsi1/lun2")
    device: str = Field(description="kernel name of the device it names (sdc, nvme1n1p1)")
    asm: bool = Field(default=False, description="an ASM disk name (/dev/oracleasm/…, /dev/asm*)")


def _target(path: Path, dev_root: Path, sys_root: Path) -> str | None:
    """The kernel name PATH names: a link's last component, a block node's device through sysfs."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            name = Path(os.readlink(path)).name
        except OSError:
            return None
    elif stat.S_ISBLK(st.st_mode):
        name = name_of(f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}", sys_root) or ""
    else:
        return None
    return name if is_kernel_name(name) else None


def _walk(folder: Path, limit: int) -> list[Path]:
    """Entries under FOLDER, depth first, links not followed, at most LIMIT."""
    found: list[Path] = []
    stack = [folder]
    while stack and len(found) < limit:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries[:limit]:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            else:
                found.append(Path(entry.path))
    return found[:limit]


def read_links(dev_root: Path, sys_root: Path) -> list[DevLink]:
    """Every provider, by-id and ASM name under DEV_ROOT that names a block device."""
    links: list[DevLink] = []
    paths = [p for sub in WALKED for p in _walk(dev_root / sub, MAX_LINKS)]
    try:
        paths += sorted(p for p in dev_root.glob("asm*") if not p.is_dir())[:MAX_LINKS]
    except OSError:
        pass
    for path in paths:
        device = _target(path, dev_root, sys_root)
        if device is None:
            continue
        shown = "/dev/" + path.relative_to(dev_root).as_posix()
        asm = shown.startswith(("/dev/oracleasm/", "/dev/asm"))
        links.append(DevLink(path=shown, device=device, asm=asm))
    return links
