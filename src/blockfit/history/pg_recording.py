"""A `blockfit record --pg` recording → per-interval rates: the devices' when the recording has them, else the
server's blocks mapped to I/Os.

The targets rest on the devices under the data directory (what a volume must serve): IOPS = completed reads +
writes per second, MB/s = sectors x 512 / 10^6 per second, from /proc/diskstats. The server's counters of the
same intervals are put beside them, as the mapping the DBA can check:

    server read I/Os  = blocks read from the kernel (pg_stat_io reads, or pg_stat_database.blks_read)
    server write I/Os = blocks written (checkpointer + bgwriter + backends; pg_stat_io writes + extends)
                        + WAL write() calls (pg_stat_wal.wal_write; inside pg_stat_io from 18 on)
    server bytes      = blocks x block_size (or pg_stat_io's bytes) + WAL bytes

and the recording's note gives the measured ratio of device I/Os to server I/Os for reads and writes over the
whole recording: below 1 where the page cache answered reads or the kernel merged writes, above 1 where
filesystem journal and metadata writes were added. Without device counters (the server is on another host, or
the user may not read data_directory) the server's mapping is the series, with a warning that it overstates
reads the page cache would serve and writes the kernel would merge.

A recording whose time does not run forward, or whose counters go down without a reset or a restart, is
refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from blockfit.devices import diskstats
from blockfit.errors import ValueProblem
from blockfit.history.series import Sample, SampleTable, Series, counter_delta, parse_time

FORMAT = "blockfit-pg-recording"   # what `blockfit record --pg` writes (history/pg_record.py)
VERSION = 1
SECTOR = 512  # /proc/diskstats counts 512-byte sectors whatever the device's block size
SERVER_KEYS = ("reads", "read_bytes", "writes", "write_bytes", "extends", "wal_writes", "wal_bytes")


def read(path: Path, text: str) -> Series:
    return read_lines(path, iter(text.splitlines()))


def read_lines(path: Path, lines: Iterator[str], max_samples: int | None = None) -> Series:
    """A recording read line by line: only the previous sample is kept beside the rates (float columns), so a
    long recording costs about 100 bytes an interval and device."""
    src = str(path)
    nonblank = (x for x in lines if x.strip())
    header = _header(path, next(nonblank, None))
    devices = [str(d.get("name")) for d in header.get("devices") or [] if isinstance(d, dict)]
    started = parse_time(str(header.get("started", "")), src, "header")
    out = SampleTable()  # an hour at 1 s is 3,600 rows per device; a week, 600,000
    dev_totals = [0.0, 0.0]
    srv_totals = [0.0, 0.0]
    resets = 0
    count = 0
    a: dict[str, Any] = {}
    before: dict[str, diskstats.Counters] = {}
    for n, b in _samples(path, nonblank):
        count += 1
        if max_samples is not None and count > max_samples:
            raise ValueProblem(f"{path}: more than {max_samples:,} samples; expected at most that many "
                               "(a month of 1-second samples): record at a longer interval")
        after = _diskstats(path, n, b["diskstats"]) if devices else {}
        if count > 1:
            resets += _interval(path, devices, started, count - 1, a, b, before, after, out, dev_totals, srv_totals)
        a, before = b, after
    if count < 2:
        raise ValueProblem(f"{path}: {count} sample(s); expected at least two")
    return _series(path, header, devices, out, dev_totals, srv_totals, resets)


def _interval(path: Path, devices: list[str], started: float, k: int, a: dict[str, Any], b: dict[str, Any],
              before: dict[str, diskstats.Counters], after: dict[str, diskstats.Counters],
              out: SampleTable, dev_totals: list[float], srv_totals: list[float]) -> int:
    """The rates between samples K and K+1 appended to OUT; 1 when a statistics reset lies between them."""
    src = str(path)
    dt = b["t"] - a["t"]
    where = f"sample {k + 1}"
    pa, pb = a["pg"], b["pg"]
    if pa.get("reset") != pb.get("reset"):
        return 1
    d = {key: counter_delta(src, where, f"server {key}", float(pa.get(key, 0)), float(pb.get(key, 0)))
         for key in SERVER_KEYS if key in pb}
    s_read = d.get("reads", 0.0)
    s_write = d.get("writes", 0.0) + d.get("extends", 0.0) + d.get("wal_writes", 0.0)
    s_bytes = d.get("read_bytes", 0.0) + d.get("write_bytes", 0.0) + d.get("wal_bytes", 0.0)
    srv_totals[0] += s_read
    srv_totals[1] += s_write
    start = started + a["t"]
    label = f"+{a['t']:.0f} s"
    if devices:
        for name in devices:
            if name not in before or name not in after:
                raise ValueProblem(f"{path}: {where}: no diskstats line for device {name}")
            dr, dw, dsr, dsw, dq = (y - x for x, y in zip(before[name], after[name], strict=True))
            if min(dr, dw, dsr, dsw, dq) < 0:
                raise ValueProblem(f"{path}: {where}: device {name}'s counters went down (device re-created?)")
            dev_totals[0] += dr
            dev_totals[1] += dw
            out.append(Sample(key=k, member=name, start=start, duration_s=dt, label=label, read_iops=dr / dt,
                              write_iops=dw / dt, iops=(dr + dw) / dt, read_mbps=dsr * SECTOR / dt / 1e6,
                              write_mbps=dsw * SECTOR / dt / 1e6, outstanding=dq / (dt * 1000)))
    else:
        rb = d.get("read_bytes", 0.0)
        out.append(Sample(key=k, member="server", start=start, duration_s=dt, label=label, read_iops=s_read / dt,
                          write_iops=s_write / dt, iops=(s_read + s_write) / dt, read_mbps=rb / dt / 1e6,
                          write_mbps=(s_bytes - rb) / dt / 1e6))
    return 0


def _series(path: Path, header: dict[str, Any], devices: list[str], out: SampleTable, dev_totals: list[float],
            srv_totals: list[float], resets: int) -> Series:
    src = str(path)
    if not out:
        raise ValueProblem(f"{path}: no interval between two samples of one counter epoch")
    version = int(header.get("server_version", 0))
    counters = str(header.get("server_counters", ""))
    notes = [f"{path.name}: PostgreSQL {version // 10000} recording every {header.get('interval_s')} s, server "
             f"counters from {counters}; server I/Os = blocks read; blocks written + extended + WAL write() calls; "
             f"bytes = blocks x {header.get('block_size', 8192)} + WAL bytes"]
    warnings: list[str] = []
    if devices:
        ratio_r = dev_totals[0] / srv_totals[0] if srv_totals[0] else math.nan
        ratio_w = dev_totals[1] / srv_totals[1] if srv_totals[1] else math.nan
        paths = "; ".join(f"{d.get('name')}: {', '.join(d.get('paths') or [])}" for d in header["devices"])
        notes.append(f"{path.name}: the targets use the devices under the data directory ({paths}); over the "
                     f"recording they did {dev_totals[0]:,.0f} reads and {dev_totals[1]:,.0f} writes for the "
                     f"server's {srv_totals[0]:,.0f} block reads and {srv_totals[1]:,.0f} block and WAL writes: "
                     f"device/server = {_ratio(ratio_r)} for reads (the page cache answers the rest), "
                     f"{_ratio(ratio_w)} for writes (the kernel merges neighbours; the journal adds its own)")
    else:
        warnings.append(f"{path.name}: no device counters (the server's data directory is not on this host, or "
                        "could not be read): the targets count the server's blocks as I/Os, which overstates reads "
                        "the page cache serves and writes the kernel merges")
    skipped = [f"{resets} interval(s) across a statistics reset"] if resets else []
    return Series(source=src, format="pg-recording", member_kind="device" if devices else "series", samples=out,
                  skipped=skipped, notes=notes, warnings=warnings)


def _diskstats(path: Path, line: int, lines: list[Any]) -> dict[str, diskstats.Counters]:
    """(reads, writes, sectors read, sectors written, weighted ms) per device of one sample's /proc/diskstats lines: the
    diskstats fast path (the full parser costs several times more over a long recording)."""
    try:
        return diskstats.counters(map(str, lines))
    except diskstats.FieldCount as exc:
        raise ValueProblem(f"{path}: line {line}: {exc}") from None
    except ValueError:
        raise ValueProblem(f"{path}: line {line}: a diskstats line with a non-numeric counter") from None


def _ratio(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.2f}"


def _header(path: Path, line: str | None) -> dict[str, Any]:
    try:
        header = json.loads(line or "")
    except (ValueError, RecursionError):
        raise ValueProblem(f"{path}: line 1: not a blockfit record header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueProblem(f"{path}: line 1: not a blockfit PostgreSQL recording header")
    if header.get("version") != VERSION:
        raise ValueProblem(f"{path}: recording version {header.get('version')!r}; this blockfit reads "
                           f"version {VERSION}")
    return header


def _samples(path: Path, lines: Iterator[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number among the non-blank lines, sample) of each sample line, checked as it is read."""
    last = -math.inf
    for n, line in enumerate(lines, 2):
        try:
            s = json.loads(line)
            t = float(s["t"])
            if not isinstance(s["pg"], dict) or not isinstance(s.get("diskstats", []), list):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            raise ValueProblem(f"{path}: line {n}: not a recording sample (expected t, pg, diskstats)") from None
        if not math.isfinite(t) or t <= last:
            raise ValueProblem(f"{path}: line {n}: time {t} does not run forward (after {last:g} s)")
        last = t
        yield n, s
