"""Shared printing helpers: one rich console for humans, plain JSON for machines."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import typer

from blockfit import terminal
from blockfit.errors import InputError
from blockfit.files import check_target

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import Console
    from rich.segment import Segment


class _ConsoleOnFirstUse:
    """A rich Console made when first used: `--json` and `--help` never pay for importing rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def real(self) -> Console:
        if self._console is None:
            self._console = _safe_console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)

    # Python looks dunder methods up on the type, not through __getattr__; rich's Live uses `with console:`.
    def __enter__(self) -> Console:
        return self.real().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.real().__exit__(*exc)


def _safe_console(**options: Any) -> Console:
    """A Console whose text segments are escaped (blockfit.terminal) as they leave for the terminal: the net under
    the printers, which escape each value from a file where they insert it (so widths are measured right)."""
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        def render(self, renderable: Any, options: Any = None) -> Iterator[Segment]:
            for seg in super().render(renderable, options):
                # rich's own control segments (cursor moves of a live view) pass; newlines are rich's line breaks
                if seg.control is None and not terminal.is_safe(seg.text.replace("\n", "")):
                    seg = Segment(terminal.safe_lines(seg.text), seg.style)
                yield seg

    return SafeConsole(**options)


# Tables are wide; when output is piped or captured (no terminal to measure) use 120 columns, not 80.
_PIPED = not sys.stdout.isatty() and "COLUMNS" not in os.environ
console = cast("Console", _ConsoleOnFirstUse(width=120 if _PIPED else None))
err_console = cast("Console", _ConsoleOnFirstUse(stderr=True))


class StdoutFailed(Exception):
    """stdout did not take the output: a closed pipe (quiet) or a full disk / I/O error (one line, exit 4)."""

    exit_code = 4

    def __init__(self, exc: OSError) -> None:
        super().__init__(f"stdout: cannot write ({exc.strerror or exc}); the output is incomplete")
        self.broken_pipe = exc.errno == errno.EPIPE


class CheckedStream:
    """sys.stdout while a command runs: a write or flush that fails raises StdoutFailed (rich and print go
    through it too), so a full disk under `--json > file` is an error instead of a silently short file."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            binary = getattr(self._stream, "buffer", None)
            if binary is None:
                return int(self._stream.write(text))
            # Bytes, in a loop: with PYTHONUNBUFFERED the text layer sits on the raw file and drops the rest of a
            # short write (4 KiB left on the disk: 4 KiB written, no error); the next write names the error.
            self._stream.flush()
            view = memoryview(text.encode(self._stream.encoding or "utf-8", self._stream.errors or "strict"))
            while view:
                n = binary.write(view)
                if not n:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[n:]
            return len(text)
        except OSError as exc:
            raise StdoutFailed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise StdoutFailed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def finish_stdout(stream: Any) -> None:
    """Flush stdout and, where it is a file, fsync it: the last chance to see that the output did not fit."""
    try:
        stream.flush()
        with contextlib.suppress(ValueError, io.UnsupportedOperation):
            fd = stream.fileno()
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EROFS):  # no fsync on this kind of file: nothing to learn
            raise StdoutFailed(exc) from None


def quiet_stdout(stream: Any) -> None:
    """After stdout failed: point fd 1 at /dev/null so the interpreter's own flush at exit adds no second message."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def print_json(obj: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Print a model or plain data as indented JSON on stdout (no rich markup, safe to pipe and to show: control
    characters and bidi overrides in values are escaped)."""
    from pydantic import BaseModel  # lazy: --help imports no pydantic (tests/cli/test_cli_startup.py)
    if isinstance(obj, BaseModel):
        text = obj.model_dump_json(indent=2)
    else:
        import json  # here: a model prints through pydantic; `--help` and most commands never load json

        text = json.dumps(obj, indent=2, default=str)
    sys.stdout.write(terminal.json_safe(text) + "\n")


def _check_report_path(value: Path | None) -> Path | None:
    """Checked while parsing, so a bad --report fails before minutes of measuring, not after."""
    if value is None:
        return None
    name = value.name
    if (value.suffix.lower() not in (".html", ".htm") or len(os.fsencode(name)) > 255
            or any(not ch.isprintable() for ch in name)):
        raise InputError(f"--report {str(value)!r}: expected an .html file path in an existing directory")
    check_target(value, "--report")  # not a directory or a device, in a directory that exists
    return value


ReportOption = Annotated[Path | None, typer.Option(
    "--report", metavar="FILE.html", callback=_check_report_path,
    help="also write this result as a self-contained HTML report (see 'blockfit report')")]


def save_report(result: BaseModel, path: Path | None, intervals: dict[str, Any] | None = None) -> None:
    """The --report shortcut every result-producing command shares: one page for this one result."""
    if path is None:
        return
    from blockfit.files import write_atomically
    from blockfit.report import render
    from blockfit.report.load import Loaded
    from blockfit.schema.result import ResultEnvelope

    assert isinstance(result, ResultEnvelope)
    name = Path(f"{getattr(result, 'kind', 'result')} (this run)")
    write_atomically(path, render([Loaded(name, result, intervals or {})]), what="--report")
    # soft wrap: a path is never folded into pieces (a terminal wraps the line; a copy gets it whole)
    err_console.print(f"report written to {terminal.safe(path)}", highlight=False, markup=False, soft_wrap=True)


Result = TypeVar("Result", bound="BaseModel")


def write_result(result: BaseModel, out: Path) -> None:
    """--out: the result as JSON, read back as a result before it replaces anything."""
    from blockfit.documents import check_result_text
    from blockfit.files import write_atomically

    write_atomically(out, result.model_dump_json(indent=2) + "\n", what="--out",
                     check=lambda text: check_result_text(text, "--out"))


def show_result(result: Result, report: Path | None, json_out: bool, render: Callable[[Result, Console], None]) \
        -> None:
    """--report, then stdout: the result as JSON, or for people as RENDER prints it."""
    save_report(result, report)
    if json_out:
        print_json(result)
    else:
        render(result, console)
