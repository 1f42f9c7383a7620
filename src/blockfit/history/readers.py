"""Which reader a history file needs, found from its content, and the readers of the host-side formats.

Users know their workload from iostat, sar, a database's own I/O history or the cloud's volume metrics, not as
a target IOPS. Each reader turns one format into a `Series` (rates per second, MB/s = 10^6 B/s); parse errors
name the file and, where there is one, the line, report or snapshot. The format is detected from the content
(a Statspack report named awr_*.txt is still read as Statspack); `declared` (``--from-format``) makes the
detection a check instead: a file that is not what was declared is refused.

Host-side formats read here:

- iostat: `iostat -t -x -d -o JSON [-y] INTERVAL COUNT` (sysstat). Its first report is the average since boot
  unless `-y` was given, so a file of two or more reports loses its first. Without `-t` it carries no time.
- sadf: `sadf -j FILE -- -d` (sysstat's per-device sar data). sar -d has no read/write split of I/Os (only tps
  and kB read/written), so reads' share comes from bytes there.
- diagnose: a `blockfit diagnose --record` capture (raw /proc/diskstats per sample).
- csv: `timestamp, read IOPS, write IOPS, read MB/s, write MB/s`, an optional header line; one series.

Every reader takes its interval from the data (`intervals.py`): timestamps, sadf's stated intervals, snapshot
times; irregular or contradictory intervals are refused.

Bounds: sizes are measured by reading (`inputs.CappedFile`); a CSV, sysstat JSON and a PostgreSQL recording
stream into float columns (up to MAX_HISTORY_BYTES and MAX_SAMPLES), the rest is read whole (MAX_DOCUMENT_BYTES).

The database and cloud formats have a module each (awr, statspack, oracle_spool, sqlserver, cloudwatch,
oci_monitoring, azure_monitor, pg_recording).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
import statistics
from array import array
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from blockfit.devices import capture, iostat
from blockfit.errors import InputError, ValueProblem
from blockfit.history import intervals
from blockfit.history.series import Sample, SampleTable, Series, parse_time
from blockfit.inputs import CappedFile

CSV_COLUMNS = ("timestamp", "read IOPS", "write IOPS", "read MB/s", "write MB/s")
MAX_RATE = 1e12  # per second, per device: far above any block device; beyond it sums overflow to infinity
MAX_HISTORY_BYTES = 512 * 1024**2  # the streamed formats: a month of 1-second CSV rows is about 160 MB
MAX_DOCUMENT_BYTES = 64 * 1024**2  # JSON, reports, spools: parsed whole; an AWR report is a few MB
MAX_SAMPLES = 3_000_000  # a month of 1-second intervals is 2.6 million; about 100 bytes each in memory
MAX_LINE = 1024**2  # a CSV line; a longer one is not a history row
HEAD_BYTES = 64 * 1024  # what the format is detected from before a file is streamed
EXPECTED = ("a history file (iostat/sadf JSON, a diagnose capture, a CSV, an AWR or Statspack report, a spool, a "
            "cloud metrics export or a PostgreSQL recording)")
NOT_TEXT = f"not a text file (NUL bytes); expected {EXPECTED}"

FORMATS = ("iostat", "sadf", "diagnose", "csv", "awr", "awr-global", "statspack", "oracle-spool", "statspack-spool",
           "sqlserver", "cloudwatch", "oci-monitoring", "azure-monitor", "pg-recording")


def _decode(path: Path, raw: bytes) -> str:
    """A whole history file's text: UTF-16 with its byte-order mark, else UTF-8, else Latin-1; NUL bytes mean
    binary."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:  # SQL*Plus on Windows and PowerShell redirections write UTF-16
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            pass
    if b"\x00" in raw:
        raise ValueProblem(f"{path}: {NOT_TEXT}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # AWR reports of databases with a Latin-1 character set


def detect(path: Path, text: str) -> str:
    """The format of TEXT, from its content."""
    head = text.lstrip()[:4096]
    if head.startswith("{") or head.startswith("["):
        first_line = head.splitlines()[0] if head.splitlines() else ""
        if '"blockfit-pg-recording"' in first_line:
            return "pg-recording"
        if '"type": "header"' in first_line or '"type":"header"' in first_line:
            return "diagnose"
        return _json_format(path, text)
    return _text_format(head.lower())


def _text_format(low: str) -> str:
    """The format of a text file (not JSON) from LOW, its first 4 KB in lower case: a report, a spool, else CSV."""
    if "workload repository report (rac)" in low or "awr rac report for db" in low:
        return "awr-global"
    if "statspack report for" in low:
        return "statspack"
    if "workload repository report for" in low or "<title>awr report for db" in low or "awr report for db" in low:
        return "awr"
    if "bfio-header" in low:
        return "statspack-spool" if "bfio-header,1,statspack" in low else "oracle-spool"
    if "bfio-sqlserver" in low or low.startswith("sample_time,") and "num_of_reads" in low[:400]:
        return "sqlserver"
    return "csv"


def _json_format(path: Path, text: str) -> str:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueProblem(f"{path}: not valid JSON: not sysstat JSON (iostat -o JSON, sadf -j) nor a "
                           "CloudWatch, OCI Monitoring or Azure Monitor export") from None
    found = _object_format(doc) if isinstance(doc, dict) else _array_format(doc) if isinstance(doc, list) else None
    if found is not None:
        return found
    if isinstance(doc, list):
        raise ValueProblem(f"{path}: a JSON array of no known export; expected sysstat JSON (an object: "
                           "iostat -o JSON, sadf -j), a CloudWatch, OCI Monitoring or Azure Monitor export, or a CSV")
    raise ValueProblem(f"{path}: not sysstat JSON (iostat -o JSON, sadf -j: sysstat.hosts) nor a CloudWatch "
                       "get-metric-data/get-metric-statistics, OCI summarize-metrics-data or Azure Monitor metrics "
                       "export")


def _object_format(doc: dict[str, Any]) -> str | None:
    """The export a JSON object is, by its keys; None for none known."""
    if "sysstat" in doc:
        return "iostat"  # iostat or sadf: told apart by the reader
    if "MetricDataResults" in doc or "Datapoints" in doc or "MetricDataQueries" in doc:
        return "cloudwatch"
    if isinstance(doc.get("value"), list) and ("interval" in doc or "timespan" in doc):
        return "azure-monitor"
    if isinstance(doc.get("data"), list):
        return "oci-monitoring"
    return None


def _array_format(doc: list[Any]) -> str | None:
    """The export a JSON array is, by its first object's keys; None for none known."""
    if doc and isinstance(doc[0], dict):
        if "Datapoints" in doc[0]:
            return "cloudwatch"
        if {"aggregated-datapoints", "aggregatedDatapoints", "query-text", "queryText", "data"} & set(doc[0]):
            return "oci-monitoring"
    return None


def read_history(path: Path, declared: str | None = None) -> Series:
    """Read PATH in whichever format it is; with DECLARED, refuse a file of another format. A CSV, sysstat JSON and
    a PostgreSQL recording are read as streams (up to MAX_HISTORY_BYTES); the rest whole (up to MAX_DOCUMENT_BYTES).
    Every problem is a ValueProblem naming PATH: the caller (the CLI) names the option that gave it."""
    try:
        return _read_history(path, declared)
    except ValueProblem:
        raise
    except InputError as exc:   # the file's own checks (CappedFile, a diagnose capture) name PATH already
        raise ValueProblem(str(exc)) from None
    except (AttributeError, TypeError, KeyError, IndexError):
        # an export nested unlike the provider's (a string where an object belongs) that no reader's own check
        # caught: still one line naming the file, never a traceback
        raise ValueProblem(f"{path}: an entry of an unexpected type (a string or number where the export has an "
                           "object or a list); expected the export as the provider's CLI writes it") from None


def _read_history(path: Path, declared: str | None) -> Series:
    with CappedFile(path, str(path), EXPECTED, MAX_HISTORY_BYTES) as raw:
        stream = io.BufferedReader(raw, HEAD_BYTES)
        head = stream.peek(HEAD_BYTES)[:HEAD_BYTES]
        streamed = _read_stream(path, declared, stream, head)
        if streamed is not None:
            return streamed
        raw_text = stream.read(MAX_DOCUMENT_BYTES + 1)
        if len(raw_text) > MAX_DOCUMENT_BYTES:
            raise ValueProblem(f"{path}: larger than {MAX_DOCUMENT_BYTES / 1e6:,.0f} MB; expected a history "
                               "file of that size at most (only a CSV may be larger: export the history as CSV)")
    text = _decode(path, raw_text)
    del raw_text  # the text alone from here: a JSON document's parse holds several times its size
    return _read_text(path, declared, text)


def _read_stream(path: Path, declared: str | None, stream: io.BufferedReader[CappedFile],
                 head: bytes) -> Series | None:
    """A CSV, sysstat JSON or PostgreSQL recording read as a stream; None for a file of another format (or one
    DECLARED another), to be read whole."""
    if _streams_as_csv(head) and declared in (None, "csv"):
        return _csv(path, _lines(path, stream, f"a CSV of {', '.join(CSV_COLUMNS)}"))
    if _streams_as_sysstat(head) and declared in (None, "iostat", "sadf"):
        text_stream = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="strict")
        try:
            series = _sysstat_reports(path, _sysstat_stream(path, text_stream))
        except UnicodeDecodeError:
            raise ValueProblem(f"{path}: not UTF-8 text; expected sysstat JSON") from None
        return _as_declared(path, declared, series)
    if _streams_as_recording(head) and declared in (None, "pg-recording"):
        from blockfit.history import pg_recording

        return pg_recording.read_lines(path, _lines(path, stream, "a blockfit PostgreSQL recording"),
                                       MAX_SAMPLES)
    return None


