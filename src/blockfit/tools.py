"""The system tools commands drive, and the Debian package each comes from: checked before any work.

Why: the light install (pipx / uv tool) has none of them, and a command that fails minutes in, or with
a traceback, because fio or qemu is missing tells a user nothing. Each command names what it needs once,
up front; a missing tool is one line naming the Debian package, exit 4 (EnvironmentProblem).
"""

from __future__ import annotations

import os
import shutil

from blockfit.errors import EnvironmentProblem

# tool (a program on PATH) -> the Debian package that installs it
PACKAGES: dict[str, str] = {
    "fio": "fio",
    "qemu-system-x86_64": "qemu-system-x86",
    "busybox": "busybox-static",
    "modprobe": "kmod",
    "depmod": "kmod",
    "dpkg-deb": "dpkg",
    "apt-get": "apt",
    "apt-cache": "apt",
    "lvcreate": "lvm2",
    "mdadm": "mdadm",
    "mkfs.xfs": "xfsprogs",
    "mkfs.ext4": "e2fsprogs",
    "losetup": "util-linux",
    "pgbench": "postgresql-contrib",
    "chromium": "chromium",
    "shellcheck": "shellcheck",
}
# Administration tools live in sbin, which a user's PATH often leaves out (the lab's guest finds them there).
_SBIN_TOOLS = frozenset({"modprobe", "depmod", "lvcreate", "mdadm", "mkfs.xfs", "mkfs.ext4", "losetup"})
_SBIN = os.pathsep.join(("/usr/local/sbin", "/usr/sbin", "/sbin"))


def find(tool: str) -> str | None:
    """The tool's path: on PATH, or for an administration tool in sbin; None if it is not installed."""
    return shutil.which(tool) or (shutil.which(tool, path=_SBIN) if tool in _SBIN_TOOLS else None)


def require(command: str, *tools: str) -> None:
    """Raise EnvironmentProblem naming every missing tool and its Debian package in one line."""
    missing = [t for t in dict.fromkeys(tools) if find(t) is None]
    if not missing:
        return
    known = list(dict.fromkeys(PACKAGES[t] for t in missing if t in PACKAGES))
    hint = (f" (install the Debian package{'s' if len(known) > 1 else ''}: apt-get install {' '.join(known)})"
            if known else "")
    raise EnvironmentProblem(f"{command}: {', '.join(missing)} not found on PATH{hint}")
