"""The I/Os an Oracle instance kept in flight, from an AWR or Statspack report's wait events (Little's law).

A report has no queue length, but it has what Little's law needs: N = X x W. X is the requests per second the
instance issued (Instance Activity Stats, as the IOPS target), W the mean time one of them took, read from the
wait events that are one I/O (or one batch of I/Os issued together) from issue to completion: 'db file
sequential read', 'db file parallel write', 'log file parallel write', 'direct path read', the control file and
Exadata cell reads (IO_EVENTS). Foreground and Background Wait Events together are every session's waits; where
a Statspack report has only its 'Wait Events (fg and bg)' section, that one.

W = (sum of waits x average wait) / (sum of waits). An average wait printed in ms without decimals (11g and
Statspack text) rounds 0.4 ms to 0: where the event's total wait time (whole seconds) carries more digits, that is
used instead. Idle and non-I/O waits ('log file sync', 'db file async I/O submit', enqueues) are not I/O time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from blockfit.history import awr, statspack
from blockfit.history.series import Series

IO_EVENTS = (
    "db file sequential read", "db file scattered read", "db file parallel read", "db file single write",
    "db file parallel write", "direct path read", "direct path write", "direct path read temp",
    "direct path write temp", "log file parallel write", "log file sequential read", "log file single write",
    "control file sequential read", "control file single write", "control file parallel write", "Log archive I/O",
    "cell single block physical read", "cell multiblock physical read", "cell list of blocks physical read",
)
TRUNCATED = 24  # text reports cut event names to 26-28 characters: a name this long may be a cut one
UNITS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
SECTIONS = ("Foreground Wait Events", "Background Wait Events")
COMBINED = "Wait Events (fg and bg)"


@dataclass(frozen=True)
class EventWait:
    """One wait event row: the I/O event it is, its waits and the seconds they took, and the name as printed."""

    name: str
    waits: float
    seconds: float
    printed: str


def io_event(name: str) -> str | None:
    """The I/O event a row names (its full name, a text report's cut one, or a variant such as
    'cell single block physical read: flash cache'), else None."""
    for event in IO_EVENTS:
        if name == event or name.startswith(event + ":") or (len(name) >= TRUNCATED and event.startswith(name)):
            return event
    return None


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def seconds_waited(waits: float, total_text: str, avg_text: str) -> float | None:
    """The seconds WAITS took: waits x the average (its unit printed after it, else ms), or the total wait time
    where its rounding is the smaller share of the figure (see the module's note)."""
    m = re.fullmatch(r"([\d,]*\.?\d+)\s*(ns|us|ms|s)?", avg_text.strip())
    total = awr.number(total_text)
    if m is None:
        return total
    avg = float(m.group(1).replace(",", ""))
    by_avg = waits * avg * UNITS[m.group(2) or "ms"] / 1000
    if total is None:
        return by_avg
    avg_error = 0.5 * 10 ** -_decimals(m.group(1)) / avg if avg else float("inf")
    total_error = 0.5 * 10 ** -_decimals(total_text.strip()) / total if total else float("inf")
    return total if total_error < avg_error else by_avg


def _row(name: str, waits: str, total: str, avg: str) -> EventWait | None:
    event = io_event(name)
    count = awr.number(waits)
    if event is None or count is None:
        return None
    secs = seconds_waited(count, total, avg)
    return None if secs is None else EventWait(event, count, secs, name)


# ---- text reports: a section's heading, its column header over a line of dashes, rows until a line of dashes ----

def _text_section(lines: list[str], start: int) -> list[EventWait]:
    """The I/O rows of the section whose heading is at START, sliced by the columns of its dash line."""
    for i in range(start + 1, min(start + 15, len(lines) - 1)):
        if lines[i].startswith("Event") and re.fullmatch(r"[-\s]+", lines[i + 1] or "x"):
            cols = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[i + 1])]
            break
    else:
        return []
    out = []
    for line in lines[i + 2:]:
        if not line.strip() or re.fullmatch(r"\s*-+", line):
            break
        cells = [line[a:cols[k + 1][0]].strip() if k + 1 < len(cols) else line[a:].strip()
                 for k, (a, _) in enumerate(cols)]
        if len(cells) >= 5 and (row := _row(cells[0], cells[1], cells[3], cells[4])):
            out.append(row)
    return out


def text_waits(text: str) -> list[EventWait]:
    """Every I/O row of a text report's Foreground and Background Wait Events (each page of them), else of its
    Statspack 'Wait Events (fg and bg)'."""
    lines = text.splitlines()
    heads: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        title = line.lstrip("\f")
        for name in (*SECTIONS, COMBINED):
            if title.startswith(name):
                heads.setdefault(name, []).append(i)
    names = [n for n in SECTIONS if n in heads] or [n for n in (COMBINED,) if n in heads]
    rows: dict[tuple[str, str], EventWait] = {}
    for name in names:
        for at in heads[name]:   # a long section goes on under its heading on the next page
            for row in _text_section(lines, at):
                rows.setdefault((name, row.printed), row)
    return list(rows.values())


# ---- HTML reports: the two tables by their summary, columns by their header ----

def html_waits(text: str) -> list[EventWait]:
    out: list[EventWait] = []
    for summ, rows in awr.html_tables(text):
        low = summ.lower()
        if not rows or not ("foreground wait events" in low or "background wait events" in low):
            continue
        head = rows[0]
        col = {h.split(" (")[0]: i for i, h in enumerate(head)}
        need = ("Event", "Waits", "Total Wait Time", "Avg wait")
        if not all(n in col for n in need):
            continue
        for r in rows[1:]:
            if len(r) == len(head) and (row := _row(*(r[col[n]] for n in need))):
                out.append(row)
    return out


# ---- the figure ----

@dataclass(frozen=True)
class InFlight:
    outstanding: float
    mean_wait_ms: float
    waits: float
    events: list[str]


def in_flight(text: str, iops: float) -> InFlight | None:
    """N = IOPS x the mean I/O wait, or None where the report lists no I/O wait event."""
    rows = html_waits(text) if awr.is_html(text) else text_waits(text)
    waits = sum(r.waits for r in rows)
    if waits <= 0:
        return None
    mean_s = sum(r.seconds for r in rows) / waits
    by_time = sorted({r.name for r in rows}, key=lambda n: -sum(r.seconds for r in rows if r.name == n))
    return InFlight(iops * mean_s, mean_s * 1000, waits, by_time)


def with_outstanding(series: Series, text: str) -> Series:
    """SERIES (one report's interval) with the I/Os it kept in flight, and a note saying how they were found."""
    if series.global_report or len(series.samples) != 1:
        return series
    [sample] = series.samples
    found = in_flight(text, sample.iops)
    if found is None:
        return series
    name = Path(series.source).name
    note = (f"{name}: I/Os in flight by Little's law = {sample.iops:,.1f} requests/s x {found.mean_wait_ms:,.3f} ms "
            f"mean I/O wait ({found.waits:,.0f} waits of {', '.join(found.events[:3])}"
            f"{' and others' if len(found.events) > 3 else ''}) = {found.outstanding:,.3f}")
    return replace(series, samples=[replace(sample, outstanding=found.outstanding)], notes=[*series.notes, note])


def read_awr(path: Path, text: str) -> Series:
    """An AWR report (awr.read) with the I/Os it kept in flight."""
    return with_outstanding(awr.read(path, text), text)


def read_statspack(path: Path, text: str) -> Series:
    """A Statspack report (statspack.read) with the I/Os it kept in flight."""
    return with_outstanding(statspack.read(path, text), text)
