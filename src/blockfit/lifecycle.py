"""The one owner of signal handlers: how Ctrl-C, SIGTERM and SIGHUP end a command, and what runs on the way out.

One module decides, so that no command can leave a handler of its own behind or undo another's: every other
module asks here (`tests/test_layers.py` checks that nothing else calls `signal.signal`).

- `install()` (the CLI's entry point) makes SIGINT, SIGTERM and SIGHUP raise `Interrupted`, a KeyboardInterrupt,
  so every clean-up written for Ctrl-C (`try`/`finally`, `with`) runs for all three; `restore()` puts back what
  was there. A signal ignored when the process started (nohup, a background job) stays ignored.
- `interrupting(SIGTERM)`: the same for a library call made without the CLI (diagnose's sampler, a PostgreSQL
  recording, the lab), for as long as the block runs; under the CLI it changes nothing.
- `held()`: the few steps that must not be cut in half (create a temp file and register it, the renames, the
  clean-up) keep a signal until they are done, then raise it.
- `on_exit(fn)`: a clean-up the CLI runs (held) when the command ends, however it ends; `clean_up()` runs them.
- `ignore(...)`: a process that must outlive an interrupt (bench's janitor, the last lines of `blockfit`);
  `in_worker()`: a forked worker, which leaves Ctrl-C to its parent.
- `checkpoint(stage)`: the points where an interrupt does most harm ("start", "write", "rename"); nothing happens
  there unless something (the fault tests) called `observe`.

A handler's exception is lost when it is raised inside a finalizer or a weakref callback (`__del__`,
`weakref.finalize`, a cache's clean-up): Python prints "Exception ignored" and carries on, and the Ctrl-C is gone.
It happened to about 1 interrupt in 60. The handler therefore only notes the signal and raises; when the raise
lands in such a callback, `sys.unraisablehook` sees the Interrupted and a helper thread sends the same signal
again once the main thread has left the hook (a signal handled inside the hook itself is deferred the same way),
so it is handled where the raise reaches the command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP: a KeyboardInterrupt, so every clean-up written for Ctrl-C runs for all three."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_hold_depth = 0
_pending: int | None = None
_deferred: int | None = None  # a signal to send again once the main thread is out of the unraisable hook
_resending = False            # a helper thread is about to send _deferred
_resend_lock = threading.RLock()  # re-entrant: a signal handled inside the lock's own block takes it again
seen: list[int] = []  # the signals that came since install(): an exception that swallowed one still reads as one
_exits: list[Callable[[], None]] = []
_observers: list[Callable[[str], None]] = []
_previous_hook: Callable[[Any], object] | None = None


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _pending
    seen.append(signum)
    if _hold_depth:
        _pending = signum
        return
    if _in_hook(frame):   # raised here it would be lost too ("Exception ignored in sys.unraisablehook")
        _send_again_later(signum)
        return
    raise Interrupted(signum)


def _on_unraisable(unraisable: Any) -> None:
    """An Interrupted raised inside a finalizer or weakref callback is not lost: the same signal is sent again,
    from a thread, once the main thread has left this hook, and is handled where the callback's caller goes on.
    Anything else goes to the hook that was there."""
    exc = getattr(unraisable, "exc_value", None)
    if not isinstance(exc, Interrupted):
        (_previous_hook or sys.__unraisablehook__)(unraisable)
        return
    _send_again_later(exc.signum)


def _in_hook(frame: FrameType | None) -> bool:
    """Is this frame, or one it was called from, the unraisable hook's?"""
    while frame is not None:
        if frame.f_code is _on_unraisable.__code__:
            return True
        frame = frame.f_back
    return False


def _send_again_later(signum: int) -> None:
    global _deferred, _resending
    with _resend_lock:
        _deferred = signum
        start, _resending = not _resending, True
    if start:
        with contextlib.suppress(RuntimeError):  # no new thread while the interpreter shuts down
            threading.Thread(target=_send_when_out, daemon=True).start()


def _send_when_out() -> None:
    """Send the deferred signal once the main thread's stack no longer holds the hook (a few bytecodes after it
    asked; sent while it was still there, the signal would be raised inside the hook and lost). Bounded: 2 s."""
    global _deferred, _resending
    main = threading.main_thread().ident
    while True:
        for _ in range(2000):
            if main is None or not _in_hook(sys._current_frames().get(main)):
                break
            time.sleep(0.001)
        with _resend_lock:
            sig, _deferred = _deferred, None
            if sig is None:
                _resending = False
                return
        os.kill(os.getpid(), sig)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _set(sig: int) -> object:
    global _previous_hook
    if sys.unraisablehook is not _on_unraisable:
        _previous_hook, sys.unraisablehook = sys.unraisablehook, _on_unraisable
    return signal.signal(sig, _on_signal)


def install(signals: tuple[int, ...] = HANDLED) -> dict[int, object]:
    """SIGNALS raise Interrupted from now on; returns the previous handlers (for `restore`). A signal ignored
    when we started stays ignored, as asked. Off the main thread (where Python has no handlers) nothing changes."""
    if not _main_thread():
        return {}
    previous: dict[int, object] = {}
    for sig in signals:
        current = signal.getsignal(sig)
        if current is signal.SIG_IGN or current is _on_signal:
            continue
        previous[sig] = _set(sig)
    return previous


def restore(previous: dict[int, object]) -> None:
    """Put back the handlers `install` replaced."""
    for sig, handler in previous.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]


@contextlib.contextmanager
def interrupting(*signals: int) -> Iterator[None]:
    """SIGNALS (all three if none given) raise Interrupted inside the block: SIGTERM ends a recording or the lab
    like Ctrl-C when a library function runs without the CLI. Under the CLI they do already; nothing changes."""
    previous = install(signals or HANDLED)
    try:
        yield
    finally:
        restore(previous)


def ignore(*signals: int) -> None:
    """SIGNALS (all three if none given) are ignored from now on, by this process and what it starts."""
    for sig in signals or HANDLED:
        signal.signal(sig, signal.SIG_IGN)


def in_worker() -> None:
    """In a forked worker process (a process pool's initializer): Ctrl-C is the parent's to handle (ignored here),
    SIGTERM ends the worker at once (its default). The parent's handlers, copied by fork, must not run here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Keep SIGINT/SIGTERM/SIGHUP until the block is done, then raise Interrupted for the one that came."""
    global _hold_depth, _pending
    if not _main_thread():
        yield  # signals reach the main thread only; a count shared with other threads would go wrong
        return
    _hold_depth += 1
    try:
        yield
    finally:
        _hold_depth -= 1
        if _hold_depth == 0 and _pending is not None:
            signum, _pending = _pending, None
            raise Interrupted(signum)


def on_exit(clean: Callable[[], None]) -> None:
    """Run CLEAN when the command ends (`clean_up`), whatever ends it; registering it twice runs it once."""
    if clean not in _exits:
        _exits.append(clean)


def clean_up() -> None:
    """Run every clean-up `on_exit` registered, newest first, none of them cut short by a signal."""
    with held():
        while _exits:
            _exits.pop()()


def checkpoint(stage: str) -> None:
    """A point where an interrupt does most harm ("start": the command is about to run; "write": a temp file
    exists, nothing in it yet; "rename": every temp file is written, nothing renamed). The observers are told."""
    for observer in _observers:
        observer(stage)


def observe(observer: Callable[[str], None]) -> None:
    """Call OBSERVER at every checkpoint (the fault tests hold a child there and signal it)."""
    _observers.append(observer)
