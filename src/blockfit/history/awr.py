"""AWR reports (awrrpt.sql, awrrpti.sql, awrgrpt.sql), text and HTML, 11g to 23ai → one interval per report.

What storage must serve is in Instance Activity Stats, and nowhere else as exactly:

    IOPS = (physical read total IO requests + physical write total IO requests) / elapsed seconds
    MB/s = (physical read total bytes + physical write total bytes) / elapsed seconds / 10^6

The "total" statistics count every I/O request the instance issued: data files, temp, redo (LGWR), archive logs,
control files, backups. "physical reads"/"physical writes" (and the Load Profile's "Physical read (blocks)")
count *blocks*, not requests: a 1 MB multiblock read is 128 of them and one request. The report's own
"per Second" column is the same Total divided by the elapsed time, rounded.

Two other sections say nearly the same and are read to check, never to size:

- IO Profile (11.2.0.4+): "Total Requests" and "Total (MB)" (MiB) per second, from the same statistics; it
  agrees with Instance Activity Stats to its rounding. Its "Optimized Requests" are requests Exadata Smart
  Flash Cache served: a cloud volume has to serve them all.
- IOStat by Function summary: requests and MiB per second per function (LGWR, DBWR, Buffer Cache Reads,
  Direct Reads, RMAN, ...), from V$IOSTAT_FUNCTION. Its TOTAL usually agrees within a few percent; it can be
  lower (I/O by processes outside its functions) or higher (it counts Exadata cell I/O differently). Where it
  disagrees by more than 5 %, the report's note says by how much; the targets stay on Instance Activity Stats.

RAC: a per-instance report (awrrpt/awrrpti) is one instance's I/O; the database's is the sum over instances
(history.targets sums reports of the same snapshots given together). The global report (awrgrpt.sql,
"WORKLOAD REPOSITORY REPORT (RAC)") already sums them: its "System Statistics (Global)" section ("SysStat and
Global Messaging - RAC" in 11g) carries the same statistic names with cluster totals.

A report is one interval (snapshot begin → end): a single report's percentile is that one average, so a
report of many hours hides its bursts; `blockfit sql oracle` exports every snapshot instead.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from blockfit.errors import ValueProblem
from blockfit.history.series import HostSize, Sample, Series, check_rate

STATS = ("physical read total IO requests", "physical write total IO requests",
         "physical read total bytes", "physical write total bytes")
MIB = 1024 * 1024
END_MARK = "End of Report"
AGREE_PCT = 5.0


@dataclass
class Report:
    """What a report says, whatever its layout (text or HTML)."""

    path: Path
    kind: str  # awr, awr-global, statspack
    stats: dict[str, float] = field(default_factory=dict)  # statistic -> Total
    per_second: dict[str, float] = field(default_factory=dict)
    begin_snap: str = ""
    end_snap: str = ""
    begin_time: float | None = None
    end_time: float | None = None
    elapsed_s: float = 0.0
    db_name: str = ""
    dbid: str = ""
    release: str = ""
    rac: bool = False
    instance: str = ""
    instances: list[str] = field(default_factory=list)  # global report: every instance in it
    instances_total: int | None = None
    io_profile: dict[str, list[float]] = field(default_factory=dict)  # row -> [r+w, r, w] per second
    iostat_total: list[float] | None = None  # IOStat by Function TOTAL: [read reqs/s, read MiB/s, write reqs/s, ...]


def number(text: str) -> float | None:
    """'4,434,141' or '2,461.96' or '.801' as a float; None for '####', 'N/A' or blanks."""
    t = text.strip().replace(",", "")
    if not t or not re.fullmatch(r"-?(\d+(?:\.\d*)?|\.\d+)", t):
        return None
    return float(t)


def oracle_time(text: str) -> float | None:
    """'04-Feb-23 19:00:39' (or without seconds) as POSIX seconds, read as UTC (the report gives no zone)."""
    for fmt in ("%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M", "%d-%b-%Y %H:%M:%S"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return None


# ---- HTML: every table row as its cells' text ----
# One pass over the tags, never a lazy `<table.*?</table>`: that rescans to the end of the text for every
# unclosed tag (125,000 of them took minutes). Attributes stop at the next '<' for the same reason.

_TAG = re.compile(r"<[^<>]+>")
_OPEN_CLOSE = {name: re.compile(rf"<(/?)(?:{name})\b([^<>]*)>", re.I) for name in ("table", "tr", "t[dh]")}


def _elements(text: str, name: str) -> list[tuple[str, str]]:
    """(attributes, inner text) of each NAME element: from an opening tag to the first closing tag after it (an
    inner opening tag is content, as in the reports' flat tables); an element never closed is left out."""
    out = []
    opened: tuple[str, int] | None = None
    for m in _OPEN_CLOSE[name].finditer(text):
        if opened is None and not m.group(1):
            opened = (m.group(2), m.end())
        elif opened is not None and m.group(1):
            out.append((opened[0], text[opened[1]:m.start()]))
            opened = None
    return out


def _cell_text(raw: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", raw)).replace("\xa0", " ").split())


def html_tables(text: str) -> list[tuple[str, list[list[str]]]]:
    """(summary attribute, rows of cell texts) of every table."""
    out = []
    for attrs, inner in _elements(text, "table"):
        summ = re.search(r'summary\s*=\s*"([^"]*)"', attrs, re.I)
        rows = [[_cell_text(c) for _, c in _elements(r, "t[dh]")] for _, r in _elements(inner, "tr")]
        out.append((html.unescape(summ.group(1)) if summ else "", rows))
    return out


def is_html(text: str) -> bool:
    head = text.lstrip()[:2000].lower()
    return head.startswith("<html") or head.startswith("<!doctype html") or "<body" in head


def read(path: Path, text: str) -> Series:
    """An AWR report (per instance or global, text or HTML) as one interval."""
    rep = parse(path, text, expect=("awr", "awr-global"))
    return with_host(to_series(rep), path, text, rep.kind)


# Operating System Statistics: the host's CPUs and memory, in text ("NUM_CPUS   14") and HTML (a cell apart)
_OS_STAT = {name: re.compile(rf"\b{name}(?:\s|<[^<>]*>)+([\d,]+)\b") for name in ("NUM_CPUS", "PHYSICAL_MEMORY_BYTES")}


def with_host(series: Series, path: Path, text: str, kind: str) -> Series:
    """SERIES with the host's CPUs and memory from the report's Operating System Statistics (NUM_CPUS,
    PHYSICAL_MEMORY_BYTES), where it has both; a global report's hosts are several: none."""
    if kind == "awr-global":
        return series
    found = {name: pattern.search(text) for name, pattern in _OS_STAT.items()}
    cpus, memory = (number(m.group(1)) if m else None for m in found.values())
    if not cpus or not memory:
        return series
    series.host = HostSize(cpus=int(cpus), memory_gb=round(memory / 2**30, 2),
                           source=f"{path.name}: Operating System Statistics NUM_CPUS {cpus:,.0f}, "
                                  f"PHYSICAL_MEMORY_BYTES {memory:,.0f}")
    return series


def parse(path: Path, text: str, expect: tuple[str, ...]) -> Report:
    if END_MARK not in text[-4096:]:
        raise ValueProblem(f"{path}: truncated: no '{END_MARK}' line at its end (the report was cut short; "
                           "generate or copy it again)")
    low = text[:20000].lower()
    if "statspack report for" in low:
        kind = "statspack"
    elif "workload repository report (rac)" in low or "awr rac report for db" in low:
        kind = "awr-global"
    elif "workload repository report for" in low or "awr report for db" in low:
        kind = "awr"
    else:
        raise ValueProblem(f"{path}: not an AWR or Statspack report (no 'WORKLOAD REPOSITORY report for' "
                           "or 'STATSPACK report for' heading)")
    if kind not in expect:
        names = {"awr": "an AWR report", "awr-global": "a RAC global AWR report", "statspack": "a Statspack report"}
        raise ValueProblem(f"{path}: {names[kind]}, read as {' or '.join(names[k] for k in expect)}")
    rep = Report(path=path, kind=kind)
    if is_html(text):
        _parse_html(rep, text)
    else:
        _parse_text(rep, text)
    _check(rep)
    return rep


def _check(rep: Report) -> None:
    missing = [s for s in STATS if s not in rep.stats]
    if missing:
        where = "System Statistics (Global)" if rep.kind == "awr-global" else "Instance Activity Stats"
        raise ValueProblem(f"{rep.path}: no '{missing[0]}' in {where} (a report of Oracle 10g, or a cut or "
                           "edited file; 11g and later reports carry it)")
    if rep.elapsed_s <= 0 and rep.begin_time is not None and rep.end_time is not None:
        rep.elapsed_s = rep.end_time - rep.begin_time
    if rep.elapsed_s <= 0:
        raise ValueProblem(f"{rep.path}: no elapsed time (expected 'Elapsed: N (mins)' in the snapshot table)")
    for name, value in rep.stats.items():
        check_rate(str(rep.path), "Instance Activity Stats", repr(name), value)
    if not rep.begin_snap or not rep.end_snap:
        raise ValueProblem(f"{rep.path}: no Begin Snap / End Snap ids in the snapshot table")


def to_series(rep: Report) -> Series:
    dur = rep.elapsed_s
    r, w = rep.stats[STATS[0]] / dur, rep.stats[STATS[1]] / dur
    rb, wb = rep.stats[STATS[2]] / dur / 1e6, rep.stats[STATS[3]] / dur / 1e6
    label = f"snapshots {rep.begin_snap}-{rep.end_snap}"
    member = rep.instance or "instance"
    if rep.kind == "awr-global":
        member = "all instances" + (f" ({', '.join(rep.instances)})" if rep.instances else "")
    sample = Sample(key=f"{rep.begin_snap}-{rep.end_snap}", member=member, start=rep.begin_time, duration_s=dur,
                    label=label, read_iops=r, write_iops=w, iops=r + w, read_mbps=rb, write_mbps=wb)
    what = {"awr": "AWR report", "awr-global": "RAC global AWR report", "statspack": "Statspack report"}[rep.kind]
    secs = f"{dur:,.3f}".rstrip("0").rstrip(".")   # the divisor as divided by: 1,801.2 s, not 1,801 s
    notes = [f"{rep.path.name}: {what}{' ' + rep.release if rep.release else ''}, {label} "
             f"({dur / 60:,.2f} min): IOPS = (physical read total IO requests {rep.stats[STATS[0]]:,.0f} + physical "
             f"write total IO requests {rep.stats[STATS[1]]:,.0f}) / {secs} s = {r + w:,.1f}; MB/s = (physical "
             f"read total bytes + physical write total bytes) / {secs} s / 10^6 = {rb + wb:,.2f}"]
    notes += _reconcile(rep, r, w, rb, wb)
    database = f"{rep.db_name or '?'} (DBID {rep.dbid})" if rep.dbid else (rep.db_name or None)
    warnings = []
    if rep.kind == "awr-global" and rep.instances_total and rep.instances and len(rep.instances) < rep.instances_total:
        warnings.append(f"{rep.path.name}: the global report covers {len(rep.instances)} of the database's "
                        f"{rep.instances_total} instances")
    return Series(source=str(rep.path), format=rep.kind, member_kind="instance", samples=[sample], notes=notes,
                  warnings=warnings, database=database,
                  instances_total=rep.instances_total if rep.rac else None, global_report=rep.kind == "awr-global",
                  snapshot_source=True)


def _reconcile(rep: Report, r: float, w: float, rb: float, wb: float) -> list[str]:
    """What IO Profile and IOStat by Function say beside Instance Activity Stats, and how far they agree."""
    out = []
    prof = rep.io_profile.get("Total Requests:")
    if prof:
        out.append(_agree(rep, "IO Profile 'Total Requests'", prof[0], r + w, "requests/s"))
    prof_mb = rep.io_profile.get("Total (MB):")
    if prof_mb:
        out.append(_agree(rep, "IO Profile 'Total (MB)' (MiB)", prof_mb[0] * MIB / 1e6, rb + wb, "MB/s"))
    opt = rep.io_profile.get("Optimized Requests:")
    if opt and opt[0] > 0 and r + w > 0:
        out.append(f"{rep.path.name}: {opt[0]:,.1f} of the {r + w:,.1f} requests/s ({100 * opt[0] / (r + w):.0f} %) "
                   "were 'Optimized Requests' (served by Exadata Smart Flash Cache); on cloud volumes every one of "
                   "them reaches the volumes, and the targets count them all")
    if rep.iostat_total:
        out.append(_agree(rep, "IOStat by Function TOTAL", rep.iostat_total[0] + rep.iostat_total[2], r + w,
                          "requests/s"))
    return out


def _agree(rep: Report, what: str, theirs: float, ours: float, unit: str) -> str:
    if ours <= 0 and theirs <= 0:
        return f"{rep.path.name}: {what} 0 {unit}, as Instance Activity Stats"
    diff = 100 * (theirs - ours) / ours if ours > 0 else 100.0
    if abs(theirs - ours) < 0.15 and abs(diff) > AGREE_PCT:
        return (f"{rep.path.name}: {what} {theirs:,.1f} {unit} agrees with Instance Activity Stats ({ours:,.2f}) "
                "to the section's one decimal")
    if abs(diff) <= AGREE_PCT:
        return (f"{rep.path.name}: {what} {theirs:,.1f} {unit} agrees with Instance Activity Stats "
                f"({ours:,.1f}, {diff:+.1f} %)")
    return (f"{rep.path.name}: {what} {theirs:,.1f} {unit} disagrees with Instance Activity Stats ({ours:,.1f}, "
            f"{diff:+.1f} %); the targets use Instance Activity Stats, which count every request of the instance "
            "over the whole interval")


# ---- text reports ----

# `[^\S\n]*` (blanks within the line) where `\s*` after `^` would run across blank lines and back for every line
# start; `\d+(?:\.\d*)?` where `\d+\.?\d*` splits a long run of digits in quadratically many ways.
_SNAP = re.compile(r"^[^\S\n]*(Begin|End) Snap:\s+(\d+)\s+(\d{2}-\w{3}-\d{2,4} \d{2}:\d{2}(?::\d{2})?)(.*)$", re.M)
_ELAPSED = re.compile(r"^[^\S\n]*Elapsed:\s+([\d,]+(?:\.\d*)?)\s*\(mins\)", re.M)


_IOSTAT_TOTAL = re.compile(r"^TOTAL:\s+(\S+)\s+([\d,.]+)\s+(\S+)\s+(\S+)\s+([\d,.]+)\s+(\S+)", re.M)


def _stat_line(name: str) -> re.Pattern[str]:
    return re.compile(rf"^{re.escape(name)}\s+([\d,]+)\s+([\d,.]+|#+)", re.M)


def _parse_text(rep: Report, text: str) -> None:
    lines = text.splitlines()
    _text_stats(rep, text)
    _text_snapshots(rep, text)
    _text_names(rep, lines, text)
    if rep.kind == "awr-global":
        _parse_global_text(rep, lines)
    for row in ("Total Requests:", "Total (MB):", "Optimized Requests:"):
        m = re.search(rf"^[^\S\n]*{re.escape(row)}\s+([\d,.]+)\s+([\d,.]+)\s+([\d,.]+)", text, re.M)
        if m:
            rep.io_profile[row] = [number(g) or 0.0 for g in m.groups()]
    heading = re.search(r"^IOStat by Function summary", text, re.M)  # then the first TOTAL row after it
    m = _IOSTAT_TOTAL.search(text, heading.end()) if heading else None
    if m:
        vals = [number(m.group(2)), _mib(m.group(3)), number(m.group(5)), _mib(m.group(6))]
        if all(v is not None for v in vals):
            rep.iostat_total = [v or 0.0 for v in vals]


def _text_stats(rep: Report, text: str) -> None:
    """The four statistics' totals and rates (a global report's from its cluster-wide section)."""
    body = text
    if rep.kind == "awr-global":
        at = re.search(r"^(System Statistics \(Global\)|SysStat and\s+Global Messaging\s+-\s*RAC)", text, re.M)
        body = text[at.start():] if at else text
    for name in STATS:
        m = _stat_line(name).search(body)
        if m:
            rep.stats[name] = float(m.group(1).replace(",", ""))
            ps = number(m.group(2))
            if ps is not None:
                rep.per_second[name] = ps


def _text_snapshots(rep: Report, text: str) -> None:
    """Begin and end snapshot (id, time), the instance count a RAC report gives beside them, and the elapsed time."""
    for m in _SNAP.finditer(text):
        if m.group(1) == "Begin":
            rep.begin_snap, rep.begin_time = m.group(2), oracle_time(m.group(3))
            tail = m.group(4).split()
            if tail and tail[-1].isdigit() and _snap_header_has_instances(text):
                rep.instances_total = int(tail[-1])
        else:
            rep.end_snap, rep.end_time = m.group(2), oracle_time(m.group(3))
    elapsed = _ELAPSED.search(text)
    if elapsed:
        rep.elapsed_s = float(elapsed.group(1).replace(",", "")) * 60


def _text_names(rep: Report, lines: list[str], text: str) -> None:
    """Database name and id, release, RAC and instance: from the header table, else Statspack's 'DB/Inst:' line."""
    head = _dash_table(lines, ("DB Id",)) or _dash_table(lines, ("DB Name",))
    if head:
        rep.db_name = head.get("DB Name", head.get("Database", ""))
        rep.dbid = head.get("DB Id", head.get("Id", ""))
        rep.release = head.get("Release", "")
        rep.rac = head.get("RAC", "").upper() == "YES"
        rep.instance = head.get("Instance", "")
    if not rep.instance:
        inst = _dash_table(lines, ("Instance", "Inst Num"))
        if inst:
            rep.instance = inst.get("Instance", "")
    if not rep.db_name:
        m = re.search(r"DB/Inst: ([^/\s]+)/(\S+)", text)
        if m:
            rep.db_name, rep.instance = m.group(1), rep.instance or m.group(2)


def _mib(text: str) -> float | None:
    """IOStat 'Data per sec' ('.801M', '1.196M', '0M') in MiB."""
    t = text.strip()
    scale = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2}.get(t[-1:].upper())
    if scale is None:
        return number(t)
    v = number(t[:-1])
    return None if v is None else v * scale


def _snap_header_has_instances(text: str) -> bool:
    m = re.search(r"^[^\S\n]*Snap Id[^\S\n]+Snap Time.*$", text, re.M)
    return bool(m and "Instances" in m.group(0))


def _spans(dashes: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"[-~]+", dashes)]


