"""blockfit.lifecycle, the one owner of signal handlers: real signals, to this process and to children."""

from __future__ import annotations

import select
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from blockfit import lifecycle

# A child that spends nearly all its time inside finalizers (`__del__` and weakref.finalize callbacks), where an
# exception raised by a signal handler is swallowed by Python ("Exception ignored in ..."). It reports each
# Interrupted that reaches its loop, and ends after COUNT of them or 120 s.
FINALIZING_CHILD = """
import sys, time, weakref
from blockfit import lifecycle

def busy():
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass

class Slow:
    def __del__(self):
        busy()

class Plain:
    pass

lifecycle.install()
want, got, pending, ready = int(sys.argv[1]), 0, None, False
deadline = time.monotonic() + 120
while True:
    try:  # "ready" and each report inside the try: the next signal may come as soon as a line is out
        while True:
            if not ready:
                ready = True
                print("ready", flush=True)
            if pending is not None:
                sig, pending = pending, None
                got += 1
                print("interrupted", sig, flush=True)
            if got >= want or time.monotonic() > deadline:
                break
            Slow()
            obj = Plain()
            weakref.finalize(obj, busy)
            del obj
        break
    except lifecycle.Interrupted as exc:
        pending = exc.signum
"""

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _line(proc: subprocess.Popen[str], budget_s: float) -> str | None:
    """The child's next stdout line, or None if none came within BUDGET_S (a generous bound, not a timing)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], budget_s)
    return proc.stdout.readline().strip() if ready else None


def test_no_interrupt_is_lost_inside_a_finalizer() -> None:
    """40 real signals, each sent once the previous one was reported: every one reaches the child's loop. Before,
    the handler's exception was swallowed inside `__del__` or a weakref callback and the signal was gone."""
    count = 40
    proc = subprocess.Popen([sys.executable, "-c", FINALIZING_CHILD, str(count)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, bufsize=1)
    try:
        assert _line(proc, 60) == "ready"
        reported = []
        for i in range(count):
            sig = SIGNALS[i % len(SIGNALS)]
            proc.send_signal(sig)
            line = _line(proc, 30)
            if not line and proc.poll() is not None:  # the child ended: say how
                assert proc.stderr is not None
                pytest.fail(f"signal {i}: the child ended with {proc.returncode}: {proc.stderr.read()[-2000:]}")
            assert line == f"interrupted {int(sig)}", (i, line)
            reported.append(line)
        assert len(reported) == count
        proc.wait(timeout=60)
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert proc.returncode == 0 and "Interrupted" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


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
