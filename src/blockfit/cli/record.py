"""`blockfit record --pg DSN`: record a PostgreSQL server's I/O counters and its devices' for `plan --from`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from blockfit.cli import app, params
from blockfit.cli.common import supplied_by
from blockfit.cli.output import print_json
from blockfit.errors import InputError
from blockfit.files import check_target, partial_name
from blockfit.history.pg_record import TIMEOUT_S, record, sample_count
from blockfit.units import env_seconds, parse_duration

TIMEOUT_ENV = "BLOCKFIT_PG_TIMEOUT"
MAX_TIMEOUT_S = 3600.0


def call_timeout() -> float:
    """BLOCKFIT_PG_TIMEOUT: seconds one call to the server may take before the recording stops (default 30)."""
    return env_seconds(TIMEOUT_ENV, TIMEOUT_S, MAX_TIMEOUT_S)


@app.command("record")
def record_command(
    pg: Annotated[str | None, typer.Option("--pg", help="libpq connection string or URI of the PostgreSQL server, "
                                                         "e.g. 'host=/run/postgresql dbname=postgres'")] = None,
    interval: Annotated[str, typer.Option(help="time between samples, e.g. 10s", callback=params.duration)] = "10s",
    duration: Annotated[str, typer.Option(help="how long to record, e.g. 1h", callback=params.duration)] = "1h",
    out: Annotated[Path | None, typer.Option(help="the recording to write (JSON lines) for 'plan --from'")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the recording's header as JSON")] = False,
) -> None:
    """Sample the server's own I/O counters and the host's diskstats of the devices under its data directory."""
    if pg is None or not pg.strip() or len(pg) > 4096 or any(not c.isprintable() for c in pg):
        raise InputError("--pg: expected the server's connection string (libpq 'key=value ...' or a postgresql:// URI, "
                         "one line)")
    if out is None:
        raise InputError("--out: expected the file to write the recording to")
    check_target(out, "--out")
    if os.path.lexists(partial_name(out)):   # an earlier run's samples: never replaced
        raise InputError(f"--out {str(out)!r}: {str(partial_name(out))!r} exists (what a run cut short had written); "
                         "move it away, or read it: it is a recording of its own")
    every = parse_duration(interval, "--interval")
    total = parse_duration(duration, "--duration")
    if total < every:
        raise InputError(f"--duration {duration}: expected at least one --interval ({interval})")
    with supplied_by("--duration"):
        sample_count(every, total)
    timeout_s = call_timeout()

    def progress(done: int, count: int) -> None:
        if not json_out and sys.stderr.isatty():
            print(f"\rrecord: {done}/{count} samples", end="", file=sys.stderr, flush=True)

    with supplied_by("--pg"):   # the server it names refused the connection
        header = record(pg, every, total, out, progress, timeout_s)
    if json_out:
        print_json(header)
        return
    devices = ", ".join(d["name"] for d in header["devices"]) or "none (the data directory is not on this host)"
    print(f"\nrecorded {header['samples']} samples of PostgreSQL {header['server_version'] // 10000} "
          f"({header['server_counters']}) and devices {devices} to {out}; plan with: blockfit plan --from {out} ...")
