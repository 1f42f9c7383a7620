"""The `blockfit` command line: a typer app; each command lives in its own module here.

The CLI is thin: it parses arguments, calls the library, and prints. Every error a user can cause
becomes one line on stderr naming the input and what was expected, with exit code 2 (InputError),
3 (InfeasibleError) or 4 (EnvironmentProblem); never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from blockfit.errors import BlockfitError

app = typer.Typer(
    name="blockfit",
    help="Explain, plan, build, verify and diagnose database storage on cloud block volumes.",
    invoke_without_command=True,  # no command: _root prints the help (exit 0)
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)



@app.callback()
def _root(ctx: typer.Context) -> None:
    """Explain (model) -> plan -> build -> verify (calibrate, lab) -> diagnose."""
    print_help_without_command(ctx)


def print_help_without_command(ctx: typer.Context) -> None:
    """A group called without a command prints its help and exits 0 (typer's public API; click's own
    no_args_is_help raises an exception class typer does not export)."""
    if ctx.invoked_subcommand is None:
        print(ctx.get_help())
        raise typer.Exit(0)


# One module per command; each registers itself on `app` when imported.
COMMAND_MODULES: list[str] = ["catalog", "model", "plan", "build", "calibrate", "lab", "diagnose", "bench", "report"]

for _name in COMMAND_MODULES:
    importlib.import_module(f"blockfit.cli.{_name}")


def _fail(message: str, code: int) -> None:
    # one line, whatever the input held: control characters (a newline in a path) are shown escaped
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    print(f"blockfit: error: {line}", file=sys.stderr)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app with one-line errors instead of tracebacks or usage panels."""
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="blockfit", standalone_mode=False)
    except BlockfitError as exc:
        _fail(str(exc), exc.exit_code)
    except typer.TyperException as exc:  # a usage error: unknown option, missing or bad value
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        _fail(exc.format_message().replace("\n", " ") + hint, 2)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", 130)
    if isinstance(rv, int) and rv:
        sys.exit(rv)
