"""The `blockfit` command line: a typer app; each command lives in its own module here.

The CLI is thin: it parses arguments, calls the library, and prints. Every error a user can cause
becomes one line on stderr naming the input and what was expected, with exit code 2 (InputError),
3 (InfeasibleError) or 4 (EnvironmentProblem); never a traceback.
"""

from __future__ import annotations

import importlib
import signal
import sys

import typer

try:  # typer >= 0.20 vendors click as typer._click; older typer depends on click itself
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover
    from click import exceptions as click_exc  # type: ignore[no-redef]

from blockfit import files
from blockfit.cli.output import CheckedStream, StdoutFailed, finish_stdout, quiet_stdout
from blockfit.errors import BlockfitError

app = typer.Typer(
    name="blockfit",
    help="Explain, plan, build, verify and diagnose database storage on cloud block volumes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)



@app.callback()
def _root() -> None:
    """Explain (model) -> plan -> build -> verify (calibrate, lab) -> diagnose."""


# One module per command; each registers itself on `app` when imported.
COMMAND_MODULES: list[str] = ["catalog", "model", "plan", "build", "calibrate", "lab", "diagnose", "bench", "report"]

for _name in COMMAND_MODULES:
    importlib.import_module(f"blockfit.cli.{_name}")


def _fail(message: str, code: int) -> int:
    # one line, whatever the input held: control characters (a newline in a path) are shown escaped
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    print(f"blockfit: error: {line}", file=sys.stderr)
    return code


def interrupted_line(exc: BaseException) -> str:
    """What an interrupt did: which signal, and which outputs (if any) were complete before it came."""
    what = f"interrupted by {signal.Signals(exc.signum).name}" if isinstance(exc, files.Interrupted) else "interrupted"
    done = [str(p) for p in files.written]
    if not done:
        return f"{what}; no output written"
    return f"{what} after writing {', '.join(done)}; nothing else written"


def _invoke(argv: list[str] | None) -> int:
    """Run the command; every way out is an exit code, with at most one line on stderr."""
    command = typer.main.get_command(app)
    try:
        with command.make_context("blockfit", list(sys.argv[1:] if argv is None else argv)) as ctx:
            files.test_hold("start")
            rv = command.invoke(ctx)
    except StdoutFailed:
        raise
    except BlockfitError as exc:
        return _fail(str(exc), exc.exit_code)
    except click_exc.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else "")
        return 0
    except typer.Exit as exc:  # typer.Exit: the command chose its code (and said why, if it had to)
        return int(exc.exit_code or 0)
    except click_exc.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        return _fail(exc.format_message().replace("\n", " ") + hint, 2)
    except (typer.Abort, KeyboardInterrupt) as exc:
        return _fail(interrupted_line(exc), 130)
    return rv if isinstance(rv, int) else 0


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app with one-line errors instead of tracebacks or usage panels.

    SIGINT, SIGTERM and SIGHUP interrupt the command like Ctrl-C (clean-up runs, one line, exit 130); stdout that
    cannot take the output (a full disk) is an error, exit 4; a closed pipe ends the command quietly."""
    previous = files.install_signal_handlers()
    files.written.clear()
    try:
        code = _run_checked(argv)
    finally:
        files.restore_signal_handlers(previous)
    if code:
        sys.exit(code)


def _run_checked(argv: list[str] | None) -> int:
    real_stdout = sys.stdout
    sys.stdout = CheckedStream(real_stdout)
    try:
        try:
            code = _invoke(argv)
            finish_stdout(real_stdout)
        finally:
            with files.held():
                sys.stdout = real_stdout
                files.discard_leftovers()
    except StdoutFailed as exc:
        quiet_stdout(real_stdout)
        return 141 if exc.broken_pipe else _fail(str(exc), exc.exit_code)
    except KeyboardInterrupt as exc:  # a signal while the output was flushed or the temp files removed
        return _fail(interrupted_line(exc), 130)
    return code
