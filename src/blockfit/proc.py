"""The one way blockfit runs a child process (fio, qemu, PostgreSQL, pgbench, lsblk, losetup, ...).

Why each rule: a child starts in its own session, so a Ctrl-C at the terminal reaches only blockfit, which
then stops the child's whole process group in order (fio forks a process per job, initdb a bootstrap
backend, qemu its helpers). It asks the kernel for SIGKILL when blockfit dies (a parent-death signal), so
not even a SIGKILLed blockfit leaves it running. Stopping is TERM to the group, a grace period, then KILL,
and returns only once nothing of the group is left (so nothing writes into a directory being deleted). A
child may run as another user (PostgreSQL refuses root) after a ``before`` hook that runs as root (joining
a cgroup, taking private namespaces); it then gets only the locale, time zone and PATH of root's environment.

The parent-death signal is sent when the thread that started the child ends: start a long-lived child
from the thread that will stop it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

_PR_SET_PDEATHSIG = 1
Stream = int | IO[Any] | None  # subprocess.PIPE / DEVNULL / STDOUT, an open file, or None (inherit)


@dataclass(frozen=True)
class RunAs:
    """The user a child runs as (root drops to it in the child, before exec)."""

    uid: int
    gid: int
    name: str


_HELD = {signal.SIGINT, signal.SIGTERM}
# What a child that drops from root to another user keeps of the environment: the locale, the time zone, PATH.
# Root's whole environment (cloud keys, BLOCKFIT_PROMETHEUS_TOKEN, PGPASSWORD) went along, readable in
# /proc/PID/environ by every process of that user for as long as the child ran: the bench's server runs as
# `postgres`, the user the machine's own PostgreSQL runs as.
_KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "TZ")


def set_parent_death_signal(libc: ctypes.CDLL | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (a forked worker calls it itself)."""
    with contextlib.suppress(OSError, AttributeError):
        (libc or ctypes.CDLL(None, use_errno=True)).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def child_setup(user: RunAs | None = None, before: Callable[[], None] | None = None,
                die_with_parent: bool = True) -> Callable[[], None]:
    """The function the child runs before exec: unblock the signals ``start`` held, ``before`` (still as
    root), drop to ``user``, then the parent-death signal (after the uid change, which clears it)."""
    libc = ctypes.CDLL(None, use_errno=True)  # loaded in the parent: the child only calls it

    def setup() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
        if before is not None:
            before()
        if user is not None and os.geteuid() == 0 and user.uid != 0:
            os.setgroups([])
            os.setgid(user.gid)
            os.setuid(user.uid)
        if die_with_parent:
            set_parent_death_signal(libc)
    return setup


def _env_for(user: RunAs | None, env: Mapping[str, str] | None) -> Mapping[str, str] | None:
    """The environment a child gets: ENV (None: blockfit's own), cut to _KEPT_ENV when root starts it as USER."""
    if user is None or os.geteuid() != 0 or user.uid == 0:
        return env
    given = os.environ if env is None else env
    kept = {k: v for k, v in given.items() if k in _KEPT_ENV or k.startswith("LC_")}
    return {**kept, "USER": user.name, "LOGNAME": user.name}


def start(argv: Sequence[str], *, stdin: Stream = subprocess.DEVNULL, stdout: Stream = None, stderr: Stream = None,
          cwd: Path | str | None = None, env: Mapping[str, str] | None = None, user: RunAs | None = None,
          before: Callable[[], None] | None = None, die_with_parent: bool = True) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a session of its own (its pid is its process group); the caller stops it with
    ``stop_group``.

    Ctrl-C and SIGTERM are held while the child starts: one arriving inside ``Popen`` would leave a running
    child that no one holds. If one is pending when they are released, the child is stopped here and the
    interrupt goes on up."""
    child: subprocess.Popen[bytes] | None = None
    try:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            child = subprocess.Popen(list(argv), stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd,
                                     env=_env_for(user, env),
                                     start_new_session=True, preexec_fn=child_setup(user, before, die_with_parent))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    except BaseException:
        if child is not None:
            stop_group(child)
        raise
    return child


def process_start(pid: int) -> int | None:
    """When process PID started, in clock ticks since boot (the 22nd field of /proc/PID/stat, counted after the
    command name's closing parenthesis: a name may hold spaces and parentheses); None when there is no such
    process. A pid and its start time name one process: a pid reused by another process has another start."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` is left (one we may not signal counts as left)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_group(proc: subprocess.Popen[Any], grace: float = 3.0, kill_wait: float = 10.0) -> None:
    """End the process group ``proc`` leads: SIGTERM, ``grace`` seconds, then SIGKILL (straight SIGKILL when
    ``grace`` is 0); reap ``proc`` and wait until no process of the group is left (at most ``kill_wait`` s
    after the SIGKILL). Also ends strays of a leader that has already exited."""
    pgid = proc.pid  # start() makes every child a session (and group) leader
    steps = [(signal.SIGTERM, grace)] if grace > 0 else []
    for sig, wait in [*steps, (signal.SIGKILL, kill_wait)]:
        signal_group(pgid, sig)
        deadline = time.monotonic() + wait
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not group_alive(pgid):
            return


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL the group at once (for a child that must not write another byte), reap, wait until it is gone."""
    stop_group(proc, grace=0)


def run(argv: Sequence[str], *, timeout: float | None = None, capture: bool = True, check: bool = False,
        stdin: Stream = subprocess.DEVNULL, stdout: Stream = None, stderr: Stream = None, input: str | None = None,
        cwd: Path | str | None = None, env: Mapping[str, str] | None = None, user: RunAs | None = None,
        before: Callable[[], None] | None = None, grace: float = 3.0) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to completion like ``subprocess.run`` (text, captured unless ``capture`` is False), in a
    group of its own: on a timeout (``subprocess.TimeoutExpired``), Ctrl-C or any other exception the whole
    group is stopped first; strays that outlive the leader are stopped too."""
    if capture:
        stdout = stderr = subprocess.PIPE
    if input is not None:
        stdin = subprocess.PIPE
    proc = start(argv, stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd, env=env, user=user, before=before)
    try:
        out, err = proc.communicate(input.encode() if input is not None else None, timeout=timeout)
    except BaseException:
        stop_group(proc, grace)
        raise
    if group_alive(proc.pid):
        stop_group(proc, grace)
    result = subprocess.CompletedProcess(proc.args, proc.returncode, _text(out), _text(err))
    if check:
        result.check_returncode()
    return result


def _text(data: bytes | None) -> str:
    return data.decode(errors="replace") if data is not None else ""