def _read_text(path: Path, declared: str | None, text: str) -> Series:
    """A history read whole: its format detected from TEXT, refused where DECLARED says another."""
    if not text.strip():
        raise ValueProblem(f"{path}: the file is empty")
    found = detect(path, text)
    if declared is not None and declared != found and not (declared == "sadf" and found == "iostat"):
        raise ValueProblem(f"{path}: read as {declared} (the format given) but the content is {found}"
                         + (": a Statspack report, not an AWR report" if (declared, found) == ("awr", "statspack")
                            else ""))
    reader = _readers()[found]
    return _as_declared(path, declared, reader(path, text))


def _as_declared(path: Path, declared: str | None, series: Series) -> Series:
    """SERIES, unless DECLARED names another format than the one read (sadf vs iostat, say)."""
    if declared is not None and declared != series.format:
        raise ValueProblem(f"{path}: read as {declared} (the format given) but the content is "
                           f"{series.format}")
    return series


def _streams_as_csv(head: bytes) -> bool:
    """A UTF-8 file whose first 64 KB detect as CSV (not JSON, a report or a spool) is read as a stream."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head:
        return False
    text = head.decode("utf-8-sig", errors="replace")
    lead = text.lstrip()
    if not lead or lead.startswith(("{", "[")):
        return False
    return detect(Path(), text) == "csv"


def _streams_as_recording(head: bytes) -> bool:
    """A `blockfit record --pg` recording (JSON lines, its header first) is read as a stream too."""
    lead = head.decode("utf-8-sig", errors="replace").lstrip()
    return lead.startswith("{") and '"blockfit-pg-recording"' in lead.split("\n", 1)[0]


def _lines(path: Path, stream: io.BufferedReader[CappedFile], expected: str) -> Iterator[str]:
    """The text lines of a stream, none longer than MAX_LINE (a longer one is refused, not buffered)."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    for n in itertools.count(1):
        line = text.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE:
            raise ValueProblem(f"{path}: line {n} is longer than {MAX_LINE // 1024:,} KB; expected {expected}")
        yield line


