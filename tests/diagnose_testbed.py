"""Small real test bed for diagnose tests: loop devices over files, a cgroup-v1 blkio throttle, mounts.

Loop devices and blkio cgroups come from blockfit.testbed.loopdev (unique names, released even when a test
fails); this module adds what the diagnose tests share on top: mounts, fio in a cgroup, and running
`blockfit diagnose` while fio loads a device.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from blockfit.testbed import loopdev

BLOCKFIT = [sys.executable, "-c", "from blockfit.cli import main; main()"]  # the CLI, whatever the venv layout


def unique(tag: str) -> str:
    return loopdev.unique_name(f"diagnose-{tag}")


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    for tool in ("fio", "losetup", "mkfs.ext4"):
        if shutil.which(tool) is None:
            return f"{tool} missing"
    if not loopdev.BLKIO_ROOT.is_dir():
        return "no cgroup-v1 blkio hierarchy"
    return None


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix=unique("dir") + "-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def loop_device(directory: Path, size_mb: int = 256, direct_io: bool = True) -> Iterator[str]:
    """A loop device over a sparse file in `directory`; yields the kernel name (loopN)."""
    with loopdev.loop_device(size_mb * 1024 * 1024, name="diagnose", directory=directory, direct_io=direct_io) as dev:
        yield dev.name


@contextlib.contextmanager
def mounted(dev: str, directory: Path, options: str) -> Iterator[Path]:
    mnt = directory / unique("mnt")
    mnt.mkdir()
    run(["mount", "-o", options, f"/dev/{dev}", str(mnt)])
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False, capture_output=True)
        mnt.rmdir()


@contextlib.contextmanager
def blkio_cgroup(limits: dict[str, int], dev: str) -> Iterator[Path]:
    """A child blkio cgroup with throttle limits on `dev` (keys: read_iops, write_iops, read_bps, write_bps)."""
    majmin = Path(f"/sys/class/block/{dev}/dev").read_text().strip()
    with loopdev.blkio_cgroup("diagnose") as cgroup:
        cgroup.limit(majmin, **limits)
        yield cgroup.path


def fio(args: list[str], cgroup: Path | None = None) -> dict:  # type: ignore[type-arg]
    """Run fio (inside `cgroup` when given) and return its JSON result."""
    cmd = ["fio", "--output-format=json"] + args
    if cgroup is not None:
        cmd = ["sh", "-c", f'echo $$ > {cgroup}/cgroup.procs && exec "$@"', "sh"] + cmd
    out = run(cmd).stdout
    return json.loads(out[out.index("{"):])


def diagnose_during(fio_args: list[str], devices: list[str], seconds: int, record: Path | None = None,
                    cgroup: Path | None = None, extra: list[str] | None = None,
                    timed: bool = False) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """Run `blockfit diagnose --json` over `seconds` while fio runs alongside; returns (diagnosis, fio result).

    timed: fio_args already set their own runtime (multi-phase jobs); otherwise fio runs seconds + 2.
    """
    result: dict = {}  # type: ignore[type-arg]
    tail = [] if timed else [f"--runtime={seconds + 2}", "--time_based"]

    def load() -> None:
        result["fio"] = fio(fio_args + tail, cgroup)

    worker = threading.Thread(target=load)
    worker.start()
    cmd = BLOCKFIT + ["diagnose", "--json", "--interval", "1s", "--duration", f"{seconds}s",
                      "--devices", ",".join(devices)] + (["--record", str(record)] if record else []) + (extra or [])
    try:
        proc = run(cmd)
    finally:
        worker.join()
    return json.loads(proc.stdout), result["fio"]


def replay(record: Path, extra: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    return json.loads(run(BLOCKFIT + ["diagnose", "--json", "--replay", str(record)] + (extra or [])).stdout)


def kinds(diagnosis: dict, device: str) -> set[str]:  # type: ignore[type-arg]
    return {f["kind"] for f in diagnosis["findings"] if f["device"] == device}
