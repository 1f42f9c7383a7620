"""A memory cgroup around the PostgreSQL server's process tree, so shared buffers plus page cache are bounded.

Why: a benchmark whose data fits in memory measures memory, not the layout. The server (and every backend
it forks) runs inside the group; loaders and clients stay outside, so only the server is charged.

cgroup v1 (this host): ``/sys/fs/cgroup/memory/<our group>/blockfit-…/memory.limit_in_bytes``, OOM kills in
``memory.oom_control`` (``oom_kill N``). cgroup v2 (the lab guest): a child of the hierarchy's root with
``+memory`` enabled in the root's ``cgroup.subtree_control``, ``memory.max``, OOM kills in ``memory.events``.
An OOM kill makes the run fail instead of being measured (the guest showed the server restarting in
crash recovery after one).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from blockfit import cgroups
from blockfit.cgroups import CGROUP_ROOT, unique_name
from blockfit.errors import EnvironmentProblem


@dataclass
class MemoryCgroup:
    path: Path
    version: Literal[1, 2]
    limit_bytes: int

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def pids(self) -> list[int]:
        return cgroups.pids(self.path)

    def enter(self) -> None:
        """Move the calling process into the group (used in the server's child before exec)."""
        cgroups.join(self.path)

    def oom_kills(self) -> int:
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def peak_bytes(self) -> int | None:
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        for fname in (name, "memory.current" if self.version == 2 else "memory.usage_in_bytes"):
            with contextlib.suppress(OSError, ValueError):
                return int((self.path / fname).read_text().split()[0])
        return None

    def drop_cache(self) -> bool:
        """Reclaim the group's page cache (v1 memory.force_empty, v2 memory.reclaim); False if not possible."""
        try:
            if self.version == 1:
                (self.path / "memory.force_empty").write_text("0\n")
            else:
                (self.path / "memory.reclaim").write_text(f"{self.limit_bytes}\n")
            return True
        except OSError:
            return False  # v2 reclaim stops early with EAGAIN once nothing more can go; that is fine too

    def kill_all(self, timeout_s: float = 10.0) -> None:
        """SIGKILL every process left in the group and wait until it is empty."""
        if not cgroups.kill_all(self.path, timeout_s):
            raise EnvironmentProblem(f"processes {self.pids()} left in {self.path} after SIGKILL")


def remove(path: Path) -> None:
    """Kill what is left in the cgroup, then remove it."""
    cgroups.kill_all(path)
    root = CGROUP_ROOT / "memory" if (CGROUP_ROOT / "memory" / "cgroup.procs").exists() else CGROUP_ROOT
    cgroups.remove(path, root)


def detect() -> tuple[Literal[1, 2], Path]:
    """Which hierarchy to use and the parent to create our group under."""
    v1 = CGROUP_ROOT / "memory"
    if (v1 / "memory.limit_in_bytes").exists():
        parent = v1 / cgroups.own_v1_path("memory").lstrip("/")
        return 1, parent if parent.is_dir() else v1
    if (CGROUP_ROOT / "cgroup.controllers").exists():
        if "memory" not in (CGROUP_ROOT / "cgroup.controllers").read_text().split():
            raise EnvironmentProblem(f"cgroup v2 at {CGROUP_ROOT} has no memory controller")
        return 2, CGROUP_ROOT
    raise EnvironmentProblem(f"no memory cgroup: neither {v1}/memory.limit_in_bytes (v1) nor "
                             f"{CGROUP_ROOT}/cgroup.controllers (v2) exists")


@contextlib.contextmanager
def memory_cgroup(limit_bytes: int, name: str = "bench",
                  register: Callable[[str, Path], None] | None = None) -> Iterator[MemoryCgroup]:
    """A fresh memory cgroup limited to ``limit_bytes``; on exit its processes are killed and it is removed."""
    version, parent = detect()
    if version == 2:
        control = parent / "cgroup.subtree_control"
        if "memory" not in control.read_text().split():
            try:
                control.write_text("+memory\n")
            except OSError as exc:
                raise EnvironmentProblem(f"cannot enable the memory controller in {control}: {exc}") from None
    path = parent / unique_name(name)
    try:
        path.mkdir()
    except OSError as exc:
        raise EnvironmentProblem(f"cannot create memory cgroup {path}: {exc.strerror} (root needed)") from None
    if register is not None:
        register("cgroup", path)
    group = MemoryCgroup(path=path, version=version, limit_bytes=limit_bytes)
    try:
        if version == 1:
            (path / "memory.limit_in_bytes").write_text(f"{limit_bytes}\n")
        else:
            (path / "memory.max").write_text(f"{limit_bytes}\n")
            with contextlib.suppress(OSError):
                (path / "memory.swap.max").write_text("0\n")
        yield group
    finally:
        remove(path)