def _dash_table(lines: list[str], must: tuple[str, ...], start: int = 0) -> dict[str, str] | None:
    """A header line holding MUST, a line of dashes under it, and the first value line, as header -> value."""
    for i in range(start, min(len(lines) - 2, 400)):
        line = lines[i]
        if all(m in line for m in must) and re.fullmatch(r"[\s\-~]+", lines[i + 1] or "x"):
            spans = _spans(lines[i + 1])
            head = [_slice(line, a, b, spans) for a, b in spans]
            vals = [_slice(lines[i + 2], a, b, spans) for a, b in spans]
            return dict(zip(head, vals, strict=True))
    return None


def _slice(line: str, a: int, b: int, spans: list[tuple[int, int]]) -> str:
    """The text of a column: from its dashes' start to the next column's start (values may overhang)."""
    nxt = next((s for s, _ in spans if s > a), len(line) + 1)
    return line[a:nxt].strip() if a < len(line) else ""


def _instance_row(rep: Report, vals: dict[str, str], instance: str, elapsed: list[float]) -> None:
    """One instance's row of a RAC global report's snapshot table (text or HTML): its name, release, elapsed
    minutes (appended to ELAPSED) and the snapshot times."""
    rep.instances.append(instance)
    rep.release = rep.release or vals.get("Release", "")
    e = number(vals.get("Elapsed Time(min)", "") or "")
    if e:
        elapsed.append(e)
    rep.begin_time = rep.begin_time or oracle_time(vals.get("Begin Snap Time", ""))
    rep.end_time = rep.end_time or oracle_time(vals.get("End Snap Time", ""))


