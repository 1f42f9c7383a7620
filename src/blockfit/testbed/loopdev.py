"""Known-cap block devices for tests and benchmarks: loop devices over sparse files, throttled by cgroup-v1 blkio.

A loop device attached with direct I/O (``losetup --direct-io=on``) over a sparse file is a block device whose
only limits are the ones we set: ``blkio.throttle.read_iops_device`` / ``read_bps_device`` (and the write
counterparts) in a cgroup we create. Processes run inside that cgroup (``BlkioCgroup.wrap``) see those caps.

Everything is named with the caller's ``name`` and our pid so concurrent users on one machine never collide, and
every context manager removes what it created (loop device, backing file, cgroup) even on Ctrl-C.

Kernel quirk seen on 6.x: an I/O larger than the loop device's segment limit (4 KiB pages × ``max_segments``,
i.e. 512 KiB here) is split, and the bps throttle charges the split I/O twice; measure bps caps with I/O
sizes of 512 KiB or less.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from blockfit import cgroups, proc
from blockfit.cgroups import BLKIO_ROOT, unique_name
from blockfit.devices import sysfs
from blockfit.errors import EnvironmentProblem


@dataclass
class LoopDevice:
    """An attached loop device and the sparse file behind it."""

    path: str
    backing_file: Path
    size_bytes: int

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def major_minor(self) -> str:
        st = os.stat(self.path)
        return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"

    @property
    def direct_io(self) -> bool:
        return sysfs.read_text(sysfs.class_dir(self.name) / "loop" / "dio") == "1"


@dataclass
class BlkioCgroup:
    """A cgroup-v1 blkio child group with per-device throttle limits."""

    path: Path
    limits: dict[str, dict[str, int]] = field(default_factory=dict)

    def limit(self, major_minor: str, *, read_iops: int | None = None, read_bps: int | None = None,
              write_iops: int | None = None, write_bps: int | None = None) -> None:
        """Set throttle caps for one device (None leaves that knob unlimited)."""
        knobs = {"read_iops_device": read_iops, "read_bps_device": read_bps,
                 "write_iops_device": write_iops, "write_bps_device": write_bps}
        for knob, value in knobs.items():
            if value is not None:
                (self.path / f"blkio.throttle.{knob}").write_text(f"{major_minor} {int(value)}\n")
                self.limits.setdefault(major_minor, {})[knob] = int(value)

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """Command line that moves itself into this cgroup, then execs argv (children inherit the cgroup)."""
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.procs_file), *argv]

    def launcher(self) -> list[str]:
        """Prefix for a command line (``[*launcher, 'fio', ...]``), same effect as ``wrap``."""
        return self.wrap([])


def require_root_tools() -> None:
    """Raise EnvironmentProblem unless we can attach loop devices and throttle them."""
    if os.geteuid() != 0:
        raise EnvironmentProblem("loop devices and blkio cgroups need root")
    if shutil.which("losetup") is None:
        raise EnvironmentProblem("losetup not found (install util-linux)")
    if not (BLKIO_ROOT / "cgroup.procs").exists():
        raise EnvironmentProblem(f"cgroup-v1 blkio controller not mounted at {BLKIO_ROOT}")


@contextlib.contextmanager
def loop_device(size_bytes: int, name: str = "testbed", directory: str | os.PathLike[str] | None = None,
                direct_io: bool = True, partscan: bool = False,
                backing_file: Path | None = None) -> Iterator[LoopDevice]:
    """Attach a loop device over a new sparse file; detach it and delete the file on exit.

    ``partscan`` makes the kernel create partition devices (loopNp1, ...) for a partition table written later.
    ``backing_file``: attach this existing file instead (a second path to the same storage); it is kept.
    """
    require_root_tools()
    workdir = Path(tempfile.mkdtemp(prefix=unique_name(name) + "-", dir=directory))
    backing = backing_file or workdir / "backing.img"
    device: str | None = None
    try:
        if backing_file is None:
            with open(backing, "wb") as fh:
                fh.truncate(size_bytes)
        else:
            size_bytes = backing_file.stat().st_size
        cmd = ["losetup", "--find", "--show"]
        if direct_io:
            cmd.append("--direct-io=on")
        if partscan:
            cmd.append("--partscan")
        out = proc.run([*cmd, str(backing)], timeout=120)
        if out.returncode != 0:
            raise EnvironmentProblem(f"losetup failed: {out.stderr.strip()}")
        device = out.stdout.strip()
        yield LoopDevice(path=device, backing_file=backing, size_bytes=size_bytes)
    finally:
        if device:
            _detach(device)
        shutil.rmtree(workdir, ignore_errors=True)


def _detach(device: str) -> None:
    for _ in range(50):
        if proc.run(["losetup", "-d", device], timeout=120).returncode == 0:
            return
        proc.run(["udevadm", "settle"], timeout=120)
    raise EnvironmentProblem(f"could not detach {device}")


@contextlib.contextmanager
def blkio_cgroup(name: str = "testbed") -> Iterator[BlkioCgroup]:
    """Create a child blkio cgroup; on exit move any leftover tasks to the root group and remove it."""
    require_root_tools()
    path = BLKIO_ROOT / unique_name(name)
    path.mkdir()
    try:
        yield BlkioCgroup(path=path)
    finally:
        cgroups.remove(path, BLKIO_ROOT)


@dataclass
class ThrottledLoops:
    """Several capped loop devices sharing one cgroup (run the load through ``cgroup.wrap``)."""

    devices: list[LoopDevice]
    cgroup: BlkioCgroup

    @property
    def paths(self) -> list[str]:
        return [d.path for d in self.devices]


@contextlib.contextmanager
def throttled_loops(count: int = 1, size_bytes: int = 4 * 1024**3, *, read_iops: int | None = None,
                    read_bps: int | None = None, write_iops: int | None = None, write_bps: int | None = None,
                    name: str = "testbed", directory: str | os.PathLike[str] | None = None) -> Iterator[ThrottledLoops]:
    """``count`` loop devices, each capped at the given limits, inside one fresh cgroup; all removed on exit."""
    with contextlib.ExitStack() as stack:
        cgroup = stack.enter_context(blkio_cgroup(name))
        devices = [stack.enter_context(loop_device(size_bytes, name, directory)) for _ in range(count)]
        for dev in devices:
            cgroup.limit(dev.major_minor, read_iops=read_iops, read_bps=read_bps,
                         write_iops=write_iops, write_bps=write_bps)
        yield ThrottledLoops(devices=devices, cgroup=cgroup)
