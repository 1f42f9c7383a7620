"""cgroup files, for the throttled loop devices of tests and benches (testbed) and the bench's memory cgroup
(dbbench): name a group, join it, list and kill what is in it, remove it.

Why one module: a group is created, filled and removed the same way whatever its controller, and both users
must remove only groups they made (every name carries our pid) even when processes linger in them: cgroup
v1 refuses to remove a group that still has tasks, so what is left is moved to the hierarchy's root first.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from pathlib import Path

from blockfit.errors import EnvironmentProblem

CGROUP_ROOT = Path("/sys/fs/cgroup")
BLKIO_ROOT = CGROUP_ROOT / "blkio"
_counter = itertools.count()


def unique_name(name: str) -> str:
    """blockfit-NAME-PID-N: never the name of another process's group, nor of another of ours."""
    return f"blockfit-{name}-{os.getpid()}-{next(_counter)}"


def own_v1_path(controller: str, self_cgroup: str = "/proc/self/cgroup") -> str:
    """This process's group in the cgroup v1 hierarchy of CONTROLLER ('/' when none is listed)."""
    own = "/"
    for line in Path(self_cgroup).read_text().splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and controller in parts[1].split(","):
            own = parts[2]
    return own


def pids(path: Path) -> list[int]:
    """The processes in the group at ``path`` (none if it is gone)."""
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def join(path: Path) -> None:
    """Move the calling process into the group (a child does this before exec; its children inherit it)."""
    (path / "cgroup.procs").write_text(f"{os.getpid()}\n")


def kill_all(path: Path, timeout_s: float = 10.0) -> bool:
    """SIGKILL every process in the group until it is empty; False if some survive the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not (path / "cgroup.procs").exists():
            return True
        left = pids(path)
        if not left:
            return True
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
    return False


def remove(path: Path, root: Path) -> None:
    """rmdir the group, moving any task still in it to ``root`` (the hierarchy's root group) first."""
    for _ in range(100):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            for pid in pids(path):
                with contextlib.suppress(OSError):
                    (root / "cgroup.procs").write_text(f"{pid}\n")
            time.sleep(0.05)
    raise EnvironmentProblem(f"could not remove cgroup {path}")