def _database_summary(rep: Report, vals: dict[str, str]) -> None:
    """A RAC global report's database summary (text or HTML): the snapshots, DBID and name that an earlier table
    did not say already."""
    rep.begin_snap = rep.begin_snap or vals.get("Begin", "")
    rep.end_snap = rep.end_snap or vals.get("End", "")
    rep.dbid = rep.dbid or vals.get("Id", "")
    rep.db_name = rep.db_name or vals.get("Name", "")


def _longest_elapsed(rep: Report, elapsed: list[float]) -> None:
    """The report's span from its instances' elapsed minutes (the longest), where nothing said it before."""
    if elapsed and not rep.elapsed_s:
        rep.elapsed_s = max(elapsed) * 60


def _parse_global_text(rep: Report, lines: list[str]) -> None:
    summary = _dash_table(lines, ("Begin", "End"))
    if summary:
        _database_summary(rep, summary)
        rep.rac = True
    start = next((i for i, x in enumerate(lines) if x.startswith("Database Instances Included In Report")), None)
    if start is None:
        return
    for i in range(start, min(start + 12, len(lines) - 1)):
        if "I#" in lines[i] and re.fullmatch(r"[\s\-~]+", lines[i + 1] or "x"):
            _text_instances(rep, lines, i)
            return