def _readers() -> dict[str, Callable[[Path, str], Series]]:
    from blockfit.history import (
        awr_waits,
        azure_monitor,
        cloudwatch,
        oci_monitoring,
        oracle_spool,
        pg_recording,
        sqlserver,
    )
    return {
        "iostat": _sysstat, "diagnose": _diagnose, "csv": _csv_text,
        "awr": awr_waits.read_awr, "awr-global": awr_waits.read_awr, "statspack": awr_waits.read_statspack,
        "oracle-spool": oracle_spool.read, "statspack-spool": oracle_spool.read,
        "sqlserver": sqlserver.read, "cloudwatch": cloudwatch.read, "oci-monitoring": oci_monitoring.read,
        "azure-monitor": azure_monitor.read, "pg-recording": pg_recording.read,
    }


NOT_SYSSTAT = "not sysstat JSON (expected iostat -o JSON or sadf -j output with sysstat.hosts[0].statistics)"
_STATISTICS = re.compile(r'"statistics"\s*:\s*\[')
_STREAMED = "\u0000blockfit: the statistics, read one by one"


def _sysstat(path: Path, text: str) -> Series:
    try:
        doc = json.loads(text)
        hosts = doc["sysstat"]["hosts"]
        stats = hosts[0]["statistics"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        raise ValueProblem(f"{path}: {NOT_SYSSTAT}") from None
    if len(hosts) > 1:
        raise ValueProblem(f"{path}: {len(hosts)} hosts in one file; expected one")
    if not isinstance(stats, list):
        raise ValueProblem(f"{path}: sysstat.hosts[0].statistics is not a list")
    return _sysstat_reports(path, iter(stats))


def _streams_as_sysstat(head: bytes) -> bool:
    """sysstat JSON whose statistics array opens in the first 64 KB is read a report at a time."""
    if b"\x00" in head:
        return False
    lead = head.decode("utf-8-sig", errors="replace").lstrip()
    return lead.startswith("{") and '"sysstat"' in lead and _STATISTICS.search(lead) is not None


class _ArrayReader:
    """The elements of a JSON array, decoded one at a time from a text stream that holds only what one needs."""

    def __init__(self, path: Path, text: io.TextIOBase, buf: str) -> None:
        self.path, self.text, self.buf, self.pos, self.eof = path, text, buf, 0, False
        self.decoder = json.JSONDecoder()

    def more(self, n: int) -> None:
        chunk = self.text.read(n)
        self.eof = not chunk
        self.buf, self.pos = self.buf[self.pos:] + chunk, 0

    def peek(self) -> str:
        """The next character that is not blank ('' at the end), reading more as needed."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos] if self.pos < len(self.buf) else ""
            self.more(1 << 20)

    def element(self) -> Any:
        """The value that starts at the next character; at most MAX_DOCUMENT_BYTES of it."""
        too_big = ValueProblem(f"{self.path}: a report larger than {MAX_DOCUMENT_BYTES / 1e6:,.0f} MB; expected "
                               "sysstat reports of a few KB each")
        while True:
            try:
                obj, end = self.decoder.raw_decode(self.buf, self.pos)
                if end == len(self.buf) and not self.eof:
                    raise ValueError("may go on")
            except (ValueError, RecursionError):
                if self.eof:
                    raise ValueProblem(f"{self.path}: {NOT_SYSSTAT}") from None
                if len(self.buf) - self.pos > MAX_DOCUMENT_BYTES:
                    raise too_big from None
                self.more(max(1 << 20, len(self.buf) - self.pos))  # at least double what is held: each report
                continue  # is decoded O(1) times
            if end - self.pos > MAX_DOCUMENT_BYTES:
                raise too_big
            self.pos = end
            return obj


def _sysstat_stream(path: Path, text: io.TextIOBase) -> Iterator[Any]:
    """The elements of sysstat.hosts[0].statistics, decoded one at a time from TEXT; at the end, the document
    with the array left out must be sysstat JSON of one host whose statistics was that array."""
    buf = text.read(2 * HEAD_BYTES)
    m = _STATISTICS.search(buf)
    if m is None:
        raise ValueProblem(f"{path}: {NOT_SYSSTAT}")
    prefix, reader = buf[:m.end() - 1], _ArrayReader(path, text, buf[m.end():])
    first = True
    while (c := reader.peek()) != "]":
        if not first:
            if c != ",":
                raise ValueProblem(f"{path}: {NOT_SYSSTAT}")
            reader.pos += 1
            reader.peek()
        yield reader.element()
        first = False
    _check_sysstat_rest(path, prefix, reader.buf[reader.pos + 1:] + text.read(HEAD_BYTES + 1))


def _check_sysstat_rest(path: Path, prefix: str, tail: str) -> None:
    """The document around the streamed array must be sysstat JSON of one host whose statistics was that array."""
    try:
        doc = json.loads(prefix + json.dumps(_STREAMED) + tail)
        hosts = doc["sysstat"]["hosts"]
        stats = hosts[0]["statistics"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        raise ValueProblem(f"{path}: {NOT_SYSSTAT}") from None
    if isinstance(hosts, list) and len(hosts) > 1:
        raise ValueProblem(f"{path}: {len(hosts)} hosts in one file; expected one")
    if stats != _STREAMED:
        raise ValueProblem(f"{path}: {NOT_SYSSTAT}")


def _sysstat_reports(path: Path, stats: Iterator[Any]) -> Series:
    """Reports (iostat's or sadf's) into float columns, one at a time; iostat's first report (the average since
    boot) is left out when there are others."""
    reports = (r for r in stats if isinstance(r, dict) and isinstance(r.get("disk"), list))
    first = next(reports, None)
    if first is None:
        raise ValueProblem(f"{path}: no per-device statistics (run iostat with -d -x, or sadf with '-- -d')")
    disks = first["disk"]
    is_iostat = bool(disks) and isinstance(disks[0], dict) and "disk_device" in disks[0]
    skipped: list[str] = []
    second = next(reports, None)
    kept: Iterator[dict[str, Any]]
    if is_iostat and second is not None:
        kept = itertools.chain([second], reports)
        skipped.append("iostat's first report (the average since boot unless iostat ran with -y)")
    else:
        kept = itertools.chain([first], [] if second is None else [second], reports)
    del first, disks
    samples = SampleTable()
    stamps: list[Stamp] = []
    for i, rep in enumerate(kept):
        stamps.append(_stamp(rep, is_iostat))
        for s in _sysstat_report(path, i, rep["disk"], is_iostat, 1.0):
            samples.append(s)
        if len(samples) > MAX_SAMPLES:
            raise ValueProblem(f"{path}: more than {MAX_SAMPLES:,} device intervals; expected at most that "
                               "many (a month of 1-second samples): report at a longer interval")
    interval, notes = _sysstat_interval(path, stamps, is_iostat)
    samples.columns["duration_s"] = array("d", [interval]) * len(samples)
    return Series(source=str(path), format="iostat" if is_iostat else "sadf", member_kind="device", samples=samples,
                  skipped=skipped, notes=notes)


Stamp = tuple[float | None, float | None, str | None]  # (POSIX s, the record's own interval in s, as written)


def _stamp(report: dict[str, Any], is_iostat: bool) -> Stamp:
    """A report's time (POSIX s) and, for sadf, the interval it says it covers; None where missing or unreadable."""
    ts = report.get("timestamp")
    if not is_iostat:
        if not isinstance(ts, dict):
            return None, None, repr(ts)
        v = ts.get("interval")
        own = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None
        text = f"{ts.get('date')} {ts.get('time')}"
        return _parse_stamp(text, ("%Y-%m-%d %H:%M:%S",)), own, text
    if not isinstance(ts, str):
        return None, None, None if ts is None else repr(ts)
    return _parse_stamp(ts, ("%m/%d/%y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%m/%d/%y %I:%M:%S %p",
                             "%m/%d/%Y %I:%M:%S %p", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S")), None, ts


def _parse_stamp(text: str, formats: tuple[str, ...]) -> float | None:
    for fmt in formats:
        try:
            return datetime.strptime(text.strip(), fmt).timestamp()
        except ValueError:
            continue
    return None


def _sysstat_interval(path: Path, stamps: list[Stamp], is_iostat: bool) -> tuple[float, list[str]]:
    """The reports' interval from the data: iostat's from its timestamps (-t), sadf's from the interval each record
    states, checked against the records' times; a report without one, or intervals that disagree, are refused."""
    return _iostat_interval(path, stamps) if is_iostat else _sadf_interval(path, stamps)


def _iostat_interval(path: Path, stamps: list[Stamp]) -> tuple[float, list[str]]:
    missing = next((i for i, (t, _, _) in enumerate(stamps) if t is None), None)
    if missing is not None:
        text = stamps[missing][2]
        what = "no timestamp" if text is None else f"timestamp {text!r} is not a time iostat writes"
        raise ValueProblem(f"{path}: report {missing + 1}: {what}: the sampling interval cannot be read from "
                           "the data; run iostat with -t (it then stamps every report)")
    found = intervals.spacing([t for t, _, _ in stamps if t is not None], str(path),
                              lambda i: f"report {i + 1} ({stamps[i][2]})")
    return found.step_s, [n for n in [found.note(path.name)] if n]


def _sadf_interval(path: Path, stamps: list[Stamp]) -> tuple[float, list[str]]:
    own = [v for _, v, _ in stamps if v is not None]
    if len(own) != len(stamps):
        first = next(i for i, (_, v, _) in enumerate(stamps) if v is None)
        raise ValueProblem(f"{path}: record {first + 1} states no interval; expected sadf -j output")
    said = statistics.median(own)
    odd = next((i for i, v in enumerate(own) if abs(v - said) > intervals.TOLERANCE * said), None)
    if odd is not None:
        raise ValueProblem(f"{path}: record {odd + 1} states an interval of {own[odd]:g} s where the others state "
                           f"{said:g} s: irregular intervals; expected one sampling interval")
    return said, _sadf_times_agree(path, stamps, said)


def _sadf_times_agree(path: Path, stamps: list[Stamp], said: float) -> list[str]:
    """The records' times must be spaced as their stated interval; the notes on gaps between them."""
    times = [t for t, _, _ in stamps if t is not None]
    if len(stamps) < 2 or len(times) != len(stamps):
        return []
    found = intervals.spacing(times, str(path), lambda i: f"record {i + 1} ({stamps[i][2]})")
    if abs(said - found.step_s) > max(1.0, intervals.TOLERANCE * said):
        raise ValueProblem(f"{path}: the records state {said:g}-second intervals but their times are "
                           f"{found.step_s:g} s apart: contradictory intervals")
    return [n for n in [found.note(path.name)] if n]


def _num(path: Path, where: str, row: dict[str, Any], key: str) -> float:
    try:
        value = float(row[key])
    except (KeyError, TypeError, ValueError):
        raise ValueProblem(f"{path}: {where}: missing or non-numeric {key!r}") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_RATE:
        raise ValueProblem(f"{path}: {where}: {key!r} is {value:g}; expected a rate from 0 to {MAX_RATE:g} "
                           "per second")
    return value


def _sysstat_report(path: Path, index: int, disks: list[Any], is_iostat: bool,
                    interval: float) -> Iterator[Sample]:
    where = f"report {index + 1}"
    for d in disks:
        if not isinstance(d, dict):
            raise ValueProblem(f"{path}: {where}: a disk entry that is not an object")
        name = str(d.get("disk_device" if is_iostat else "disk-device", ""))
        if not name:
            raise ValueProblem(f"{path}: {where}: a disk entry without a device name")
        if is_iostat:
            r, w = _num(path, where, d, "r/s"), _num(path, where, d, "w/s")
            yield Sample(index, name, None, interval, where, r, w, r + w,
                         _num(path, where, d, "rkB/s") * 1024 / 1e6, _num(path, where, d, "wkB/s") * 1024 / 1e6,
                         outstanding=_queue(path, where, d))
        else:  # sar -d: tps counts reads, writes and discards; rkB/wkB are per second here
            yield Sample(index, name, None, interval, where, None, None, _num(path, where, d, "tps"),
                         _num(path, where, d, "rkB") * 1024 / 1e6, _num(path, where, d, "wkB") * 1024 / 1e6)


def _queue(path: Path, where: str, row: dict[str, Any]) -> float | None:
    """iostat's mean queue (aqu-sz; avgqu-sz before sysstat 12), or None where the report has neither."""
    for key in ("aqu-sz", "avgqu-sz"):
        if key in row:
            return _num(path, where, row, key)
    return None


def _diagnose(path: Path, text: str) -> Series:
    try:
        recorded = capture.load(path)
    except InputError as exc:
        raise ValueProblem(str(exc)) from None
    try:
        started = parse_time(recorded.header.started, str(path), "header")
    except InputError:
        started = None
    samples = SampleTable()
    for name, device_intervals in iostat.series(recorded).items():
        for i, iv in enumerate(device_intervals):
            samples.add(i, name, None if started is None else started + iv.t - iv.dt, iv.dt, f"+{iv.t - iv.dt:.0f} s",
                        iv.r_iops, iv.w_iops, iv.iops, iv.r_mbps, iv.w_mbps, outstanding=iv.aqu_sz)
    return Series(source=str(path), format="diagnose", member_kind="device", samples=samples)


def _csv(path: Path, lines: Iterator[str]) -> Series:
    """Rows streamed into a SampleTable: memory stays about 100 bytes a row (MAX_SAMPLES rows at most)."""
    skipped: list[str] = []
    table = SampleTable(positional_keys=True)
    first = True
    try:
        for row in csv.reader(lines):
            if not row or not any(c.strip() for c in row):
                continue
            if first and not _is_number(row[1] if len(row) > 1 else ""):
                skipped.append("the CSV header line")
                first = False
                continue
            first = False
            i = len(table)
            where = f"data row {i + 1}"
            if i >= MAX_SAMPLES:
                raise ValueProblem(f"{path}: more than {MAX_SAMPLES:,} rows; expected at most that many "
                                   "intervals (a month of 1-second samples): export at a coarser interval")
            if len(row) != len(CSV_COLUMNS):
                raise ValueProblem(f"{path}: {where} has {len(row)} fields; expected {len(CSV_COLUMNS)}: "
                                   f"{', '.join(CSV_COLUMNS)}")
            vals = dict(zip(CSV_COLUMNS[1:], row[1:], strict=True))
            r, w = _num(path, where, vals, "read IOPS"), _num(path, where, vals, "write IOPS")
            start = csv_time(path, where, row[0])
            label = row[0].strip() if not _is_number(row[0]) else datetime.fromtimestamp(start, UTC).strftime(
                "%Y-%m-%dT%H:%M:%SZ")
            table.add(i, "", start, 0.0, label, r, w, r + w,
                      _num(path, where, vals, "read MB/s"), _num(path, where, vals, "write MB/s"))
    except csv.Error as exc:
        raise ValueProblem(f"{path}: not a CSV ({exc})") from None
    if not table:
        raise ValueProblem(f"{path}: no data rows (expected: {', '.join(CSV_COLUMNS)})")
    found = intervals.spacing(table.columns["start"], str(path),
                              lambda i: f"data row {i + 1} ({table.label(i)})")
    table.columns["duration_s"] = array("d", [found.step_s]) * len(table)
    return Series(source=str(path), format="csv", member_kind="series", samples=table, skipped=skipped,
                  notes=[n for n in [found.note(path.name)] if n])


def _csv_text(path: Path, text: str) -> Series:
    return _csv(path, iter(text.splitlines(keepends=True)))


POSIX_RANGE = (1e8, 1e11)  # 1973 to 5138: a number outside is not seconds since 1970 (milliseconds are 1e12+)


def csv_time(path: Path, where: str, text: str) -> float:
    """A CSV row's timestamp as POSIX seconds: ISO 8601 (``Z``, an offset or none = UTC) or POSIX seconds."""
    t = text.strip()
    try:
        v = float(t)
    except ValueError:
        pass
    else:
        if math.isfinite(v) and POSIX_RANGE[0] <= v <= POSIX_RANGE[1]:
            return v
        raise ValueProblem(f"{path}: {where}: timestamp {t!r} is not POSIX seconds of a date from 1973 to 5138 "
                           "(milliseconds? divide by 1000); expected ISO 8601 or POSIX seconds")
    try:
        return parse_time(t, str(path), where)
    except InputError:
        raise ValueProblem(f"{path}: {where}: timestamp {t!r} is neither ISO 8601 (2026-12-01T00:00:00Z) nor "
                           "POSIX seconds: the sampling interval is read from the timestamps") from None


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def history_format(text: str | None) -> str | None:
    """A declared format: one of FORMATS, or None (detect)."""
    if text is None or text == "auto":
        return None
    if text not in FORMATS:
        raise ValueProblem(f"{text!r}: expected one of {', '.join(FORMATS)} (or auto)")
    return text
