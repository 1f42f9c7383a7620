"""Host-side per-device caps: cgroup v1 blkio throttles and cgroup v2 io.max, read from the cgroup tree.

These are real caps that show up as IOPS or MB/s pinned below what the device can do (docker
--device-read-iops, systemd IOReadIOPSMax, our test beds). They only bind for tasks in that cgroup,
so a Finding built on one says which cgroup set it.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

_V1_FILES = {
    "blkio.throttle.read_iops_device": "read_iops",
    "blkio.throttle.write_iops_device": "write_iops",
    "blkio.throttle.read_bps_device": "read_bps",
    "blkio.throttle.write_bps_device": "write_bps",
}
_V2_KEYS = {"riops": "read_iops", "wiops": "write_iops", "rbps": "read_bps", "wbps": "write_bps"}


class ThrottleCap(BaseModel):
    dev: str = Field(description="major:minor")
    kind: str = Field(description="read_iops | write_iops | read_bps | write_bps")
    value: float
    cgroup: str


def _walk(root: Path, max_dirs: int = 5000) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, _files in os.walk(root):
        found.append(Path(dirpath))
        if len(found) >= max_dirs:
            dirnames.clear()
    return found


def _v1_caps(v1: Path) -> list[ThrottleCap]:
    """cgroup v1: one `MAJ:MIN VALUE` line per throttled device, a file per kind."""
    caps: list[ThrottleCap] = []
    for d in _walk(v1):
        for fname, kind in _V1_FILES.items():
            try:
                text = (d / fname).read_text()
            except OSError:
                continue
            for line in text.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1].isdigit() and int(parts[1]) > 0:
                    caps.append(ThrottleCap(dev=parts[0], kind=kind, value=float(parts[1]),
                                            cgroup="blkio:" + str(d.relative_to(v1))))
    return caps


def _v2_caps(v2: Path) -> list[ThrottleCap]:
    """cgroup v2: io.max lines `MAJ:MIN riops=N wbps=max ...`; `max` means no cap."""
    caps: list[ThrottleCap] = []
    for d in _walk(v2):
        try:
            text = (d / "io.max").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            parts = line.split()
            for kv in parts[1:]:
                key, _, val = kv.partition("=")
                if key in _V2_KEYS and val.isdigit():
                    caps.append(ThrottleCap(dev=parts[0], kind=_V2_KEYS[key], value=float(val),
                                            cgroup="io:" + str(d.relative_to(v2))))
    return caps


def read_caps(cgroup_root: Path = Path("/sys/fs/cgroup")) -> list[ThrottleCap]:
    caps: list[ThrottleCap] = []
    v1 = cgroup_root / "blkio"
    if v1.is_dir():
        caps += _v1_caps(v1)
    v2 = cgroup_root / "unified" if (cgroup_root / "unified").is_dir() else cgroup_root
    if (v2 / "cgroup.controllers").exists():
        caps += _v2_caps(v2)
    return caps
