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
lands in such a callback, `sys.unraisablehook` sees the Interrupted and sends the same signal again from a helper
thread, so it is handled once the callback has returned: at a point where the raise reaches the command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
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
_in_hook = False  # inside _on_unraisable: a signal then is only noted, and sent again once the hook is done
_deferred = 0
seen: list[int] = []  # the signals that came since install(): an exception that swallowed one still reads as one
_exits: list[Callable[[], None]] = []
_observers: list[Callable[[str], None]] = []
_previous_hook: Callable[[Any], object] | None = None


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _pending, _deferred
    seen.append(signum)
    if _hold_depth:
        _pending = signum
        return
    if _in_hook:
        _deferred = signum
        return
    raise Interrupted(signum)


def _on_unraisable(unraisable: Any) -> None:
    """An Interrupted raised inside a finalizer or weakref callback is not lost: the same signal is sent again,
    from a thread, once this hook has returned, and is handled where the callback's caller goes on. Anything
    else goes to the hook that was there."""
    global _in_hook, _deferred
    exc = getattr(unraisable, "exc_value", None)
    if not isinstance(exc, Interrupted):
        (_previous_hook or sys.__unraisablehook__)(unraisable)
        return
    _in_hook, _deferred = True, exc.signum
    done = threading.Event()
    try:
        with contextlib.suppress(RuntimeError):  # no new thread while the interpreter shuts down
            threading.Thread(target=_send_again, args=(done,), daemon=True).start()
    finally:
        _in_hook = False
        done.set()


def _send_again(done: threading.Event) -> None:
    done.wait()
    os.kill(os.getpid(), _deferred)


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
