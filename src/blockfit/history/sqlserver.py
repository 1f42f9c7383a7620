"""Snapshots of sys.dm_io_virtual_file_stats (`blockfit sql sqlserver`, appended run after run) → per-file intervals.

Each line: ``BFIO-SQLSERVER, sample_time_utc, sqlserver_start_time_utc, database_name, file_id, type_desc,
sample_ms, num_of_reads, num_of_bytes_read, num_of_writes, num_of_bytes_written, physical_name`` (a header
line, if sqlcmd wrote one, is ignored). The counters are cumulative since the instance started (or since the
database came online); a file's interval between two snapshots is the growth of its counters:

    read IOPS = Δnum_of_reads / Δt,  MB/s = (Δnum_of_bytes_read + Δnum_of_bytes_written) / Δt / 10^6

num_of_reads/num_of_writes count I/O requests issued by SQL Server (what storage serves; a read-ahead of 512 KB
is one), so no block mapping is needed. A new sqlserver_start_time is a restart: the interval across it is
skipped. A counter that goes down without one (a database taken offline and back, or a mixed export) is
refused: its rate over that interval is unknown. Files are members (``database:file_id``); the plan sums them.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from blockfit.errors import ValueProblem
from blockfit.history.awr import number
from blockfit.history.series import Sample, Series, check_rate, counter_delta, parse_time

MARK = "BFIO-SQLSERVER"
FIELDS = 12


COUNTERS = ("num_of_reads", "num_of_bytes_read", "num_of_writes", "num_of_bytes_written")
# snapshot time -> {file: its four COUNTERS}
Snapshots = dict[float, dict[str, tuple[float, float, float, float]]]


def read(path: Path, text: str) -> Series:
    src = str(path)
    snaps, starts, names = _snapshots(path, text)
    times = sorted(snaps)
    if len(times) < 2:
        raise ValueProblem(f"{path}: {len(times)} snapshot(s) of sys.dm_io_virtual_file_stats; expected at "
                           "least two (run the query repeatedly, appending to one file)")
    samples: list[Sample] = []
    restarts = 0
    for a, b in zip(times, times[1:], strict=False):
        if starts[a] != starts[b]:
            restarts += 1
            continue
        samples += _interval_samples(src, a, b, snaps)
    if not samples:
        raise ValueProblem(f"{path}: no interval between two snapshots of one SQL Server start")
    notes = [f"{path.name}: SQL Server sys.dm_io_virtual_file_stats, {len(names)} files in {len(times)} snapshots: "
             "IOPS = growth of num_of_reads + num_of_writes (requests) per second, MB/s = growth of num_of_bytes_read "
             "+ num_of_bytes_written / 10^6 per second, summed over the files"]
    skipped = [f"{restarts} interval(s) across a SQL Server restart (the counters started again)"] if restarts else []
    return Series(source=src, format="sqlserver", member_kind="file", samples=samples, skipped=skipped, notes=notes,
                  snapshot_source=True)


def _snapshots(path: Path, text: str) -> tuple[Snapshots, dict[float, str], dict[str, str]]:
    """Every file's counters per snapshot, each snapshot's SQL Server start time, and each file's shown name."""
    src = str(path)
    snaps: Snapshots = defaultdict(dict)
    starts: dict[float, str] = {}
    names: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line.startswith(MARK + ","):
            continue
        f = _fields(path, n, line)
        where = f"line {n}"
        t = parse_time(f[1], src, where)
        member = f"{f[3]}:{f[4]}"
        counters = _counters(path, where, f)
        if member in snaps[t]:
            raise ValueProblem(f"{path}: {where}: file {member} twice in the snapshot of {f[1]}")
        snaps[t][member] = counters
        if starts.setdefault(t, f[2]) != f[2]:
            raise ValueProblem(f"{path}: {where}: two start times in the snapshot of {f[1]}")
        names[member] = f"{member} ({f[11]})" if f[11] else member
    return snaps, starts, names


def _fields(path: Path, n: int, line: str) -> list[str]:
    """Line N's FIELDS fields; commas past the last field belong to physical_name."""
    f = [x.strip() for x in line.split(",")]
    if len(f) < FIELDS:
        raise ValueProblem(f"{path}: line {n}: {len(f)} fields; expected {FIELDS} (the columns of "
                           "'blockfit sql sqlserver')")
    return f[:FIELDS - 1] + [",".join(f[FIELDS - 1:])]


def _counters(path: Path, where: str, f: list[str]) -> tuple[float, float, float, float]:
    vals = []
    for i, what in zip((7, 8, 9, 10), COUNTERS, strict=True):
        v = number(f[i])
        if v is None:
            raise ValueProblem(f"{path}: {where}: {what} {f[i]!r} is not a number")
        vals.append(check_rate(str(path), where, what, v))
    return vals[0], vals[1], vals[2], vals[3]


def _interval_samples(src: str, a: float, b: float, snaps: Snapshots) -> list[Sample]:
    """Each file's interval from snapshot A to snapshot B (of one SQL Server start)."""
    dur = b - a
    samples: list[Sample] = []
    for member, cur in snaps[b].items():
        prev = snaps[a].get(member)
        if prev is None:
            continue  # a file added between the snapshots: its first interval is unknown
        where = f"file {member} between {_iso(a)} and {_iso(b)}"
        d = [counter_delta(src, where, nm, x, y) for nm, x, y in zip(COUNTERS, prev, cur, strict=True)]
        samples.append(Sample(key=b, member=member, start=a, duration_s=dur, label=_iso(b), read_iops=d[0] / dur,
                              write_iops=d[2] / dur, iops=(d[0] + d[2]) / dur, read_mbps=d[1] / dur / 1e6,
                              write_mbps=d[3] / dur / 1e6))
    return samples


def _iso(t: float) -> str:
    from blockfit.history.series import iso
    return iso(t) or ""