def _text_instances(rep: Report, lines: list[str], at: int) -> None:
    """The instances table of a text global report, its header at line AT over a line of dashes."""
    spans = _spans(lines[at + 1])
    head = [_slice(lines[at], a, b, spans) for a, b in spans]
    elapsed: list[float] = []
    for row in lines[at + 2:]:
        if not re.match(r"^\s*\d+\s+\S", row):
            break
        vals = dict(zip(head, [_slice(row, a, b, spans) for a, b in spans], strict=True))
        _instance_row(rep, vals, vals.get("Instance", vals.get("I#", "")), elapsed)
    _longest_elapsed(rep, elapsed)
    rep.instances_total = max(rep.instances_total or 0, len(rep.instances)) or None


# ---- HTML reports ----

def _parse_html(rep: Report, text: str) -> None:
    tables = html_tables(text)
    stat_tables = tables
    if rep.kind == "awr-global":
        glob = [t for t in tables if _global_summary(t[0])]
        stat_tables = glob or tables
    for _summ, rows in stat_tables:
        _html_stats(rep, rows)
    for summ, rows in tables:
        _html_table(rep, summ, rows)
    if not rep.instance:
        _html_instance(rep, tables)
    if rep.kind == "awr-global":
        _parse_global_html(rep, tables)


