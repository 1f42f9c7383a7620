"""Shared printing helpers: one rich console for humans, plain JSON for machines."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from pydantic import BaseModel

from blockfit.errors import InputError
from blockfit.files import check_target

if TYPE_CHECKING:
    from rich.console import Console


class _ConsoleOnFirstUse:
    """A rich Console made when first used: `--json` and `--help` never pay for importing rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def real(self) -> Console:
        if self._console is None:
            from rich.console import Console
            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)

    # Python looks dunder methods up on the type, not through __getattr__; rich's Live uses `with console:`.
    def __enter__(self) -> Console:
        return self.real().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.real().__exit__(*exc)


# Tables are wide; when output is piped or captured (no terminal to measure) use 120 columns, not 80.
_PIPED = not sys.stdout.isatty() and "COLUMNS" not in os.environ
console = cast("Console", _ConsoleOnFirstUse(width=120 if _PIPED else None))
err_console = cast("Console", _ConsoleOnFirstUse(stderr=True))


def print_json(obj: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Print a model or plain data as indented JSON on stdout (no rich markup, safe to pipe)."""
    if isinstance(obj, BaseModel):
        text = obj.model_dump_json(indent=2)
    else:
        text = json.dumps(obj, indent=2, default=str)
    sys.stdout.write(text + "\n")


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
    err_console.print(f"report written to {path}", highlight=False)
