"""The spool of `blockfit sql oracle` (AWR) or `blockfit sql statspack` → one interval per instance and snapshot.

Lines (everything else SQL*Plus writes is ignored):

    BFIO-HEADER,1,awr|statspack,DB_NAME,DBID,INSTANCES
    BFIO,INST,SNAP_ID,BEGIN,END,STARTUP,READ_REQS,WRITE_REQS,READ_BYTES,WRITE_BYTES,RR_MAX,WR_MAX,RB_MAX,WB_MAX

READ_REQS ... WRITE_BYTES are the cumulative 'physical read/write total IO requests/bytes' at the snapshot's
end; the interval of snapshot N is END(N-1) → END(N) and its rates are the counters' growth over it. A new
STARTUP time is a restart: the counters start again from zero and that interval is skipped (its growth is
unknown). A counter that goes down with the same STARTUP is refused. *_MAX are AWR's busiest 60-second rates
inside the snapshot (DBA_HIST_SYSMETRIC_SUMMARY.MAXVAL; empty for Statspack): the peak of reads + writes is
taken as RR_MAX + WR_MAX, an upper bound (reads and writes may have peaked in different minutes), and summed
over RAC instances the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from blockfit.errors import ValueProblem
from blockfit.history.awr import number
from blockfit.history.series import Sample, Series, check_rate, counter_delta, parse_time

FIELDS = 13


@dataclass(frozen=True)
class _Row:
    line: int
    inst: str
    snap: int
    begin: float | None
    end: float
    startup: str
    counters: tuple[float, float, float, float]
    maxima: tuple[float, float, float, float] | None


def read(path: Path, text: str) -> Series:
    src = str(path)
    header, rows = _spool_lines(src, text)
    kind, db_name, dbid, total = _header(path, header)
    if not rows:
        raise ValueProblem(f"{path}: no BFIO data lines (no snapshots in the exported days?)")
    per_inst: dict[str, list[_Row]] = {}
    for r in rows:
        per_inst.setdefault(r.inst, []).append(r)
    samples: list[Sample] = []
    restarts = 0
    for inst, rs in per_inst.items():
        got, skipped_here = _instance_samples(path, inst, rs)
        samples += got
        restarts += skipped_here
    if not samples:
        raise ValueProblem(f"{path}: fewer than two snapshots per instance; nothing to take differences of")
    fmt = "oracle-spool" if kind == "awr" else "statspack-spool"
    skipped = [f"{restarts} interval(s) across an instance restart (the counters started again)"] if restarts else []
    return Series(source=src, format=fmt, member_kind="instance", samples=samples, skipped=skipped,
                  notes=_notes(path, kind, f"{db_name} (DBID {dbid})", samples),
                  database=f"{db_name} (DBID {dbid})", instances_total=max(total or 0, len(per_inst)),
                  snapshot_source=True)


def _spool_lines(src: str, text: str) -> tuple[list[str] | None, list[_Row]]:
    """The spool's header fields (the last BFIO-HEADER line) and its data rows; whatever else is in it is not ours."""
    header = None
    rows: list[_Row] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("BFIO-HEADER,"):
            header = line.split(",")
        elif line.startswith("BFIO,"):
            rows.append(_row(src, n, line.split(",")))
    return header, rows


def _header(path: Path, header: list[str] | None) -> tuple[str, str, str, int | None]:
    """The header's kind (awr or statspack), database name, DBID and instance count (None where not a number)."""
    if header is None or len(header) < 6 or header[1] != "1" or header[2] not in ("awr", "statspack"):
        raise ValueProblem(f"{path}: no 'BFIO-HEADER,1,awr|statspack,...' line (expected the spool of "
                           "'blockfit sql oracle' or 'blockfit sql statspack')")
    try:
        total: int | None = int(header[5])
    except ValueError:
        total = None
    return header[2], header[3], header[4], total


