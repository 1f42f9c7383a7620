"""`blockfit report`: any blockfit results (JSON, or a diagnose recording) → one self-contained HTML page."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from blockfit.cli import app
from blockfit.cli.common import supplied_by
from blockfit.cli.output import console, print_json
from blockfit.errors import InputError
from blockfit.files import check_distinct, check_target


def _check_out(value: Path) -> Path:
    """Checked while parsing: a bad -o must fail before any --png file is written."""
    check_target(value, "-o")
    return value


def _check_png(value: Path | None) -> Path | None:
    try:
        ok = value is None or value.is_dir()
    except OSError:  # a name too long
        ok = False
    if not ok:   # made when the page is written, as build --out makes its own (the nearest existing one a dir)
        assert value is not None
        blocker = next((p for p in (value, *value.parents) if os.path.lexists(p)), None)
        if blocker is not None and not blocker.is_dir():
            raise InputError(f"--png {str(value)!r}: {str(blocker)!r} is a file, not a directory")
    return value


@app.command("report")
def report_command(
    results: Annotated[list[Path], typer.Argument(
        metavar="RESULT.json...", help="--json output of model, plan, a fleet plan (plan --from a metrics URL), "
                                       "calibrate, lab, lab --bench, diagnose, build, bench or inventory "
                                       "(inspect), or a 'diagnose --record' capture; any number, in the order to "
                                       "show")],
    out: Annotated[Path, typer.Option("-o", "--out", help="the HTML file to write", callback=_check_out)]
    = Path("report.html"),
    png: Annotated[Path | None, typer.Option("--png", help="also write every figure as a PNG into this directory "
                                                        "(made if missing)",
                                             callback=_check_png)] = None,
    title: Annotated[str | None, typer.Option("--title", help="page title (default: from the results)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print what was written as JSON")] = False,
) -> None:
    """Write one offline HTML page (inline CSS and SVG figures, no script) explaining the results."""
    from blockfit.report import check_png_dir
    from blockfit.report import report as write_report  # matplotlib: imported only when a report is made

    check_distinct([("-o", out)], [("input", p) for p in results])
    if png is not None:
        try:
            png.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--png {str(png)!r}: cannot make the directory ({exc.strerror})") from None
        with supplied_by("--png"):
            check_png_dir(png)
    pngs = [str(p) for p in write_report(results, out, title, png)]
    if json_out:
        print_json({"report": str(out), "inputs": [str(p) for p in results], "png": pngs})
    else:
        # markup off: a file name such as "[bold]x.html" is a name, not rich markup
        console.print(f"report written to {out}" + (f" ({len(pngs)} PNGs in {png})" if png else ""),
                      highlight=False, markup=False, soft_wrap=True)   # a path is never folded
