"""The `blockfit` executable: signals handled from the first line, before the CLI's imports (a second or more).

Ctrl-C, SIGTERM or SIGHUP while typer, pydantic and rich load, or between the command's end and the interpreter's,
would otherwise end in a traceback or in a death by signal: every way out here is one line and exit 130, or the
command's own exit code once it has finished (a signal after that is ignored: its output is complete)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False   # typing is not imported at run time: every import here is outside the handler below
if TYPE_CHECKING:
    from typing import NoReturn


def _interrupted(line: str) -> NoReturn:
    _ignore_signals()   # a second Ctrl-C while the line is printed changes nothing
    print(f"blockfit: error: {line}", file=sys.stderr)
    sys.exit(130)


def _ignore_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP are ignored from here on: the interpreter's shutdown would otherwise restore their
    default action, and a Ctrl-C then would kill it without a word and with no exit code of ours."""
    from blockfit import lifecycle  # loaded already; here, not at the top, to keep the unguarded imports few

    lifecycle.ignore()


def main() -> NoReturn:
    try:
        from blockfit import lifecycle

        lifecycle.install()
        from blockfit import cli
        from blockfit.cli import interrupted_line
        from blockfit.cli import main as cli_main
    except KeyboardInterrupt as exc:
        name = f" by {exc.args[0]}" if type(exc).__name__ == "Interrupted" and exc.args else ""
        _interrupted(f"interrupted{name}; no output written")
    code: int | str | None = 0
    try:
        cli_main()   # its handler makes Ctrl-C inside the command one line and 130 (after clean-up)
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt as exc:   # a signal after the command's handler returned, before this line
        _interrupted(interrupted_line(exc))
    _ignore_signals()
    if cli.half_initialised:   # the command cleaned up; the interpreter's shutdown could abort on the half-made module
        import os

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code if isinstance(code, int) else 1)
    sys.exit(code)


if __name__ == "__main__":
    main()