def _notes(path: Path, kind: str, database: str, samples: list[Sample]) -> list[str]:
    notes = [f"{path.name}: {'AWR' if kind == 'awr' else 'Statspack'} export of {database}: per "
             "instance and snapshot, IOPS = growth of (physical read + write total IO requests) / snapshot seconds, "
             "MB/s = growth of (physical read + write total bytes) / seconds / 10^6"]
    if any(s.peak_iops is not None for s in samples):
        notes.append(f"{path.name}: the busiest minute of each snapshot is DBA_HIST_SYSMETRIC_SUMMARY MAXVAL of the "
                     "read and the write rates, added: an upper bound, as reads and writes may peak in different "
                     "minutes (and RAC instances in different minutes)")
    return notes


def _instance_samples(path: Path, inst: str, rs: list[_Row]) -> tuple[list[Sample], int]:
    """One instance's intervals, snapshot to snapshot (RS is sorted here), and how many a restart cut."""
    src = str(path)
    samples: list[Sample] = []
    restarts = 0
    rs.sort(key=lambda r: r.snap)
    for prev, cur in zip(rs, rs[1:], strict=False):
        if cur.snap == prev.snap:
            raise ValueProblem(f"{path}: line {cur.line}: instance {inst} snapshot {cur.snap} twice")
        if cur.startup != prev.startup:
            restarts += 1
            continue
        where = f"line {cur.line} (instance {inst}, snapshot {cur.snap})"
        names = ("physical read total IO requests", "physical write total IO requests",
                 "physical read total bytes", "physical write total bytes")
        d = [counter_delta(src, where, nm, a, b) for nm, a, b in zip(names, prev.counters, cur.counters, strict=True)]
        dur = cur.end - prev.end
        if dur <= 0:
            raise ValueProblem(f"{path}: {where}: its end time is not after the previous snapshot's")
        peak_i = peak_m = None
        if cur.maxima is not None:
            peak_i = cur.maxima[0] + cur.maxima[1]
            peak_m = (cur.maxima[2] + cur.maxima[3]) / 1e6
        samples.append(Sample(key=cur.snap, member=f"instance {inst}", start=prev.end, duration_s=dur,
                              label=f"snapshots {prev.snap}-{cur.snap}", read_iops=d[0] / dur,
                              write_iops=d[1] / dur, iops=(d[0] + d[1]) / dur, read_mbps=d[2] / dur / 1e6,
                              write_mbps=d[3] / dur / 1e6, peak_iops=peak_i, peak_mbps=peak_m))
    return samples, restarts


def _row(src: str, n: int, f: list[str]) -> _Row:
    where = f"line {n}"
    if len(f) != FIELDS + 1:
        raise ValueProblem(f"{src}: {where}: {len(f) - 1} fields after BFIO; expected {FIELDS} (instance, "
                           "snapshot, begin, end, startup, 4 counters, 4 maxima): a cut or edited line?")
    try:
        snap = int(f[2])
    except ValueError:
        raise ValueProblem(f"{src}: {where}: snapshot id {f[2]!r} is not a number") from None
    counters = []
    for i, name in zip(range(6, 10), ("read requests", "write requests", "read bytes", "write bytes"), strict=True):
        v = number(f[i])
        if v is None:
            raise ValueProblem(f"{src}: {where}: {name} {f[i]!r} is not a number")
        counters.append(check_rate(src, where, name, v))
    maxima = [number(x) for x in f[10:14]]
    return _Row(line=n, inst=f[1].strip(), snap=snap,
                begin=parse_time(f[3], src, where) if f[3].strip() else None, end=parse_time(f[4], src, where),
                startup=f[5].strip(), counters=(counters[0], counters[1], counters[2], counters[3]),
                maxima=None if any(m is None for m in maxima) else
                (maxima[0] or 0.0, maxima[1] or 0.0, maxima[2] or 0.0, maxima[3] or 0.0))
