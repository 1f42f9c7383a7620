"""`blockfit sql`: print the SQL a DBA runs to export I/O history that `plan --from` reads."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from blockfit.cli import app
from blockfit.cli.output import print_json
from blockfit.errors import InputError
from blockfit.history.sql import SCRIPTS

LICENCE = {
    "oracle": "reads AWR (DBA_HIST_*): needs the Oracle Diagnostics Pack licence; the script asks before it reads",
    "statspack": "reads Statspack (PERFSTAT.STATS$*): no Diagnostics Pack licence needed",
    "sqlserver": "reads sys.dm_io_virtual_file_stats: every edition, VIEW SERVER STATE",
}


@app.command("sql")
def sql_command(
    database: Annotated[str, typer.Argument(help="oracle (AWR), statspack, or sqlserver", metavar="DATABASE")],
    statspack: Annotated[bool, typer.Option("--statspack", help="with oracle: the Statspack variant (no "
                                                                "Diagnostics Pack licence needed)")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the script and its licence note as JSON")] = False,
) -> None:
    """Print the SQL that exports I/O history for 'blockfit plan --from' (redirect it to a file and run it)."""
    if database not in SCRIPTS:
        raise InputError(f"DATABASE {database!r}: expected oracle, statspack or sqlserver")
    if statspack and database != "oracle":
        raise InputError("--statspack: goes with 'oracle' (blockfit sql oracle --statspack)")
    which = "statspack" if statspack else database
    if json_out:
        print_json({"database": which, "licence": LICENCE[which], "reads_back": "blockfit plan --from FILE",
                    "script": SCRIPTS[which]})
        return
    sys.stdout.write(SCRIPTS[which])
