"""blockfit.proc, the one process runner: its own group, stopped whole on a timeout, Ctrl-C or a stray;
a parent-death signal; another user. Real processes (sh, sleep), nothing mocked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blockfit import proc
from blockfit.proc import RunAs


def _gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` has ended (reaped, or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def _read_pids(path: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = path.read_text().split() if path.exists() else []
        if len(pids) >= count:
            return [int(p) for p in pids]
        time.sleep(0.05)
    raise AssertionError(f"{path} never held {count} pids")


def test_run_captures_text_and_the_exit_status() -> None:
    out = proc.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (out.returncode, out.stdout, out.stderr) == (3, "out\n", "err\n")
    with pytest.raises(subprocess.CalledProcessError):
        proc.run(["false"], check=True)
    assert proc.run(["cat"], input="fed").stdout == "fed"


def test_a_child_runs_in_a_session_of_its_own() -> None:
    sid = proc.run(["sh", "-c", "cut -d' ' -f6 /proc/$$/stat; echo $$"]).stdout.split()
    assert sid[0] == sid[1] != str(os.getsid(0))


def test_signals_held_while_starting_are_not_held_in_the_child() -> None:
    def blocked(status: str) -> str:
        return next(line for line in status.splitlines() if line.startswith("SigBlk:"))
    child = proc.run(["cat", "/proc/self/status"]).stdout
    assert blocked(child) == blocked(Path("/proc/self/status").read_text())


def test_timeout_stops_the_whole_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! >> {pids}; sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"
    with pytest.raises(subprocess.TimeoutExpired):
        proc.run(["sh", "-c", script], timeout=1)
    for pid in _read_pids(pids, 3):
        assert _gone(pid, within=0)


def test_a_group_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"trap '' TERM; sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"
    with pytest.raises(subprocess.TimeoutExpired):
        proc.run(["sh", "-c", script], timeout=1, grace=0.5)
    for pid in _read_pids(pids, 2):
        assert _gone(pid, within=0)


def test_strays_that_outlive_the_leader_are_stopped() -> None:
    out = proc.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"])
    assert _gone(int(out.stdout), within=0)


CTRL_C = """
import sys
from blockfit import proc
proc.run(["sh", "-c", "sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"])
"""


def test_ctrl_c_stops_the_group_before_blockfit_exits(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    parent = subprocess.Popen([sys.executable, "-c", CTRL_C.format(pids=pids)], stderr=subprocess.PIPE)
    children = _read_pids(pids, 2)
    parent.send_signal(signal.SIGINT)
    _, err = parent.communicate(timeout=60)
    assert b"KeyboardInterrupt" in err
    for pid in children:
        assert _gone(pid, within=0)


SIGKILLED = """
import sys, time
from blockfit import proc
child = proc.start(["sleep", "60"])
print(child.pid, flush=True)
time.sleep(60)
"""


def test_a_sigkilled_parent_takes_its_child_with_it() -> None:
    parent = subprocess.Popen([sys.executable, "-c", SIGKILLED], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert not _gone(child, within=0)
    parent.kill()
    parent.wait()
    assert _gone(child)


def test_die_with_parent_can_be_turned_off() -> None:
    script = SIGKILLED.replace('["sleep", "60"]', '["sleep", "60"], die_with_parent=False')
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    try:
        assert not _gone(child, within=0.5)
    finally:
        os.kill(child, signal.SIGKILL)


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to change user")
def test_run_as_another_user_after_a_hook_that_runs_as_root(tmp_path: Path) -> None:
    mark = tmp_path / "hook"
    out = proc.run(["id", "-u"], user=RunAs(uid=65534, gid=65534, name="nobody"), before=mark.touch)
    assert out.stdout.strip() == "65534"
    assert mark.stat().st_uid == 0


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to change user")
def test_a_child_run_as_another_user_gets_none_of_roots_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Root's environment (here a canary token and PGPASSWORD) stays with root: the child, readable in
    /proc/PID/environ by every process of its user (the bench's server runs as postgres), gets the locale, the
    time zone and PATH. A child that stays root still gets the whole environment."""
    canary = f"canary-{os.urandom(6).hex()}"
    monkeypatch.setenv("BLOCKFIT_PROMETHEUS_TOKEN", canary)
    monkeypatch.setenv("PGPASSWORD", canary)
    monkeypatch.setenv("LC_MESSAGES", "C.UTF-8")
    nobody = RunAs(uid=65534, gid=65534, name="nobody")
    dropped = proc.run(["cat", "/proc/self/environ"], user=nobody).stdout.split("\0")
    assert not [v for v in dropped if canary in v]
    assert {"LC_MESSAGES=C.UTF-8", f"PATH={os.environ['PATH']}", "USER=nobody"} <= set(dropped)
    given = proc.run(["cat", "/proc/self/environ"], user=nobody, env={**os.environ, "EXTRA": canary}).stdout
    assert canary not in given
    assert f"PGPASSWORD={canary}" in proc.run(["cat", "/proc/self/environ"]).stdout.split("\0")
