"""Device-mapper tables: which target each dm device maps to, and a striped target's stripe count and chunk.

`dmsetup table` prints one line per target, `NAME: START LENGTH TARGET ARGS`; a striped target's ARGS are
`#stripes chunk_sectors dev offset …` (kernel Documentation/admin-guide/device-mapper/striped.rst). Where dmsetup
is absent, or the tree read is not this host's, sysfs alone says it: dm-stripe sets the queue's minimum_io_size
to its chunk and optimal_io_size to chunk x stripes (drivers/md/dm-stripe.c, stripe_io_hints), while a linear
target keeps its members' sizes.
"""

from __future__ import annotations

import shutil
import subprocess

from pydantic import BaseModel, Field

from blockfit import proc

SECTOR = 512


class DmTarget(BaseModel):
    """One target line of a dm device's table."""

    target: str = Field(description="linear | striped | multipath | crypt | thin | raid | …")
    length_sectors: int
    stripes: int | None = None
    chunk_bytes: int | None = None


class DmGeometry(BaseModel):
    """What a dm device is, from its table or, failing that, from sysfs."""

    target: str = Field(description="the target of every segment (linear, striped, …), or 'mixed'")
    stripes: int | None = None
    stripe_bytes: int | None = None
    source: str = Field(description="where it was read: 'dmsetup table' or the sysfs queue sizes")


def parse_line(rest: str) -> DmTarget | None:
    """'0 2097152 striped 2 128 253:0 2048 253:1 2048' → a DmTarget; None for a line of another shape."""
    words = rest.split()
    if len(words) < 3 or not words[1].isdigit():
        return None
    target = DmTarget(target=words[2], length_sectors=int(words[1]))
    if target.target == "striped" and len(words) >= 5 and words[3].isdigit() and words[4].isdigit():
        target.stripes, target.chunk_bytes = int(words[3]), int(words[4]) * SECTOR
    return target


def parse_tables(text: str) -> dict[str, list[DmTarget]]:
    """`dmsetup table` output → dm name → its targets in order ('No devices found' gives none)."""
    tables: dict[str, list[DmTarget]] = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(": ")
        target = parse_line(rest) if sep else None
        if target is not None:
            tables.setdefault(name, []).append(target)
    return tables


def read_tables(timeout: float = 10.0) -> dict[str, list[DmTarget]]:
    """This host's tables; empty where dmsetup is absent or the kernel has no device-mapper."""
    if shutil.which("dmsetup") is None:
        return {}
    try:
        out = proc.run(["dmsetup", "table"], timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return parse_tables(out.stdout) if out.returncode == 0 else {}


def from_table(targets: list[DmTarget]) -> DmGeometry | None:
    """A device's geometry from its table: striped only when every segment is striped alike."""
    if not targets:
        return None
    kinds = {t.target for t in targets}
    if len(kinds) > 1:
        return DmGeometry(target="mixed", source="dmsetup table")
    first = targets[0]
    if first.target == "striped" and all((t.stripes, t.chunk_bytes) == (first.stripes, first.chunk_bytes)
                                         for t in targets):
        return DmGeometry(target="striped", stripes=first.stripes, stripe_bytes=first.chunk_bytes,
                          source="dmsetup table")
    return DmGeometry(target="mixed" if first.target == "striped" else first.target, source="dmsetup table")


def from_queue(members: int, minimum_io_size: int | None, optimal_io_size: int | None) -> DmGeometry:
    """Striped when optimal_io_size = minimum_io_size x members (dm-stripe's io hints) over 2 or more members;
    otherwise linear (a linear target stacks its members' sizes, never multiplies them)."""
    source = f"sysfs queue: minimum_io_size {minimum_io_size}, optimal_io_size {optimal_io_size}"
    if members >= 2 and minimum_io_size and optimal_io_size and minimum_io_size >= 4096 \
            and optimal_io_size == minimum_io_size * members:
        return DmGeometry(target="striped", stripes=members, stripe_bytes=minimum_io_size, source=source)
    return DmGeometry(target="linear", source=source)
