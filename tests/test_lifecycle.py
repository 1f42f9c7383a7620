"""blockfit.lifecycle, the one owner of signal handlers: real signals, to this process and to children."""

from __future__ import annotations

import select
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from blockfit import lifecycle

# A child that raises each signal at itself from inside a finalizer (a `__del__`, then a weakref.finalize callback,
# in turn) and stays there a moment, so the handler's exception is raised inside it, where Python swallows it
# ("Exception ignored in ..."). Its loop then waits (busy, up to 20 s) for the Interrupted to reach it.
FINALIZING_CHILD = """
import os, sys, time, weakref
from blockfit import lifecycle

def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

def send_and_stay(sig):
    os.kill(os.getpid(), sig)
    busy(0.01)

class Slow:
    def __init__(self, sig):
        self.sig = sig
    def __del__(self):
        send_and_stay(self.sig)

class Plain:
    pass

lifecycle.install()
for i, sig in enumerate(int(a) for a in sys.argv[1:]):
    try:
        if i % 2:
            obj = Plain()
            weakref.finalize(obj, send_and_stay, sig)
            del obj
        else:
            Slow(sig)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            busy(0.001)
        print("lost", sig, flush=True)
    except lifecycle.Interrupted as exc:
        print("interrupted", exc.signum, flush=True)
"""

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _line(proc: subprocess.Popen[str], budget_s: float) -> str | None:
    """The child's next stdout line, or None if none came within BUDGET_S (a generous bound, not a timing)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], budget_s)
    return proc.stdout.readline().strip() if ready else None


def test_no_interrupt_is_lost_inside_a_finalizer() -> None:
    """30 real signals, each handled inside a finalizer: every one reaches the child's loop. Before, the handler's
    exception was swallowed inside `__del__` or a weakref callback ("Exception ignored") and the signal was gone."""
    sigs = [int(SIGNALS[i % len(SIGNALS)]) for i in range(30)]
    proc = subprocess.run([sys.executable, "-c", FINALIZING_CHILD, *map(str, sigs)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)
    assert proc.stdout.splitlines() == [f"interrupted {s}" for s in sigs], proc.stdout + proc.stderr[-2000:]
    assert proc.returncode == 0 and "Exception ignored" not in proc.stderr, proc.stderr[-2000:]


@pytest.fixture
def installed() -> Iterator[dict[int, object]]:
    previous = lifecycle.install()
    try:
        yield previous
    finally:
        lifecycle.restore(previous)


def test_held_keeps_a_signal_until_the_block_ends(installed: object) -> None:
    steps = []
    with pytest.raises(lifecycle.Interrupted) as caught:
        with lifecycle.held():
            signal.raise_signal(signal.SIGTERM)
            steps.append("after the signal")  # the block goes on
    assert steps == ["after the signal"] and caught.value.signum == signal.SIGTERM


def test_a_signal_outside_held_interrupts_at_once(installed: object) -> None:
    with pytest.raises(lifecycle.Interrupted) as caught:
        signal.raise_signal(signal.SIGHUP)
    assert caught.value.signum == signal.SIGHUP and lifecycle.seen[-1] == signal.SIGHUP


def test_interrupting_restores_the_handler_it_replaced() -> None:
    mine = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with pytest.raises(KeyboardInterrupt):
            with lifecycle.interrupting(signal.SIGTERM):
                signal.raise_signal(signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, mine)


def test_an_ignored_signal_stays_ignored() -> None:
    mine = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with lifecycle.interrupting():
            signal.raise_signal(signal.SIGHUP)  # nothing happens
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, mine)


def test_clean_ups_run_once_newest_first_and_are_not_cut_short(installed: object) -> None:
    ran: list[str] = []

    def first() -> None:
        ran.append("first")

    def second() -> None:
        signal.raise_signal(signal.SIGINT)  # comes during the clean-up: kept until every clean-up ran
        ran.append("second")

    lifecycle.on_exit(first)
    lifecycle.on_exit(second)
    lifecycle.on_exit(first)
    with pytest.raises(lifecycle.Interrupted):
        lifecycle.clean_up()
    assert ran == ["second", "first"]
    lifecycle.clean_up()
    assert ran == ["second", "first"]


def test_checkpoints_tell_their_observers() -> None:
    seen: list[str] = []
    lifecycle.observe(seen.append)
    try:
        lifecycle.checkpoint("rename")
    finally:
        lifecycle._observers.remove(seen.append)
    assert seen == ["rename"]
    lifecycle.checkpoint("rename")  # that observer is gone: nothing happens
    assert seen == ["rename"]


def test_a_worker_leaves_ctrl_c_to_its_parent() -> None:
    """What a forked worker keeps of the parent's handlers: none (Ctrl-C ignored, SIGTERM and SIGHUP default)."""
    code = ("import signal; from blockfit import lifecycle; lifecycle.install(); lifecycle.in_worker(); "
            "print([signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)])")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "[<Handlers.SIG_IGN: 1>, <Handlers.SIG_DFL: 0>, <Handlers.SIG_DFL: 0>]", run.stderr
