"""Readers for workload history files: one function per format, each giving per-device samples.

Users know their workload from iostat, sar or a database's own I/O history, not as a target IOPS. Each
reader turns one format into the same `DeviceSample` rows (rates per second, MB/s = 10^6 B/s); parse
errors name the file and, where there is one, the line or report.

- iostat: `iostat -x -d -o JSON [-t] [-y] INTERVAL COUNT` (sysstat). Its first report is the average
  since boot unless `-y` was given, so a file of two or more reports loses its first.
- sadf: `sadf -j FILE -- -d` (sysstat's per-device sar data). sar -d has no read/write split of I/Os
  (only tps and kB read/written), so reads' share comes from bytes there.
- diagnose: a `blockfit diagnose --record` capture (raw /proc/diskstats per sample).
- csv: `timestamp, read IOPS, write IOPS, read MB/s, write MB/s`, an optional header line; one series.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockfit.diagnose import metrics, sampler
from blockfit.errors import InputError
from blockfit.inputs import load_json, read_text
from blockfit.schema.history import HistoryFormat

CSV_COLUMNS = ("timestamp", "read IOPS", "write IOPS", "read MB/s", "write MB/s")


@dataclass(frozen=True)
class DeviceSample:
    """One device's rates over one sample interval (read_iops/write_iops None: the format has only the total)."""

    index: int
    device: str
    iops: float
    read_iops: float | None
    write_iops: float | None
    read_mbps: float
    write_mbps: float


@dataclass(frozen=True)
class History:
    format: HistoryFormat
    samples: list[DeviceSample]
    skipped: list[str]

    @property
    def devices(self) -> list[str]:
        return sorted({s.device for s in self.samples})


EXPECTED = "iostat/sadf JSON, a diagnose capture or a CSV"
MAX_RATE = 1e12  # per second, per device: far above any block device; beyond it sums overflow to infinity


def read_history(path: Path) -> History:
    """Read PATH in whichever of the four formats it is (JSON from sysstat, JSONL from diagnose, else CSV)."""
    text = read_text(path, f"--from {path}", EXPECTED)
    if not text.strip():
        raise InputError(f"--from {path}: the file is empty")
    first = text.lstrip()[:1]
    if first == "[":
        raise InputError(f"--from {path}: a JSON array; expected {EXPECTED} (sysstat JSON is an object)")
    if first == "{":
        first_line = text.lstrip().splitlines()[0]
        if '"type": "header"' in first_line or '"type":"header"' in first_line:
            return _diagnose(path)
        return _sysstat(path, text)
    return _csv(path, text)


def _sysstat(path: Path, text: str) -> History:
    try:
        doc = load_json(text, f"--from {path}")
        hosts = doc["sysstat"]["hosts"]
        stats = hosts[0]["statistics"]
        if not isinstance(hosts, list) or not isinstance(stats, list):
            raise TypeError
    except InputError:
        raise
    except (ValueError, KeyError, IndexError, TypeError):
        raise InputError(f"--from {path}: not sysstat JSON (expected iostat -o JSON or sadf -j output with "
                         "sysstat.hosts[0].statistics)") from None
    if len(hosts) > 1:
        raise InputError(f"--from {path}: {len(hosts)} hosts in one file; expected one")
    reports = [r for r in stats if isinstance(r, dict) and "disk" in r]
    if not reports:
        raise InputError(f"--from {path}: no per-device statistics (run iostat with -d -x, or sadf with '-- -d')")
    for i, rep in enumerate(reports):
        disks = rep["disk"]
        if not isinstance(disks, list) or not all(isinstance(d, dict) for d in disks):
            raise InputError(f"--from {path}: report {i + 1}: \"disk\" is {_json_kind(disks)}; expected a list of "
                             "per-device objects")
    disks = reports[0]["disk"]
    is_iostat = bool(disks) and "disk_device" in disks[0]
    skipped: list[str] = []
    if is_iostat and len(reports) > 1:
        reports = reports[1:]
        skipped.append("iostat's first report (the average since boot unless iostat ran with -y)")
    samples = [s for i, rep in enumerate(reports) for s in _sysstat_report(path, i, rep["disk"], is_iostat)]
    return History(format="iostat" if is_iostat else "sadf", samples=samples, skipped=skipped)


