"""The one shape every history reader produces: per-interval rates of each member (device, instance, file, volume).

Why one shape: iostat, AWR, Statspack, SQL Server, the clouds' volume metrics and a PostgreSQL recording all say
the same thing in different words, "this member did so many reads and writes, of so many bytes, in this
interval". Each reader turns its format into `Sample` rows; `history.targets` sums the members per interval and
takes the percentile, whatever the source. A new reader (e.g. the Prometheus fleet reader) only has to build a
`Series`.

Units: rates per second, MB/s = 10^6 B/s. Times are POSIX seconds (UTC when the source says so, else the
source's own clock read as UTC); `None` when the source has no clock (a CSV without timestamps).
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, overload

from blockfit.errors import ValueProblem

# snapshot sources (AWR, Statspack, SQL Server exports): intervals shorter than this are too short to carry a
# rate (a manual snapshot taken seconds after the automatic one) and are skipped, as DBAs skip them by hand
MIN_SNAPSHOT_S = 60.0
# the clouds' raw data points are per minute: a mean or maximum of them / 60 is a per-second rate
MINUTE_S = 60.0


@dataclass(frozen=True)
class Sample:
    """One member's rates over one interval.

    ``key`` aligns samples of different members and files: the snapshot range ("2668-2669") where the source
    has snapshot ids (RAC instances' reports of the same snapshots share it), else the interval's start time,
    else its index. ``peak_iops``/``peak_mbps`` are a finer maximum inside the interval where the source has one
    (AWR sysmetric MAXVAL, CloudWatch Maximum of 1-minute points), else None. ``outstanding`` is the member's mean
    I/Os in flight over the interval (iostat's aqu-sz, the time-weighted queue of /proc/diskstats) where the
    source has it, else None.
    """

    key: str | float | int
    member: str
    start: float | None
    duration_s: float
    label: str
    read_iops: float | None
    write_iops: float | None
    iops: float
    read_mbps: float
    write_mbps: float
    peak_iops: float | None = None
    peak_mbps: float | None = None
    outstanding: float | None = None

    @property
    def mbps(self) -> float:
        return self.read_mbps + self.write_mbps


class SampleTable(Sequence[Sample]):
    """Samples kept as columns (`array('d')` floats, None as NaN; labels as one UTF-8 blob) instead of one object
    each: under 100 bytes a row where a Sample costs about 600, so a history of millions of intervals (a CSV of
    1-second rows) fits in memory. With ``positional_keys`` a row's key is its position (a CSV's row number) and no
    key is stored. It reads as a sequence of Sample (each built when asked for); `history.targets` reads the
    columns.
    """

    COLUMNS = ("start", "duration_s", "read_iops", "write_iops", "iops", "read_mbps", "write_mbps", "peak_iops",
               "peak_mbps", "outstanding")

    def __init__(self, positional_keys: bool = False) -> None:
        self.positional_keys = positional_keys
        self.stored_keys: list[str | float | int] = []
        self.member_names: list[str] = []
        self.member_index = array("I")
        self.columns = {name: array("d") for name in self.COLUMNS}
        self._labels = bytearray()
        self._label_ends = array("Q")
        self._member_ids: dict[str, int] = {}

    def add(self, key: str | float | int, member: str, start: float | None, duration_s: float, label: str,
            read_iops: float | None, write_iops: float | None, iops: float, read_mbps: float, write_mbps: float,
            peak_iops: float | None = None, peak_mbps: float | None = None,
            outstanding: float | None = None) -> None:
        """Append one row (the fields of Sample, in its order; KEY is ignored with positional keys)."""
        ix = self._member_ids.get(member)
        if ix is None:
            ix = self._member_ids[member] = len(self.member_names)
            self.member_names.append(member)
        if not self.positional_keys:
            self.stored_keys.append(key)
        self._labels += label.encode("utf-8", "surrogatepass")
        self._label_ends.append(len(self._labels))
        self.member_index.append(ix)
        values = (start, duration_s, read_iops, write_iops, iops, read_mbps, write_mbps, peak_iops, peak_mbps,
                  outstanding)
        for name, value in zip(self.COLUMNS, values, strict=True):
            self.columns[name].append(math.nan if value is None else value)

    def append(self, s: Sample) -> None:
        self.add(s.key, s.member, s.start, s.duration_s, s.label, s.read_iops, s.write_iops, s.iops, s.read_mbps,
                 s.write_mbps, s.peak_iops, s.peak_mbps, s.outstanding)

    def key(self, i: int) -> str | float | int:
        return i if self.positional_keys else self.stored_keys[i]

    def label(self, i: int) -> str:
        start = self._label_ends[i - 1] if i > 0 else 0
        return self._labels[start:self._label_ends[i]].decode("utf-8", "surrogatepass")

    def __len__(self) -> int:
        return len(self._label_ends)

    @overload
    def __getitem__(self, i: int) -> Sample: ...

    @overload
    def __getitem__(self, i: slice) -> list[Sample]: ...

    def __getitem__(self, i: int | slice) -> Sample | list[Sample]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        c = {name: col[i] for name, col in self.columns.items()}
        opt = {name: None if math.isnan(c[name]) else c[name]
               for name in ("start", "read_iops", "write_iops", "peak_iops", "peak_mbps", "outstanding")}
        return Sample(self.key(i), self.member_names[self.member_index[i]], opt["start"], c["duration_s"],
                      self.label(i), opt["read_iops"], opt["write_iops"], c["iops"], c["read_mbps"],
                      c["write_mbps"], opt["peak_iops"], opt["peak_mbps"], opt["outstanding"])

    def __iter__(self) -> Iterator[Sample]:
        for i in range(len(self)):
            yield self[i]


MemberKind = str  # "device", "instance", "file", "volume", "disk", "series"


@dataclass(frozen=True)
class HostSize:
    """The CPUs (vCPUs: hardware threads) and memory (GB, 2^30 bytes) of the host a history ran on, and where
    they were read: what compute the database had beside its I/O."""

    cpus: int
    memory_gb: float
    source: str


@dataclass
class Series:
    """What one history file (or URL) holds, and what the reader had to say about it.

    ``notes`` state mappings and reconciliations (block counts vs I/O requests, IO Profile vs Instance Activity
    Stats), ``warnings`` what the user must know (a single RAC instance's report), ``skipped`` what was left out.
    ``database`` identifies the database for Oracle sources (RAC instances' reports must name the same one);
    ``instances_total`` is how many instances the database had (RAC), ``global_report`` that the series is
    already the sum over all of them.
    """

    source: str
    format: str
    member_kind: MemberKind
    samples: Sequence[Sample]  # a list, or a SampleTable for long histories
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    database: str | None = None
    instances_total: int | None = None
    global_report: bool = False
    snapshot_source: bool = False
    host: HostSize | None = None   # the CPUs and memory of the host the history ran on, where it says

    @property
    def members(self) -> list[str]:
        if isinstance(self.samples, SampleTable):
            return sorted(self.samples.member_names)
        return sorted({s.member for s in self.samples})


def json_export(path: Path, text: str) -> Any:
    """A cloud metrics export's JSON document; anything that is not JSON (or nests past the parser's stack) is one
    line naming the file."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ValueProblem(f"{path}: not valid JSON") from None


def check_rate(source: str, where: str, name: str, value: float) -> float:
    """A rate or count read from a file: finite and not negative, else one line naming the file and the place."""
    if not math.isfinite(value) or value < 0:
        raise ValueProblem(f"{source}: {where}: {name} is {value:g}; expected a finite figure of at least 0")
    return value


def metric_value(path: Path, where: str, v: Any) -> float:
    """A cloud metric's data point value: a number, finite and not negative, else one line naming the file."""
    try:
        return check_rate(str(path), where, "value", float(v))
    except (TypeError, ValueError):
        raise ValueProblem(f"{path}: {where}: value {v!r} is not a number") from None


# (member, metric, statistic) -> {time: value}: a cloud export's data points
MetricPoints = dict[tuple[str, str, str], dict[float, float]]
# metric -> {time: rate per second}
Rates = dict[str, dict[float, float]]


def cloud_rates(points: MetricPoints, member: str, metrics: Iterable[str], period: float,
                stats: tuple[str, str, str]) -> tuple[Rates, Rates, set[str]]:
    """MEMBER's per-second rates of each metric, its busiest-minute rates, and the statistics read. STATS names
    the cloud's count in the period (a rate is it / the period), the mean of its per-minute points and their
    maximum (each / 60); the count is preferred to the mean."""
    total, mean, maximum = stats
    rate: Rates = {}
    peak: Rates = {}
    used: set[str] = set()
    for metric in metrics:
        if (member, metric, total) in points:
            rate[metric] = {t: v / period for t, v in points[(member, metric, total)].items()}
            used.add(total)
        elif (member, metric, mean) in points:
            rate[metric] = {t: v / MINUTE_S for t, v in points[(member, metric, mean)].items()}
            used.add(mean)
        if (member, metric, maximum) in points:
            peak[metric] = {t: v / MINUTE_S for t, v in points[(member, metric, maximum)].items()}
            used.add(maximum)
    return rate, peak, used


def ops_bytes_sample(t: float, member: str, start: float, duration_s: float,
                     rates: tuple[float, float, float, float],
                     peaks: tuple[float | None, float | None, float | None, float | None]) -> Sample:
    """One interval of MEMBER from per-second rates of read and write operations and bytes (the clouds' four
    metrics) and their busiest-minute rates; a peak adds reads and writes (an upper bound), None unless both are
    known."""
    read_ops, write_ops, read_bytes, write_bytes = rates
    peak_read_ops, peak_write_ops, peak_read_bytes, peak_write_bytes = peaks
    peak_iops = None if peak_read_ops is None or peak_write_ops is None else peak_read_ops + peak_write_ops
    peak_mbps = None if peak_read_bytes is None or peak_write_bytes is None else \
        (peak_read_bytes + peak_write_bytes) / 1e6
    return Sample(key=t, member=member, start=start, duration_s=duration_s, label=iso(t) or "",
                  read_iops=read_ops, write_iops=write_ops, iops=read_ops + write_ops, read_mbps=read_bytes / 1e6,
                  write_mbps=write_bytes / 1e6, peak_iops=peak_iops, peak_mbps=peak_mbps)


def cloud_samples(member: str, rate: Rates, peak: Rates, metrics: tuple[str, str, str, str], period: float,
                  stamped_at_end: bool) -> list[Sample]:
    """MEMBER's intervals at the times all four METRICS (read and write operations, read and write bytes) have a
    rate, with the peaks where all four have one then. STAMPED_AT_END: the cloud stamps a point at its period's
    end, not its start."""
    samples: list[Sample] = []
    has_peak = len(peak) == len(metrics)
    read_ops, write_ops, read_bytes, write_bytes = metrics
    for t in sorted(set.intersection(*(set(r) for r in rate.values()))):
        rates = (rate[read_ops][t], rate[write_ops][t], rate[read_bytes][t], rate[write_bytes][t])
        peaks: tuple[float | None, float | None, float | None, float | None] = (None, None, None, None)
        if has_peak and all(t in p for p in peak.values()):
            peaks = (peak[read_ops][t], peak[write_ops][t], peak[read_bytes][t], peak[write_bytes][t])
        start = t - period if stamped_at_end else t
        samples.append(ops_bytes_sample(t, member, start, period, rates, peaks))
    return samples


def cloud_series(path: Path, fmt: str, member_kind: MemberKind, samples: list[Sample], note: str,
                 nothing: str) -> Series:
    """A cloud metrics export's Series, with NOTE on how its rates were read; refused as NOTHING (no interval had
    every metric) when no sample came out."""
    if not samples:
        raise ValueProblem(f"{path}: {nothing}")
    return Series(source=str(path), format=fmt, member_kind=member_kind, samples=samples,
                  notes=[f"{path.name}: {note}"])


def iso(ts: float | None) -> str | None:
    """POSIX seconds as ISO 8601 (UTC, seconds), None stays None."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str, source: str, where: str) -> float:
    """An ISO 8601 time (``Z`` or an offset; none = UTC) as POSIX seconds; one line when it is not one."""
    t = text.strip()
    try:
        dt = datetime.fromisoformat(t.replace("Z", "+00:00") if t.endswith("Z") else t)
    except ValueError:
        raise ValueProblem(f"{source}: {where}: {text!r} is not an ISO 8601 time") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def counter_delta(source: str, where: str, name: str, before: float, after: float) -> float:
    """The growth of a cumulative counter; a counter that went down without a restart marker is refused."""
    if after < before:
        raise ValueProblem(f"{source}: {where}: {name} went down from {before:,.0f} to {after:,.0f} with no "
                           "restart marker (counters only grow between restarts; a mixed or edited export?)")
    return after - before
