"""Run one bash script inside a fresh lab guest and collect what it left in the shared work dir.

The work dir is shared read-write over 9p at the same path as on the host, so the script finds its inputs
and writes its results (fio JSON, logs) where the host reads them. The script reports progress by
appending lines to WORK/progress; the host polls that file. The guest powers itself off when the
script ends; a boot deadline and an overall timeout cover a guest that hangs.

A run may also be given an idle limit: it fails once nothing in the work dir (progress, logs, result files, the
disk files qemu writes) changed for that long, which is how a hung guest shows; a slow one keeps writing.
The boot deadline counts qemu's own CPU time, not the wall clock: a guest that hangs while booting spins, and
runs out of it; a guest on a busy shared host gets less CPU each second and simply boots later (70 s of wall
time at load 15, past the 90 s wall deadline this replaced on a busier minute), which is no failure.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from blockfit.devices.procstat import process_cpu_seconds
from blockfit.lab.caps import CapControl
from blockfit.lab.disks import Disk, Throttle
from blockfit.lab.initramfs import ensure_initramfs
from blockfit.lab.kernel import GuestKernel
from blockfit.lab.qemu import QemuProcess, VmConfig
from blockfit.lab.qmp import Qmp

BOOT_CPU_S = 120.0  # qemu CPU seconds (user + system) the guest may take to boot
READY_MARK = "blockfit-lab: init ready"
FATAL_MARK = "blockfit-lab: FATAL"

Progress = Callable[[str], None]


@dataclass
class GuestOutcome:
    exit_status: int | None  # the script's exit status; None if it never finished
    elapsed_s: float
    timed_out: bool
    console_log: Path
    script_log: Path
    failure: str | None  # why the run failed, in one line, or None

    @property
    def ok(self) -> bool:
        return self.failure is None and self.exit_status == 0

    def console_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.console_log.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return ""


def last_change(work_dir: Path, since: float) -> float:
    """The latest modification time (epoch seconds) of a file in WORK_DIR, at least SINCE."""
    latest = since
    for entry in os.scandir(work_dir):
        try:
            latest = max(latest, entry.stat().st_mtime)
        except OSError:
            continue
    return latest


def under_tmp(paths: Sequence[Path]) -> list[str]:
    """The children of /tmp holding PATHS (resolved), which the guest's own /tmp would hide."""
    keep = set()
    for path in paths:
        resolved = path.resolve()
        if resolved.is_relative_to("/tmp") and len(resolved.parts) > 2:
            keep.add(str(Path(*resolved.parts[:3])))
    return sorted(keep)


def installation() -> list[Path]:
    """Where this blockfit runs from: its venv, its interpreter's directory, its package (a checkout's src/)."""
    import blockfit

    return [Path(sys.prefix), Path(sys.executable).parent, Path(blockfit.__file__).parent]


def run_script(kernel: GuestKernel, work_dir: Path, script: str, disks: list[Disk], instance: Throttle | None,
               timeout_s: float, progress: Progress | None = None, cpus: int = 2,
               memory_mib: int = 1024, caps: CapControl | None = None,
               pollers: Sequence[Callable[[], None]] = (), idle_s: float | None = None,
               keep: Sequence[Path] = (), smbios: Sequence[str] = ()) -> GuestOutcome:
    """Boot a guest with DISKS, run SCRIPT (bash) in it, wait for power-off or TIMEOUT_S; always stop qemu.

    With CAPS, qemu gets a QMP monitor (its socket in a private temp dir: a unix socket path must stay
    under 108 bytes, which a deep work dir may not) and the guest's cap requests are answered while it runs.
    POLLERS are called as often, to answer what else the guest writes to the work dir (e.g. the end of a
    measurement window). With IDLE_S the run also fails once the work dir saw no change for that long.
    The guest mounts a fresh tmpfs on /tmp; this installation (a checkout or venv under the host's /tmp) and KEEP
    are bound back into it from the host root, read-only. SMBIOS are qemu -smbios tables (the DMI the guest shows).
    """
    hidden = under_tmp([*installation(), *keep])
    initramfs = ensure_initramfs(kernel)
    script_path, progress_file = _fresh_files(work_dir, script)
    console = work_dir / "console.log"
    sock_dir = _qmp_dir(caps)
    cfg = VmConfig(vmlinux=kernel.vmlinux, initramfs=initramfs, work_dir=work_dir, script=script_path, disks=disks,
                   instance=instance, console_log=console, cpus=cpus, memory_mib=memory_mib,
                   name=f"blockfit-lab-{work_dir.name}",
                   extra_append=[f"blockfit.keep={','.join(hidden)}"] if hidden else [],
                   qmp_socket=caps.socket if caps is not None else None, smbios=list(smbios))
    try:
        vm = QemuProcess(cfg, work_dir / "qemu.log")
    except BaseException:
        _remove(sock_dir)
        raise
    watch = _Watch(work_dir=work_dir, console=console, timeout_s=timeout_s, idle_s=idle_s, started_wall=time.time())
    say = progress or (lambda _line: None)
    try:
        seen = _tend(vm, watch, caps, pollers, progress_file, say)
    finally:
        _stop(vm, caps, sock_dir)
    _relay(progress_file, seen, say)
    return _outcome(vm, work_dir, watch)