def _num(path: Path, where: str, row: dict[str, Any], key: str) -> float:
    try:
        value = float(row[key])
    except (KeyError, TypeError, ValueError):
        raise InputError(f"--from {path}: {where}: missing or non-numeric {key!r}") from None
    if not math.isfinite(value) or value < 0 or value > MAX_RATE:
        raise InputError(f"--from {path}: {where}: {key!r} is {str(row[key])[:40]}; expected a finite rate from 0 "
                         f"to {MAX_RATE:g}")
    return value


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list of " + ", ".join(sorted({type(v).__name__ for v in value})) if value else "an empty list"
    return {dict: "an object", str: "a string", type(None): "null"}.get(type(value), type(value).__name__)


def _sysstat_report(path: Path, index: int, disks: list[dict[str, Any]], is_iostat: bool) -> Iterator[DeviceSample]:
    where = f"report {index + 1}"
    for d in disks:
        name = str(d.get("disk_device" if is_iostat else "disk-device", ""))
        if not name:
            raise InputError(f"--from {path}: {where}: a disk entry without a device name")
        if is_iostat:
            r, w = _num(path, where, d, "r/s"), _num(path, where, d, "w/s")
            yield DeviceSample(index, name, r + w, r, w, _num(path, where, d, "rkB/s") * 1024 / 1e6,
                               _num(path, where, d, "wkB/s") * 1024 / 1e6)
        else:  # sar -d: tps counts reads, writes and discards; rkB/wkB are per second here
            yield DeviceSample(index, name, _num(path, where, d, "tps"), None, None,
                               _num(path, where, d, "rkB") * 1024 / 1e6, _num(path, where, d, "wkB") * 1024 / 1e6)


def _diagnose(path: Path) -> History:
    try:
        capture = sampler.load(path)
    except InputError as exc:
        raise InputError(str(exc).replace("--replay", "--from", 1)) from None
    samples = [DeviceSample(i, name, iv.iops, iv.r_iops, iv.w_iops, iv.r_mbps, iv.w_mbps)
               for name, intervals in metrics.series(capture).items() for i, iv in enumerate(intervals)]
    return History(format="diagnose", samples=samples, skipped=[])


def _csv(path: Path, text: str) -> History:
    try:
        rows = [r for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
    except csv.Error as exc:  # a field over the csv module's limit (131,072 characters), a NUL byte
        raise InputError(f"--from {path}: not a CSV of {', '.join(CSV_COLUMNS)} ({exc})") from None
    skipped: list[str] = []
    if rows and not _is_number(rows[0][1] if len(rows[0]) > 1 else ""):
        rows = rows[1:]
        skipped.append("the CSV header line")
    samples = []
    for i, row in enumerate(rows):
        where = f"data row {i + 1}"
        if len(row) != len(CSV_COLUMNS):
            raise InputError(f"--from {path}: {where} has {len(row)} fields; expected {len(CSV_COLUMNS)}: "
                             f"{', '.join(CSV_COLUMNS)}")
        vals = dict(zip(CSV_COLUMNS[1:], row[1:], strict=True))
        r, w = _num(path, where, vals, "read IOPS"), _num(path, where, vals, "write IOPS")
        samples.append(DeviceSample(i, "", r + w, r, w, _num(path, where, vals, "read MB/s"),
                                    _num(path, where, vals, "write MB/s")))
    if not samples:
        raise InputError(f"--from {path}: no data rows (expected: {', '.join(CSV_COLUMNS)})")
    return History(format="csv", samples=samples, skipped=skipped)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True
