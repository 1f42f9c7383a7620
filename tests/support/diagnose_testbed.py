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
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
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


def _fio_argv(args: list[str], cgroup: Path | None = None) -> list[str]:
    cmd = ["fio", "--output-format=json"] + args
    if cgroup is not None:
        cmd = ["sh", "-c", f'echo $$ > {cgroup}/cgroup.procs && exec "$@"', "sh"] + cmd
    return cmd


def _fio_json(out: str) -> dict:  # type: ignore[type-arg]
    return json.loads(out[out.index("{"):])  # type: ignore[no-any-return]


def fio(args: list[str], cgroup: Path | None = None) -> dict:  # type: ignore[type-arg]
    """Run fio (inside `cgroup` when given) and return its JSON result."""
    return _fio_json(run(_fio_argv(args, cgroup)).stdout)


def _completed_ios(device: str) -> int:
    fields = Path(f"/sys/block/{device}/stat").read_text().split()
    return int(fields[0]) + int(fields[4])


def _wait(what: str, ready: Callable[[], bool], proc: subprocess.Popen[str], timeout_s: float = 180) -> None:
    """Until READY; AssertionError naming WHAT if PROC ends first or the (safety-net) timeout passes."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if proc.poll() is not None:
            raise AssertionError(f"{what}: the process ended first ({proc.returncode}): {proc.communicate()[1][-500:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(0.1)


def diagnose_during(fio_args: list[str], devices: list[str], seconds: int, record: Path | None = None,
                    cgroup: Path | None = None, extra: list[str] | None = None,
                    timed: bool = False) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """Run `blockfit diagnose --json` over `seconds` while fio loads the devices; returns (diagnosis, fio result).

    On a busy host a Python CLI can take longer to start than a short fio job runs, so nothing here depends on
    when either starts: fio runs until diagnose has sampled its whole window and is then stopped (its JSON is
    written on SIGINT), and diagnose starts once fio's first I/O completed. timed: fio_args set their own
    runtime (phases that must fall inside the sampled window): diagnose starts first, fio once the first sample
    is recorded, and fio runs its course.
    """
    cmd = BLOCKFIT + ["diagnose", "--json", "--interval", "1s", "--duration", f"{seconds}s",
                      "--devices", ",".join(devices)] + (["--record", str(record)] if record else []) + (extra or [])
    if timed:
        assert record is not None, "a timed load needs --record to see when sampling started"
        diag = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            def sampling() -> bool:   # the recording grows in its temp file beside the target (files.py)
                temps = [p for p in record.parent.glob(f".{record.name}.*") if not p.name.endswith("-lock")]
                return any(len(p.read_text().splitlines()) >= 2 for p in temps)

            _wait("diagnose's first sample", sampling, diag)
            load = fio(fio_args, cgroup)
            out, err = diag.communicate(timeout=600)
        finally:
            if diag.poll() is None:
                diag.kill()
                diag.wait()
        assert diag.returncode == 0, err[-1000:]
        return json.loads(out), load
    argv = _fio_argv(fio_args + ["--runtime=600", "--time_based"], cgroup)
    worker = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        before = _completed_ios(devices[0])
        _wait("fio's first I/O", lambda: _completed_ios(devices[0]) != before, worker)
        proc = run(cmd)
        worker.send_signal(signal.SIGINT)
        fio_out, fio_err = worker.communicate(timeout=120)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    return json.loads(proc.stdout), _fio_json(fio_out)


def replay(record: Path, extra: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    return json.loads(run(BLOCKFIT + ["diagnose", "--json", "--replay", str(record)] + (extra or [])).stdout)


def kinds(diagnosis: dict, device: str) -> set[str]:  # type: ignore[type-arg]
    return {f["kind"] for f in diagnosis["findings"] if f["device"] == device}