def _html_table(rep: Report, summ: str, rows: list[list[str]]) -> None:
    """One table of an HTML report, known by its summary attribute or its first row."""
    low = summ.lower()
    head = rows[0] if rows else []
    if "database instance information" in low or (head[:2] == ["DB Name", "DB Id"]):
        _html_names(rep, head, rows)
    if "snapshot information" in low or any(r and r[0] == "Begin Snap:" for r in rows):
        _html_snapshots(rep, head, rows)
    if "io profile" in low:
        _html_io_profile(rep, rows)
    if low.startswith("this table displays the io statistics for different functions") or (
            head[:1] == ["Function Name"]):
        _html_iostat(rep, rows)


def _html_io_profile(rep: Report, rows: list[list[str]]) -> None:
    """The IO Profile table: total, MB and optimized requests per second (read+write, read, write)."""
    for r in rows:
        if r and r[0] in ("Total Requests:", "Total (MB):", "Optimized Requests:") and len(r) >= 4:
            rep.io_profile[r[0]] = [number(x) or 0.0 for x in r[1:4]]


def _html_instance(rep: Report, tables: list[tuple[str, list[list[str]]]]) -> None:
    """The instance's name from the first table headed Instance, Inst Num."""
    for _summ, rows in tables:
        if rows and rows[0][:2] == ["Instance", "Inst Num"] and len(rows) > 1:
            rep.instance = rows[1][0]
            return


