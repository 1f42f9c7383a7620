"""Bed for `blockfit bench` tests and benches: ext4 on loop devices, capped by a cgroup-v1 blkio group.

Mount points live under a 0755 directory in /var/tmp (pytest's tmp_path is 0700 root, which the server user
``postgres`` cannot traverse). Caps are applied by the bench's own --before-measure hook, as the lab does:
the data is loaded uncapped, then measured capped.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from blockfit import proc
from blockfit.testbed.loopdev import BlkioCgroup, LoopDevice, blkio_cgroup, loop_device

GiB = 1024**3


@dataclass
class Bed:
    base: Path                  # 0755 directory holding the mount points (and a TMPDIR for the bench)
    mounts: list[Path]
    devices: list[LoopDevice]
    cgroup: BlkioCgroup
    tmpdir: Path

    def cap_hook(self, read_iops: list[int]) -> str:
        """A --before-measure command that applies read IOPS caps to each device, in order."""
        knob = self.cgroup.path / "blkio.throttle.read_iops_device"
        return " && ".join(f"echo '{d.major_minor} {cap}' > {knob}" for d, cap in zip(self.devices, read_iops,
                                                                                          strict=True))

    def enter(self) -> None:
        """Move the calling process into the blkio group (a bench run in-process; the server inherits it)."""
        self.cgroup.procs_file.write_text(f"{os.getpid()}\n")

    def apply_caps(self, read_iops: list[int]) -> None:
        for d, cap in zip(self.devices, read_iops, strict=True):
            self.cgroup.limit(d.major_minor, read_iops=cap)

    def argv(self, *args: str) -> list[str]:
        """The bench CLI, started inside the blkio cgroup so the server it starts is throttled too."""
        return self.cgroup.wrap([sys.executable, "-c", "from blockfit.cli import main; main()", "bench", *args])

    def env(self) -> dict[str, str]:
        return {**os.environ, "TMPDIR": str(self.tmpdir)}

    def procs(self) -> list[int]:
        return [int(p) for p in self.cgroup.procs_file.read_text().split()]


@contextlib.contextmanager
def ext4_bed(count: int, size: int = 2 * GiB) -> Iterator[Bed]:
    base = Path(tempfile.mkdtemp(prefix="blockfit-bench-test-", dir="/var/tmp"))
    base.chmod(0o755)
    tmpdir = base / "tmp"
    tmpdir.mkdir()
    tmpdir.chmod(0o1777)
    mounted: list[Path] = []
    try:
        with contextlib.ExitStack() as stack:
            cgroup = stack.enter_context(blkio_cgroup("bench-test"))
            devices = [stack.enter_context(loop_device(size, "bench-test")) for _ in range(count)]
            for i, dev in enumerate(devices):
                proc.run(["mkfs.ext4", "-q", "-F", dev.path], check=True, timeout=600)
                mnt = base / f"m{i}"
                mnt.mkdir()
                proc.run(["mount", dev.path, str(mnt)], check=True, timeout=120)
                mounted.append(mnt)
            try:
                yield Bed(base=base, mounts=mounted, devices=devices, cgroup=cgroup, tmpdir=tmpdir)
            finally:
                for mnt in mounted:
                    proc.run(["umount", str(mnt)], timeout=120)
    finally:
        proc.run(["rm", "-rf", "--one-file-system", str(base)], capture=False)
