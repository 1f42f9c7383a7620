"""The `blockfit` command line: a typer app; each command lives in its own module here.

The CLI is thin: it parses arguments, calls the library, and prints. Every error a user can cause
becomes one line on stderr naming the input and what was expected, with exit code 2 (InputError),
3 (InfeasibleError) or 4 (EnvironmentProblem); never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

try:  # typer >= 0.20 vendors click as typer._click; older typer depends on click itself
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover
    from click import exceptions as click_exc  # type: ignore[no-redef]

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
COMMAND_MODULES: list[str] = ["catalog", "model", "plan", "build", "calibrate", "lab", "diagnose", "bench", "report",
                              "sql", "record"]

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
    except click_exc.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else "")
        sys.exit(0)
    except click_exc.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        _fail(exc.format_message().replace("\n", " ") + hint, 2)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", 130)
    if isinstance(rv, int) and rv:
        sys.exit(rv)
