"""Typed reader for /proc/diskstats (Documentation/ABI/testing/procfs-diskstats, admin-guide/iostats).

Layouts by kernel: 14 fields (major, minor, name + 11 counters; before 4.18), 18 fields (+4 discard
counters; 4.18+), 20 fields (+2 flush counters; 5.5+). Fields 12 (in flight) is a gauge; the rest
are counters. Times are milliseconds. A parse error names the line number and shows the line.

Two readers of one format: `parse` checks every field into a DiskStat (diagnose, bench evidence);
`counters` takes only the four throughput counters a rate needs, by position, for readers that go over
millions of lines (a long PostgreSQL recording) or sample in a measuring loop (calibrate): the full parse
costs several times more per line (bench.diskstats prints the ratio).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from blockfit.errors import InputError

DISKSTATS = "/proc/diskstats"
SECTOR_BYTES = 512
LAYOUTS = (14, 18, 20)


class DiskstatsError(InputError):
    """A /proc/diskstats line we cannot read; the message names the source and line number."""


@dataclass(frozen=True)
class DiskStat:
    """One device's counters at one instant (names follow iostats.rst)."""

    major: int
    minor: int
    name: str
    reads: int
    reads_merged: int
    sectors_read: int
    read_ms: int
    writes: int
    writes_merged: int
    sectors_written: int
    write_ms: int
    in_flight: int
    io_ms: int
    weighted_ms: int
    discards: int | None = None
    discards_merged: int | None = None
    sectors_discarded: int | None = None
    discard_ms: int | None = None
    flushes: int | None = None
    flush_ms: int | None = None

    @property
    def fields(self) -> int:
        """How many fields the source line had (14, 18 or 20)."""
        if self.flushes is not None:
            return 20
        return 18 if self.discards is not None else 14

    def as_dict(self) -> dict[str, int | str | None]:
        return asdict(self)


_COUNTER_NAMES = [
    "reads", "reads_merged", "sectors_read", "read_ms", "writes", "writes_merged", "sectors_written",
    "write_ms", "in_flight", "io_ms", "weighted_ms", "discards", "discards_merged", "sectors_discarded",
    "discard_ms", "flushes", "flush_ms",
]


def parse_line(line: str, lineno: int = 1, source: str = DISKSTATS) -> DiskStat:
    """Parse one diskstats line; raise DiskstatsError naming `source:lineno` on anything unexpected."""
    parts = line.split()
    where = f"{source} line {lineno}"
    shown = line.strip()[:120]
    if len(parts) not in LAYOUTS:
        raise DiskstatsError(
            f"{where}: expected 14, 18 or 20 whitespace-separated fields (major minor name counters...), "
            f"got {len(parts)}: {shown!r}")
    values: list[int] = []
    for idx, text in enumerate([parts[0], parts[1]] + parts[3:]):
        if not text.isascii() or not text.isdigit():
            label = ("major", "minor")[idx] if idx < 2 else _COUNTER_NAMES[idx - 2]
            raise DiskstatsError(f"{where}: field {label!r} should be a non-negative integer, got {text!r}: {shown!r}")
        values.append(int(text))
    name = parts[2]
    if not name.isprintable() or "/" in name:
        raise DiskstatsError(f"{where}: device name {name!r} is not a valid block device name: {shown!r}")
    counters = dict(zip(_COUNTER_NAMES, values[2:], strict=False))
    return DiskStat(major=values[0], minor=values[1], name=name, **counters)


def parse(text: str, source: str = DISKSTATS) -> list[DiskStat]:
    """Parse the whole file; blank lines are ignored, any other bad line raises DiskstatsError."""
    stats = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            stats.append(parse_line(line, lineno, source))
    return stats


def read_raw(path: str = DISKSTATS) -> str:
    with open(path, encoding="ascii", errors="replace") as fh:
        return fh.read()


def lines_of(names: set[str], path: str = DISKSTATS) -> list[str]:
    """The raw lines of the named devices (a recording keeps them as the kernel wrote them)."""
    return [line for line in read_raw(path).splitlines() if len(line.split()) > 2
            and line.split()[2] in names]


Counters = tuple[int, int, int, int, int]
"""(reads, writes, sectors read, sectors written, weighted ms): completed I/Os, 512-byte sectors and the
time-weighted ms of I/Os in flight (its delta over an interval's ms is iostat's aqu-sz), what a rate needs. A
plain tuple, not a NamedTuple: building one per line costs the fast path a fifth of its speed."""


class FieldCount(DiskstatsError):
    """A line with a number of fields no kernel writes; `fields` is how many it had."""

    def __init__(self, fields: int) -> None:
        super().__init__(f"a diskstats line of {fields} fields (expected 14, 18 or 20)")
        self.fields = fields


def counters(lines: Iterable[str]) -> dict[str, Counters]:
    """Counters per device name, taken by position: the fast path (one loop, no per-line call).

    Raises FieldCount for a line of the wrong shape and ValueError for a counter that is not a number."""
    out = {}
    layouts = LAYOUTS  # a local: a global looked up per line costs the fast path several per cent
    for line in lines:
        f = line.split()
        if len(f) not in layouts:
            raise FieldCount(len(f))
        out[f[2]] = (int(f[3]), int(f[7]), int(f[5]), int(f[9]), int(f[13]))
    return out


def read_counters(path: str = DISKSTATS) -> dict[str, Counters]:
    """Counters of every device in the file, skipping lines of a shape no kernel writes."""
    with open(path, encoding="ascii", errors="replace") as fh:
        return counters(line for line in fh if len(line.split()) in LAYOUTS)