def _fresh_files(work_dir: Path, script: str) -> tuple[Path, Path]:
    """The script and an empty progress file written to the work dir, a previous run's exit status gone."""
    script_path = work_dir / "script.sh"
    script_path.write_text(script)
    progress_file = work_dir / "progress"
    progress_file.write_text("")
    (work_dir / "exit-status").unlink(missing_ok=True)
    return script_path, progress_file


def _qmp_dir(caps: CapControl | None) -> Path | None:
    """With CAPS, the private temp dir of qemu's QMP socket (a unix socket path must stay under 108 bytes), the
    socket named in CAPS; without, None."""
    if caps is None:
        return None
    sock_dir = Path(tempfile.mkdtemp(prefix="blockfit-qmp-"))
    caps.prepare()
    caps.socket = sock_dir / "qmp.sock"
    return sock_dir


def _tend(vm: QemuProcess, watch: _Watch, caps: CapControl | None, pollers: Sequence[Callable[[], None]],
          progress_file: Path, say: Progress) -> int:
    """Answer the running guest (its cap requests, the POLLERS) and pass on its progress lines until it powers off
    or must stop; returns how many progress lines were passed on."""
    if caps is not None and caps.socket is not None:
        caps.qmp = Qmp(caps.socket)
    seen = 0
    while vm.poll() is None:
        if caps is not None:
            caps.poll()
        for poll in pollers:
            poll()
        seen = _relay(progress_file, seen, say)
        if watch.must_stop(vm):
            break
        time.sleep(0.25)
    return seen


def _stop(vm: QemuProcess, caps: CapControl | None, sock_dir: Path | None) -> None:
    """On every way out: the QMP connection closed, qemu stopped, the socket's dir removed."""
    if caps is not None and caps.qmp is not None:
        caps.qmp.close()
        caps.qmp = None
    vm.stop()
    _remove(sock_dir)


def _remove(sock_dir: Path | None) -> None:
    if sock_dir is not None:
        shutil.rmtree(sock_dir, ignore_errors=True)


def _relay(progress_file: Path, seen: int, say: Progress) -> int:
    """Pass on the progress lines the guest added since the first SEEN; returns how many there are now."""
    lines = progress_file.read_text(errors="replace").splitlines()
    for line in lines[seen:]:
        say(line)
    return max(seen, len(lines))


@dataclass
class _Watch:
    """What stops a running guest early: a FATAL line on its console, no boot within BOOT_CPU_S of qemu CPU time,
    the overall timeout, or (once booted) IDLE_S without a change in the work dir."""

    work_dir: Path
    console: Path
    timeout_s: float
    idle_s: float | None
    started_wall: float
    ready: bool = False
    failure: str | None = None
    timed_out: bool = False

    def must_stop(self, vm: QemuProcess) -> bool:
        """One look at the guest; True (with `failure` said) when the run must end now."""
        elapsed = time.monotonic() - vm.started
        text = self.console.read_text(errors="replace") if self.console.exists() else ""
        self.ready = self.ready or READY_MARK in text
        if FATAL_MARK in text:
            self.failure = text[text.index(FATAL_MARK):].splitlines()[0]
            return True
        if not self.ready and process_cpu_seconds(vm.pid) > BOOT_CPU_S:
            return self._stop(f"guest did not boot within {BOOT_CPU_S:.0f} s of emulator CPU time "
                              f"({elapsed:.0f} s wall)")
        if elapsed > self.timeout_s:
            return self._stop(f"guest run exceeded its {self.timeout_s:.0f} s timeout")
        if self.ready and self.idle_s is not None \
                and time.time() - last_change(self.work_dir, self.started_wall) > self.idle_s:
            return self._stop(f"guest did nothing for {self.idle_s:.0f} s (nothing in its work dir changed)")
        return False

    def _stop(self, failure: str) -> bool:
        self.failure, self.timed_out = failure, True
        return True


def _outcome(vm: QemuProcess, work_dir: Path, watch: _Watch) -> GuestOutcome:
    """The run's outcome from what the guest left: its exit status file, or why it never wrote one."""
    elapsed = time.monotonic() - vm.started
    status: int | None = None
    status_file = work_dir / "exit-status"
    if status_file.exists():
        try:
            status = int(status_file.read_text().strip())
        except ValueError:
            status = None
    failure = watch.failure
    if failure is None and status is None:
        failure = f"guest stopped without finishing the script (qemu exit {vm.proc.returncode})"
    if failure is None and status != 0:
        failure = f"guest script failed with exit status {status}"
    return GuestOutcome(exit_status=status, elapsed_s=elapsed, timed_out=watch.timed_out, console_log=watch.console,
                        script_log=work_dir / "script.log", failure=failure)
