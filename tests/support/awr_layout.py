"""Small AWR reports in the real layouts, for the cases the public samples lack (23ai, a RAC global report, the
text and HTML of the same snapshots) and for the speed bench's AWR spool.

The layouts follow the public samples in ../shared/samples/awr/ (text: the 12.2 report; HTML: the 19c report's
table summaries) and, for the RAC global report (awrgrpt.sql), the sections public parsers of it read:
"Database Summary", "Database Instances Included In Report" and "System Statistics (Global)".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

STATS = ("physical read total IO requests", "physical write total IO requests",
         "physical read total bytes", "physical write total bytes")


@dataclass
class Inst:
    name: str
    number: int
    host: str
    stats: tuple[int, int, int, int]  # read reqs, write reqs, read bytes, write bytes


def _columns(cols: list[tuple[str, int]], rows: list[list[object]], indent: str = "") -> list[str]:
    """A header line, its dashes and value lines, each column as wide as its dashes (SQL*Plus's layout):
    text left-aligned, numbers right-aligned."""
    def cell(v: object, w: int) -> str:
        return f"{v:>{w}}" if isinstance(v, (int, float)) else f"{v!s:<{w}}"
    return [indent + " ".join(f"{h:<{w}}" for h, w in cols).rstrip(),
            indent + " ".join("-" * w for _h, w in cols),
            *[indent + " ".join(cell(v, w) for v, (_h, w) in zip(r, cols, strict=True)).rstrip() for r in rows]]


def _t(d: datetime) -> str:
    return d.strftime("%d-%b-%y %H:%M:%S")


def _stat_rows(stats: tuple[int, ...], seconds: float, width: int = 32) -> list[str]:
    rows = []
    for name, v in zip(STATS, stats, strict=True):
        rows.append(f"{name:<{width}} {v:>18,} {v / seconds:>14,.1f} {v / 1000:>13,.1f}")
    return sorted(rows)


def text_report(release: str, db: str, dbid: int, inst: Inst, begin_snap: int, end_snap: int, begin: datetime,
                minutes: float, rac: bool = False, instances: int = 1) -> str:
    end = begin + timedelta(minutes=minutes)
    s = minutes * 60
    r, w, rb, wb = inst.stats
    inst_col = f"{'':>9}{instances}" if rac else ""
    return "\n".join([
        "",
        "WORKLOAD REPOSITORY report for",
        "",
        "DB Name         DB Id    Unique Name DB Role          Edition Release    RAC CDB",
        "------------ ----------- ----------- ---------------- ------- ---------- --- ---",
        f"{db:<12} {dbid:>11} {db:<11} PRIMARY          EE      {release:<10} {'YES' if rac else 'NO ':<3} YES",
        "",
        "Instance     Inst Num Startup Time",
        "------------ -------- ---------------",
        f"{inst.name:<12} {inst.number:>8} 01-Jan-25 03:10",
        "",
        "              Snap Id      Snap Time      Sessions Curs/Sess" + (" Instances" if rac else ""),
        "            --------- ------------------- -------- ---------" + (" ---------" if rac else ""),
        f"Begin Snap: {begin_snap:>9} {_t(begin)}       104       3.7{inst_col}",
        f"  End Snap: {end_snap:>9} {_t(end)}        92       3.6{inst_col}",
        f"   Elapsed:               {minutes:.2f} (mins)",
        "   DB Time:               66.24 (mins)",
        "",
        "IO Profile                  Read+Write/Second     Read/Second    Write/Second",
        "~~~~~~~~~~                  ----------------- --------------- ---------------",
        f"            Total Requests: {(r + w) / s:>17,.1f} {r / s:>15,.1f} {w / s:>15,.1f}",
        f"                Total (MB): {(rb + wb) / s / 2**20:>17,.1f} {rb / s / 2**20:>15,.1f} "
        f"{wb / s / 2**20:>15,.1f}",
        "",
        f"Instance Activity Stats                   DB/Inst: {db}/{inst.name}  Snaps: {begin_snap}-{end_snap}",
        "-> Ordered by statistic name",
        "",
        "Statistic                                     Total     per Second     per Trans",
        "-------------------------------- ------------------ -------------- -------------",
        f"{'physical read IO requests':<32} {r:>18,} {r / s:>14,.1f} {0.1:>13,.1f}",
        *_stat_rows(inst.stats, s),
        f"{'user calls':<32} {3814827:>18,} {1055.4:>14,.1f} {50.7:>13,.1f}",
        "                          ------------------------------------------------------",
        "",
        "End of Report",
        ""])


def _table(summary: str, head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f'<th class="awrbg" scope="col">{h}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td class='awrnc'>{c}</td>" for c in r) + "</tr>\n" for r in rows)
    return f'<table border="0" class="tdiff" summary="{summary}">\n<tr>{th}</tr>\n{body}</table>\n<p />\n'


def html_report(release: str, db: str, dbid: int, inst: Inst, begin_snap: int, end_snap: int, begin: datetime,
                minutes: float, rac: bool = False, instances: int = 1) -> str:
    end = begin + timedelta(minutes=minutes)
    s = minutes * 60
    r, w, rb, wb = inst.stats
    snap_head = ["", "Snap Id", "Snap Time", "Sessions", "Cursors/Session"] + (["Instances"] if rac else [])
    extra = [str(instances)] if rac else []
    stats = [[name, f"{v:,}", f"{v / s:,.2f}", f"{v / 1000:,.2f}"] for name, v in zip(STATS, inst.stats, strict=True)]
    return "".join([
        f"<html lang=\"en\"><head><title>AWR Report for DB: {db}, Inst: {inst.name}, Snaps: {begin_snap}-{end_snap}"
        "</title></head><body class=\"awr\">\n<h1 class=\"awr\">\nWORKLOAD REPOSITORY report for\n</h1>\n",
        _table("This table displays database instance information",
               ["DB Name", "DB Id", "Unique Name", "Role", "Edition", "Release", "RAC", "CDB"],
               [[db, str(dbid), db, "PRIMARY", "EE", release, "YES" if rac else "NO", "YES"]]),
        _table("This table displays database instance information", ["Instance", "Inst Num", "Startup Time"],
               [[inst.name, str(inst.number), "01-Jan-25 03:10"]]),
        _table("This table displays snapshot information", snap_head, [
            ["Begin Snap:", str(begin_snap), _t(begin), "104", " 3.7", *extra],
            ["End Snap:", str(end_snap), _t(end), "92", " 3.6", *extra],
            ["Elapsed:", "&#160;", f" {minutes:.2f} (mins)", "&#160;", "&#160;", *(["&#160;"] if rac else [])]]),
        _table("This table displays IO profile", ["", "Read+Write Per Second", "Read per Second", "Write Per Second"],
               [["Total Requests:", f"{(r + w) / s:,.1f}", f"{r / s:,.1f}", f"{w / s:,.1f}"],
                ["Total (MB):", f"{(rb + wb) / s / 2**20:,.1f}", f"{rb / s / 2**20:,.1f}",
                 f"{wb / s / 2**20:,.1f}"]]),
        _table("This table displays Instance activity statistics. For each instance, activity total, activity per "
               "second, and activity per transaction are displayed", ["Statistic", "Total", "per Second", "per Trans"],
               sorted(stats)),
        "<p />\nEnd of Report\n</body></html>\n"])


def global_text_report(release: str, db: str, dbid: int, insts: list[Inst], begin_snap: int, end_snap: int,
                       begin: datetime, minutes: float) -> str:
    end = begin + timedelta(minutes=minutes)
    s = minutes * 60
    sums = tuple(sum(i.stats[k] for i in insts) for k in range(4))
    return "\n".join([
        "",
        "WORKLOAD REPOSITORY REPORT (RAC)",
        "",
        "Database Summary",
        "~~~~~~~~~~~~~~~~",
        "                     Database                   Snapshot Ids   Number of Instances   Report Total (minutes)",
        *_columns([("Id", 11), ("Name", 9), ("RAC", 3), ("Block Size", 10), ("Begin", 8), ("End", 8),
                   ("In Report", 9), ("Total", 6), ("DB time", 9), ("Elapsed", 9)],
                  [[dbid, db, "YES", 8192, begin_snap, end_snap, len(insts), len(insts), "66.20", f"{minutes:.2f}"]],
                  indent="   "),
        "",
        "Database Instances Included In Report",
        "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
        "-> Listed in order of instance number, I#",
        *_columns([("I#", 4), ("Instance", 12), ("Host", 10), ("Startup", 15), ("Begin Snap Time", 15),
                   ("End Snap Time", 15), ("Release", 11), ("Elapsed Time(min)", 17), ("DB time(min)", 12),
                   ("Platform", 16)],
                  [[i.number, i.name, i.host, "01-Jan-25 03:10", begin.strftime("%d-%b-%y %H:%M"),
                    end.strftime("%d-%b-%y %H:%M"), release, f"{minutes:>17.2f}", f"{33.1:>12.2f}",
                    "Linux x86 64-bit"] for i in insts]),
        "",
        f"System Statistics - Per Second   DB/Inst: {db}  Snaps: {begin_snap}-{end_snap}",
        "",
        "  I#  Logical Reads/s Physical Reads/s Physical Writes/s",
        "---- ---------------- ---------------- -----------------",
        *[f"{i.number:>4} {97456.4:>16,.1f} {103.8:>16,.1f} {30.4:>17,.1f}" for i in insts],
        "",
        f"System Statistics (Global)  DB/Inst: {db}  Snaps: {begin_snap}-{end_snap}",
        "",
        "Statistic                                     Total     per Second     per Trans",
        "-------------------------------- ------------------ -------------- -------------",
        *_stat_rows(sums, s),
        "                          ------------------------------------------------------",
        "",
        "End of Report",
        ""])


def global_html_report(release: str, db: str, dbid: int, insts: list[Inst], begin_snap: int, end_snap: int,
                       begin: datetime, minutes: float) -> str:
    end = begin + timedelta(minutes=minutes)
    s = minutes * 60
    sums = tuple(sum(i.stats[k] for i in insts) for k in range(4))
    return "".join([
        f"<html lang=\"en\"><head><title>AWR RAC Report for DB: {db}, Snaps: {begin_snap}-{end_snap}</title></head>"
        "<body class=\"awr\">\n<h1 class=\"awr\">\nWORKLOAD REPOSITORY REPORT (RAC)\n</h1>\n",
        _table("Database Summary", ["Id", "Name", "RAC", "Block Size", "Begin", "End", "In Report", "Total"],
               [[str(dbid), db, "YES", "8192", str(begin_snap), str(end_snap), str(len(insts)), str(len(insts))]]),
        _table("Database Instances Included In Report. . Listed in order of instance number, I#",
               ["I#", "Instance", "Host", "Startup", "Begin Snap Time", "End Snap Time", "Release",
                "Elapsed Time(min)", "DB time(min)"],
               [[str(i.number), i.name, i.host, "01-Jan-25 03:10", begin.strftime("%d-%b-%y %H:%M"),
                 end.strftime("%d-%b-%y %H:%M"), release, f"{minutes:.2f}", "33.10"] for i in insts]),
        _table("System Statistics (Global). . Ordered by statistic name", ["Statistic", "Total", "per Second",
                                                                           "per Trans"],
               [[n, f"{v:,}", f"{v / s:,.2f}", f"{v / 1000:,.2f}"] for n, v in zip(STATS, sums, strict=True)]),
        "<p />\nEnd of Report\n</body></html>\n"])


def awr_spool(db: str, dbid: int, instances: int, snapshots: int, start: datetime, step_min: float = 60,
              rate: float = 1000.0, restart_at: int | None = None, backwards_at: int | None = None,
              with_max: bool = True) -> str:
    """The spool of `blockfit sql oracle`: cumulative counters per instance and snapshot (rate grows with time of
    day, instance 2 does half of instance 1)."""
    lines = ["SQL*Plus: Release 19.0.0.0.0 - Production", "", f"BFIO-HEADER,1,awr,{db},{dbid},{instances}"]
    for inst in range(1, instances + 1):
        cum = [0.0, 0.0, 0.0, 0.0]
        startup = "2025-01-01T03:10:00"
        for k in range(snapshots):
            b = start + timedelta(minutes=step_min * (k - 1))
            e = start + timedelta(minutes=step_min * k)
            hour = e.hour
            busy = 1 + 2 * (9 <= hour < 17)
            r = rate * busy / inst
            sec = step_min * 60
            if restart_at is not None and k == restart_at:
                startup = e.strftime("%Y-%m-%dT%H:%M:%S")
                cum = [0.0, 0.0, 0.0, 0.0]
            inc = [r * sec, r * 0.25 * sec, r * 8192 * sec, r * 0.25 * 16384 * sec]
            cum = [c + i for c, i in zip(cum, inc, strict=True)]
            if backwards_at is not None and k == backwards_at and inst == 1:
                cum[0] -= 2 * inc[0]
            mx = f"{r * 3:.2f},{r * 0.75:.2f},{r * 8192 * 3:.1f},{r * 0.25 * 16384 * 3:.1f}" if with_max else ",,,"
            lines.append(f"BFIO,{inst},{1000 + k},{b:%Y-%m-%dT%H:%M:%S},{e:%Y-%m-%dT%H:%M:%S},{startup},"
                         f"{cum[0]:.0f},{cum[1]:.0f},{cum[2]:.0f},{cum[3]:.0f},{mx}")
    lines += ["", f"{instances * snapshots} rows selected.", ""]
    return "\n".join(lines)