def _html_stats(rep: Report, rows: list[list[str]]) -> None:
    """The four statistics' totals and rates in one table; the first table that has one wins."""
    for row in rows:
        if len(row) >= 3 and row[0] in STATS and row[0] not in rep.stats:
            total = number(row[1])
            if total is not None:
                rep.stats[row[0]] = total
                ps = number(row[2])
                if ps is not None:
                    rep.per_second[row[0]] = ps


def _html_names(rep: Report, head: list[str], rows: list[list[str]]) -> None:
    """The database instance information table: what an earlier table did not say already."""
    vals = dict(zip(head, rows[1], strict=False)) if len(rows) > 1 else {}
    rep.db_name = rep.db_name or vals.get("DB Name", "")
    rep.dbid = rep.dbid or vals.get("DB Id", "")
    rep.release = rep.release or vals.get("Release", "")
    rep.rac = rep.rac or vals.get("RAC", "").upper() == "YES"
    rep.instance = rep.instance or vals.get("Instance", "")


def _html_snapshots(rep: Report, head: list[str], rows: list[list[str]]) -> None:
    """The snapshot table: begin and end (id, time), a RAC report's instance count, the elapsed minutes."""
    col = {h: i for i, h in enumerate(head)}
    for r in rows:
        if r and r[0] == "Begin Snap:" and len(r) > 2:
            rep.begin_snap, rep.begin_time = r[1], oracle_time(r[2])
            if "Instances" in col and col["Instances"] < len(r) and r[col["Instances"]].isdigit():
                rep.instances_total = int(r[col["Instances"]])
        elif r and r[0] == "End Snap:" and len(r) > 2:
            rep.end_snap, rep.end_time = r[1], oracle_time(r[2])
        elif r and r[0] == "Elapsed:":
            m = re.search(r"([\d,]+(?:\.\d*)?)\s*\(mins\)", " ".join(r))
            if m:
                rep.elapsed_s = float(m.group(1).replace(",", "")) * 60


