"""The `blockfit` command line: a typer app; each command lives in its own module here.

The CLI is thin: it parses arguments, calls the library, and prints. Every error a user can cause
becomes one line on stderr naming the input and what was expected, with exit code 2 (InputError),
3 (InfeasibleError) or 4 (EnvironmentProblem); never a traceback.

Start-up: a command's module (and the library it needs) is imported only when that command runs, so
`blockfit --help` imports typer and this file, and `blockfit model` nothing of lab, bench or report.
"""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Any, cast

import typer
from typer.core import TyperCommand, TyperGroup

from blockfit import files, lifecycle, terminal
from blockfit.cli.output import CheckedStream, StdoutFailed, finish_stdout, quiet_stdout
from blockfit.errors import BlockfitError

# Every command: its module is blockfit.cli.NAME, which registers it on `app` when imported. The short
# help is the first line of its docstring, kept here so --help needs no import (tests/cli/test_cli_startup.py
# checks the two agree).
COMMANDS: dict[str, str] = {
    "model": "Predict max IOPS and MB/s of a layout on an instance, name the binding limit, price it.",
    "plan": "Search member count, size, level and OCPUs for the cheapest layouts that meet every target.",
    "fleet": "Plan every host of a fleet from its history in Prometheus: who is under- or over-provisioned, and "
             "the cost.",
    "build": "Write set-up scripts (LVM / mdadm / ASM, filesystem, OCI attachments, migration, provisioning).",
    "calibrate": "Measure max IOPS at a latency bound, max MB/s and latency (CALIBRATE_IO's triplet) with fio.",
    "lab": "Boot a qemu guest whose disks are capped like the plan's volumes and instance; build and measure.",
    "diagnose": "Sample /proc/diskstats, sysfs and the mount table; report flush storms, queue-depth limits and "
                "caps.",
    "bench": "Compare layouts with a real PostgreSQL: OLTP (pgbench), DSS with temp spills, bulk load; with "
             "evidence.",
    "report": "Write one offline HTML page (inline CSS and SVG figures, no script) explaining the results.",
    "catalog": "Show the dated, sourced cloud limits and prices the model uses.",
    "sql": "Print the SQL that exports I/O history for 'blockfit plan --from' (redirect it to a file and run it).",
    "inspect": "Read this host's block stack and say which cloud volume each disk is, with each layout's figures.",
    "record": "Sample the server's own I/O counters and the host's diskstats of the devices under its data "
              "directory.",
}


class LazyGroup(TyperGroup):
    """The root group: lists COMMANDS without importing them and imports a command's module on first use."""

    @property  # type: ignore[override]
    def commands(self) -> dict[str, Any]:
        """Every command, loaded (for tools that walk the tree, e.g. the CLI fuzz test)."""
        return {name: self.get_command(None, name) for name in COMMANDS}  # type: ignore[arg-type]

    @commands.setter
    def commands(self, value: dict[str, Any]) -> None:
        self._loaded = dict(value)

    def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        return list(COMMANDS)

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:  # type: ignore[override]
        if cmd_name not in self._loaded and cmd_name in COMMANDS:
            importlib.import_module(f"blockfit.cli.{cmd_name}")
            built = cast(LazyGroup, typer.main.get_command(app))  # the root, with what is registered so far
            self._loaded[cmd_name] = built._loaded[cmd_name]
        return self._loaded.get(cmd_name)

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:  # type: ignore[override]
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, TyperCommand(name, help=text).get_short_help_str(limit)) for name, text in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    name="blockfit",
    cls=LazyGroup,
    help="Explain, plan, build, verify and diagnose database storage on cloud block volumes.",
    invoke_without_command=True,  # no command: _root prints the help (exit 0)
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    """--version: the version and nothing else (what a bug report and a plan's blockfit_version name)."""
    if value:
        from blockfit import __version__
        print(f"blockfit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(ctx: typer.Context, version: bool = typer.Option(
        False, "--version", help="print the version and exit", is_eager=True, callback=_version)) -> None:
    """Explain (model) -> plan -> build -> verify (calibrate, lab) -> diagnose."""
    print_help_without_command(ctx)


