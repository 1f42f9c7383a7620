"""One host's block stack as its kernel shows it, read in one go under a root directory ("/" for this host).

Everything `blockfit inspect` reports of the host comes through here: the sysfs tree (sysfs.py), each disk's
identity attributes (hardware.py), device-mapper tables (dmtable.py, `dmsetup table` only on this host), md
arrays, multipath maps (multipath.py), iSCSI sessions (iscsi.py), the names under /dev (devlinks.py), mounted
filesystems (filesystems.py) and DMI (dmi.py). Nothing is written and no device node is opened.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from blockfit.devices import dmtable, sysfs
from blockfit.devices.devlinks import DevLink, read_links
from blockfit.devices.dmi import Dmi, read_dmi
from blockfit.devices.filesystems import FilesystemUse, read_filesystems
from blockfit.devices.hardware import DiskHardware, raid_disks, read_hardware
from blockfit.devices.iscsi import IscsiSession, read_sessions
from blockfit.devices.multipath import MultipathMap, read_maps
from blockfit.devices.sysfs import BlockDevice, read_text


class HostStack(BaseModel):
    """What one read of a host's tree found; `here` is whether it is this host (tools were asked too)."""

    root: str
    here: bool
    hostname: str | None = None
    devices: dict[str, BlockDevice]
    hardware: dict[str, DiskHardware] = Field(default_factory=dict, description="whole disks only")
    dm: dict[str, dmtable.DmGeometry] = Field(default_factory=dict, description="dm devices by kernel name")
    md_raid_disks: dict[str, int] = Field(default_factory=dict)
    multipath_maps: list[MultipathMap] = Field(default_factory=list)
    sessions: list[IscsiSession] = Field(default_factory=list)
    links: list[DevLink] = Field(default_factory=list)
    filesystems: list[FilesystemUse] = Field(default_factory=list)
    dmi: Dmi = Field(default_factory=Dmi)


def _dm_geometry(dev: BlockDevice, tables: dict[str, list[dmtable.DmTarget]]) -> dmtable.DmGeometry:
    table = dmtable.from_table(tables.get(dev.dm_name or "", []))
    if table is not None:
        return table
    q = dev.queue
    return dmtable.from_queue(len(dev.slaves), q.minimum_io_size if q else None, q.optimal_io_size if q else None)


def read_stack(root: Path = Path("/")) -> HostStack:
    """Read ROOT's /sys, /proc and /dev. A ROOT other than / is a copy of another host's: no tool is run."""
    here = root.resolve() == Path("/")
    sys_root = root / "sys"
    devices = sysfs.read_topology(sys_root=sys_root) if (sys_root / "class" / "block").is_dir() else {}
    tables = dmtable.read_tables() if here and any(d.kind == "dm" for d in devices.values()) else {}
    stack = HostStack(root=str(root), here=here, devices=devices,
                      hostname=read_text(root / "proc" / "sys" / "kernel" / "hostname"))
    for dev in devices.values():
        if dev.kind in ("disk", "nvme", "loop", "other"):
            stack.hardware[dev.name] = read_hardware(dev.name, sys_root)
        elif dev.kind == "dm":
            stack.dm[dev.name] = _dm_geometry(dev, tables)
        elif dev.kind == "md":
            count = raid_disks(dev.name, sys_root)
            if count is not None:
                stack.md_raid_disks[dev.name] = count
    stack.multipath_maps = read_maps(devices) if here else []
    stack.sessions = read_sessions(root)
    stack.links = [link for link in read_links(root / "dev", sys_root) if link.device in devices]
    stack.filesystems = read_filesystems(root)
    stack.dmi = read_dmi(sys_root)
    return stack