def _html_iostat(rep: Report, rows: list[list[str]]) -> None:
    """IOStat by Function's TOTAL row: read and write requests and MiB per second."""
    for r in rows:
        if r and r[0] == "TOTAL:" and len(r) >= 7:
            got = [number(r[2]), _mib(r[3]), number(r[5]), _mib(r[6])]
            if all(v is not None for v in got):
                rep.iostat_total = [v or 0.0 for v in got]


def _global_summary(summary: str) -> bool:
    """'System Statistics ... Global' on one line, or 'SysStat and Global': by finding, not by a `.*` that
    backtracks from every occurrence."""
    for line in summary.lower().split("\n"):
        at = line.find("system statistics")
        if at >= 0 and "global" in line[at + len("system statistics"):]:
            return True
    return re.search(r"SysStat and\s+Global", summary, re.I) is not None


def _parse_global_html(rep: Report, tables: list[tuple[str, list[list[str]]]]) -> None:
    rep.rac = True
    for summ, rows in tables:
        if summ.startswith("Database Summary") and len(rows) >= 2:
            head = rows[-2] if len(rows) > 2 else rows[0]
            _database_summary(rep, dict(zip(head, rows[-1], strict=False)))
        if summ.startswith("Database Instances Included In Report") and rows:
            _html_instances(rep, rows)


def _html_instances(rep: Report, rows: list[list[str]]) -> None:
    """The instances table of an HTML global report: a row per instance (I# a number) under its header."""
    head = rows[0]
    elapsed: list[float] = []
    for r in rows[1:]:
        vals = dict(zip(head, r, strict=False))
        if not vals.get("I#", "").isdigit():
            continue
        _instance_row(rep, vals, vals.get("Instance", vals["I#"]), elapsed)
    _longest_elapsed(rep, elapsed)
    rep.instances_total = len(rep.instances) or None
