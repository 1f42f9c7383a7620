"""The `blockfit` command line: a typer app; each command lives in its own module here.

The CLI is thin: it parses arguments, calls the library, and prints. Every error a user can cause
becomes one line on stderr naming the input and what was expected, with exit code 2 (InputError),
3 (InfeasibleError) or 4 (EnvironmentProblem); never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import click
import typer

from blockfit.errors import BlockfitError

app = typer.Typer(
    name="blockfit",
    help="Explain, plan, build, verify and diagnose database storage on cloud block volumes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# One module per command; each registers itself on `app` when imported.
COMMAND_MODULES: list[str] = ["calibrate"]

for _name in COMMAND_MODULES:
    importlib.import_module(f"blockfit.cli.{_name}")


def _fail(message: str, code: int) -> None:
    print(f"blockfit: error: {message}", file=sys.stderr)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app with one-line errors instead of tracebacks or usage panels."""
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="blockfit", standalone_mode=False)
    except BlockfitError as exc:
        _fail(str(exc), exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else "", err=False)
        sys.exit(0)
    except click.UsageError as exc:
        hint = f" (see 'blockfit {exc.ctx.command_path.split(' ', 1)[-1]} --help')" if exc.ctx else ""
        _fail(exc.format_message().replace("\n", " ") + hint, 2)
    except click.exceptions.Abort:
        _fail("interrupted", 130)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    if isinstance(rv, int) and rv:
        sys.exit(rv)
