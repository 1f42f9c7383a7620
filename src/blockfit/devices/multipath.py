"""dm-multipath maps: which dm devices are multipath, their path groups, and which paths are active.

A multipath map's slaves are paths to one volume, not stripe members: the rules must tell them apart.
sysfs shows only the map's uuid (dm/uuid "mpath-…" for maps multipathd makes); the path groups, the
selector and each path's state come from `dmsetup table` / `dmsetup status`, whose multipath formats
are documented in the kernel's Documentation/admin-guide/device-mapper/dm-multipath (table:
<#features> … <#hw-handler args> … <#path groups> <first group> then per group <selector> <#selector
args> … <#paths> <#path args> then per path <dev> <path args>; status: per group its state A/E/D, then
per path <dev> <A|F> <fail count> and the selector's per-path info).
"""

from __future__ import annotations

import shutil
import subprocess

from pydantic import BaseModel, Field

from blockfit import proc
from blockfit.devices.sysfs import BlockDevice


class MultipathPath(BaseModel):
    dev: str = Field(description="major:minor of the path device, as dmsetup prints it")
    name: str | None = Field(default=None, description="its kernel name (sdb, vdc), when known")
    active: bool = Field(description="'A' in dmsetup status (F = failed)")


class PathGroup(BaseModel):
    selector: str = Field(description="path selector, e.g. round-robin, service-time, queue-length")
    state: str = Field(description="A active (carries I/O) | E enabled (standby) | D disabled")
    paths: list[MultipathPath]


class MultipathMap(BaseModel):
    device: str = Field(description="kernel name of the map (dm-3)")
    name: str | None = None
    groups: list[PathGroup]

    @property
    def active_paths(self) -> list[MultipathPath]:
        """Paths I/O can go to now: the active paths of the active group (dm-mpath uses one group at a time)."""
        group = next((g for g in self.groups if g.state == "A"), self.groups[0] if self.groups else None)
        return [p for p in group.paths if p.active] if group else []


def _skip_counted(words: list[str], i: int) -> int:
    """Skip a '<count> <word>…' list starting at words[i]; return the index after it."""
    return i + 1 + int(words[i])


def parse(table: str, status: str, device: str, name: str | None = None,
          names_by_majmin: dict[str, str] | None = None) -> MultipathMap | None:
    """One map from its `dmsetup table` and `dmsetup status` lines (the part after 'START LENGTH multipath')."""
    t, s = table.split(), status.split()
    names = names_by_majmin or {}
    if "multipath" not in t or "multipath" not in s:
        return None
    t, s = t[t.index("multipath") + 1:], s[s.index("multipath") + 1:]
    try:
        i = _skip_counted(t, 0)  # features
        i = _skip_counted(t, i)  # hardware handler
        n_groups = int(t[i])
        i += 2  # number of groups, first group
        j = _skip_counted(s, 0)
        j = _skip_counted(s, j)
        j += 2
        groups = []
        for _ in range(n_groups):
            selector = t[i]
            i = _skip_counted(t, i + 1)
            n_paths, n_path_args = int(t[i]), int(t[i + 1])
            i += 2
            state = s[j]
            j = _skip_counted(s, j + 1)  # selector status for the group
            n_info = int(s[j + 1])
            j += 2
            paths = []
            for _ in range(n_paths):
                dev = t[i]
                i += 1 + n_path_args
                active = s[j + 1] == "A"
                j += 3 + n_info
                paths.append(MultipathPath(dev=dev, name=names.get(dev), active=active))
            groups.append(PathGroup(selector=selector, state=state, paths=paths))
    except (IndexError, ValueError):
        return None
    return MultipathMap(device=device, name=name, groups=groups)


def _dmsetup(args: list[str], timeout: float) -> dict[str, str]:
    """dm name → its first target line, from `dmsetup ARGS` (multipath maps have one target)."""
    try:
        out = proc.run(["dmsetup", *args], timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    lines: dict[str, str] = {}
    for line in out.stdout.splitlines() if out.returncode == 0 else []:
        name, _, rest = line.partition(": ")
        lines.setdefault(name, rest)
    return lines


def read_maps(devices: dict[str, BlockDevice], timeout: float = 10.0) -> list[MultipathMap]:
    """Every multipath map among DEVICES; empty where dmsetup is absent (hosts without device-mapper)."""
    dms = {d.dm_name: d for d in devices.values() if d.kind == "dm" and d.dm_name}
    if not dms or shutil.which("dmsetup") is None:
        return []
    tables = _dmsetup(["table", "--target", "multipath"], timeout)
    statuses = _dmsetup(["status", "--target", "multipath"], timeout)
    by_majmin = {d.dev: d.name for d in devices.values() if d.dev}
    maps = []
    for name, table in tables.items():
        dev = dms.get(name)
        if dev is None or name not in statuses:
            continue
        parsed = parse(table, statuses[name], dev.name, name, by_majmin)
        if parsed is not None:
            maps.append(parsed)
    return maps


def is_multipath(dev: BlockDevice | None, maps: list[MultipathMap]) -> bool:
    """dm/uuid 'mpath-…' (multipathd's maps) or a map whose table target is multipath."""
    if dev is None or dev.kind != "dm":
        return False
    return (dev.dm_uuid or "").startswith("mpath-") or any(m.device == dev.name for m in maps)