def print_help_without_command(ctx: typer.Context) -> None:
    """A group called without a command prints its help and exits 0 (typer's public API; click's own
    no_args_is_help raises an exception class typer does not export)."""
    if ctx.invoked_subcommand is None:
        print(ctx.get_help())
        raise typer.Exit(0)


def _fail(message: str, code: int) -> int:
    # one line, whatever the input held: control characters (a newline in a path, ESC in a name a file gave) and
    # bidi overrides are shown escaped
    print(f"blockfit: error: {terminal.one_line(message)}", file=sys.stderr)
    return code


def without_passwords(text: str) -> str:
    """A usage error quotes what the user typed: a URL's `user:password@` and a connection string's `password=…`
    (`blockfit record 'postgresql://dba:pw@db/x'`, --pg forgotten) are shown as `***`."""
    import re

    text = re.sub(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)\S*@", r"\1***@", text)
    return re.sub(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|\S+)", r"\1***", text, flags=re.IGNORECASE)


def interrupted_line(exc: BaseException) -> str:
    """What an interrupt did: which signal, and which outputs (if any) were complete before it came."""
    signum = exc.signum if isinstance(exc, lifecycle.Interrupted) else None
    what = f"interrupted by {signal.Signals(signum).name}" if signum is not None else "interrupted"
    done = [str(p) for p in files.written]
    if not done:
        return f"{what}; no output written"
    return f"{what} after writing {', '.join(done)}; nothing else written"


# Set when Ctrl-C cut a C extension's initialisation short: the interpreter's own shutdown can then abort on the
# half-made module ('Fatal Python error: PyThreadState_Get', matplotlib's ft2font), so launch skips it.
half_initialised = False


def _invoke(argv: list[str] | None) -> int:
    """Run the command; every way out is an exit code, with at most one line on stderr."""
    command = typer.main.get_command(app)
    try:
        with command.make_context("blockfit", list(sys.argv[1:] if argv is None else argv)) as ctx:
            lifecycle.checkpoint("start")
            rv = command.invoke(ctx)
    except StdoutFailed:
        raise
    except BlockfitError as exc:
        return _fail(str(exc), exc.exit_code)
    except typer.Exit as exc:  # typer.Exit: the command chose its code (and said why, if it had to)
        return int(exc.exit_code or 0)
    except typer.TyperException as exc:  # a usage error: unknown option, missing or bad value
        where = getattr(exc, "ctx", None)
        hint = f" (see '{where.command_path} --help')" if where is not None else ""
        return _fail(without_passwords(exc.format_message().replace("\n", " ")) + hint, 2)
    except (typer.Abort, KeyboardInterrupt) as exc:
        return _fail(interrupted_line(exc), 130)
    except Exception as exc:
        cause = interrupt_inside(exc)
        if cause is None:
            raise
        global half_initialised
        half_initialised = half_initialised or isinstance(exc, ImportError)
        return _fail(interrupted_line(cause), 130)
    return rv if isinstance(rv, int) else 0


def interrupt_inside(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C another exception wraps: a C extension whose initialisation it cut short raises ImportError
    ('initialization failed', matplotlib's ft2font) caused by it; pydantic-core's SchemaError only quotes it in its
    text, so a signal that came during the command counts too."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return lifecycle.Interrupted(lifecycle.seen[-1]) if lifecycle.seen else None


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app with one-line errors instead of tracebacks or usage panels.

    SIGINT, SIGTERM and SIGHUP interrupt the command like Ctrl-C (clean-up runs, one line, exit 130); stdout that
    cannot take the output (a full disk) is an error, exit 4; a closed pipe ends the command quietly."""
    previous = lifecycle.install()
    lifecycle.seen.clear()  # the signals that come while this command runs
    files.written.clear()
    try:
        code = _run_checked(argv)
    finally:
        lifecycle.restore(previous)
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
            with lifecycle.held():
                sys.stdout = real_stdout
                lifecycle.clean_up()
    except StdoutFailed as exc:
        quiet_stdout(real_stdout)
        return 141 if exc.broken_pipe else _fail(str(exc), exc.exit_code)
    except KeyboardInterrupt as exc:  # a signal while the output was flushed or the temp files removed
        return _fail(interrupted_line(exc), 130)
    return code
