"""Azure Monitor metrics JSON (`az monitor metrics list --resource DISK_OR_VM --metrics ... --interval PT5M
--aggregation Average Maximum`) → per-disk intervals.

The file says its interval (``"interval": "PT5M"``), each metric's unit, and each data point's aggregations
(``average``, ``maximum``, ``total``), so nothing is assumed. Metrics read
(https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-compute-disks-metrics and
.../microsoft-compute-virtualmachines-metrics):

- per-second rates, unit BytesPerSecond or CountPerSecond: "Composite Disk Read|Write Bytes/sec", "Composite Disk
  Read|Write Operations/sec" (a managed disk), "Data Disk Read|Write Bytes/sec", "Data Disk Read|Write
  Operations/Sec" (a VM's data disks, one series per LUN), "Disk Read|Write Operations/Sec". ``average`` is the
  rate over the interval; ``maximum`` the busiest 1-minute value inside it (the finer maximum the targets use).
- totals in the interval, unit Bytes or Count: "Disk Read|Write Bytes" (a VM, all disks): ``total`` / interval
  seconds.

A metric whose unit contradicts its name (Bytes for "... Operations/sec", a per-second name with a total unit) or
data points spaced other than the interval are refused.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from blockfit.errors import ValueProblem
from blockfit.history.series import Sample, Series, check_rate, iso, json_export, parse_time

DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")
MINUTE = 60.0


def duration_s(text: str, path: Path) -> float:
    m = DURATION.match(text.strip().upper())
    if not m or not any(m.groups()):
        raise ValueProblem(f"{path}: interval {text!r} is not an ISO 8601 duration such as PT5M")
    d, h, mi, s = (int(x) if x else 0 for x in m.groups())
    return float(d * 86400 + h * 3600 + mi * 60 + s)


def _kind(name: str) -> tuple[str, str, bool] | None:
    """('read'|'write', 'ops'|'bytes', per_second) of a disk I/O metric name, or None for other metrics."""
    n = name.lower()
    if "disk" not in n or ("read" not in n and "write" not in n):
        return None
    if "queue" in n or "latency" in n or "burst" in n or "iops consumed" in n or "bandwidth consumed" in n:
        return None
    direction = "read" if "read" in n else "write"
    what = "ops" if "operation" in n else "bytes" if "bytes" in n else ""
    if not what:
        return None
    return direction, what, n.endswith("/sec")


def read(path: Path, text: str) -> Series:
    doc = json_export(path, text)
    if not isinstance(doc, dict) or not isinstance(doc.get("value"), list):
        raise ValueProblem(f"{path}: not Azure Monitor metrics JSON (expected 'interval' and 'value')")
    if "interval" not in doc:
        raise ValueProblem(f"{path}: no 'interval': the data points' interval is not assumed")
    interval = duration_s(str(doc["interval"]), path)
    # (member, direction, what) -> {t: (rate, peak or None)}
    series: dict[tuple[str, str, str], dict[float, tuple[float, float | None]]] = defaultdict(dict)
    used: set[str] = set()
    for metric in doc["value"]:
        _metric(path, metric, interval, series, used)
    if not series:
        raise ValueProblem(f"{path}: no disk read/write operations or bytes metrics")
    return _series(path, series, interval, used)


def _metric(path: Path, metric: Any, interval: float, series: dict[tuple[str, str, str],
            dict[float, tuple[float, float | None]]], used: set[str]) -> None:
    if not isinstance(metric, dict):
        raise ValueProblem(f"{path}: a 'value' entry that is not an object")
    name_obj = metric.get("name")
    name = str(name_obj.get("value", "") if isinstance(name_obj, dict) else name_obj or "")
    kind = _kind(name)
    if kind is None:
        return
    direction, what, per_second = kind
    unit = str(metric.get("unit", ""))
    want_unit = ("BytesPerSecond" if what == "bytes" else "CountPerSecond") if per_second else \
        ("Bytes" if what == "bytes" else "Count")
    if unit != want_unit:
        raise ValueProblem(f"{path}: metric {name!r} with unit {unit or 'none'}; {name!r} is in {want_unit}")
    resource = str(metric.get("id", "")).split("/providers/Microsoft.Insights/")[0].rstrip("/").split("/")[-1] or "disk"
    for ts in metric.get("timeseries") or []:
        lun = next((str(mv.get("value")) for mv in ts.get("metadatavalues") or []
                    if str((mv.get("name") or {}).get("value", "")).lower() == "lun"), None)
        member = f"{resource} LUN {lun}" if lun is not None else resource
        times = []
        for dp in ts.get("data") or []:
            t = parse_time(str(dp.get("timeStamp", dp.get("timestamp", ""))), str(path), name)
            times.append(t)
            if per_second:
                avg, mx = dp.get("average"), dp.get("maximum")
                if avg is None and mx is None:
                    continue  # no data in this interval (the disk was idle or detached)
                rate = _num(path, name, avg if avg is not None else mx)
                peak = _num(path, name, mx) if mx is not None and avg is not None else None
                used.add("average" if avg is not None else "maximum")
            else:
                tot, mx = dp.get("total"), dp.get("maximum")
                if tot is None:
                    continue
                rate = _num(path, name, tot) / interval
                peak = _num(path, name, mx) / MINUTE if mx is not None and interval > MINUTE else None
                used.add("total")
            if peak is not None:
                used.add("maximum")
            series[(member, direction, what)][t] = (rate, peak)
        times.sort()
        for a, b in zip(times, times[1:], strict=False):
            if abs((b - a) - interval) > 0.5:
                raise ValueProblem(f"{path}: {name}: data points {b - a:g} s apart under interval {interval:g} s: "
                                   "the export mixes intervals")


def _num(path: Path, where: str, v: Any) -> float:
    try:
        return check_rate(str(path), where, "value", float(v))
    except (TypeError, ValueError):
        raise ValueProblem(f"{path}: {where}: value {v!r} is not a number") from None


def _series(path: Path, series: dict[tuple[str, str, str], dict[float, tuple[float, float | None]]],
            interval: float, used: set[str]) -> Series:
    samples: list[Sample] = []
    for member in sorted({m for m, _d, _w in series}):
        parts = {(d, w): series.get((member, d, w)) for d in ("read", "write") for w in ("ops", "bytes")}
        missing = [f"{d} {w}" for (d, w), v in parts.items() if not v]
        if missing:
            raise ValueProblem(f"{path}: {member}: no {', '.join(missing)} metric (export read and write "
                               "operations and bytes)")
        p = {k: v for k, v in parts.items() if v}
        for t in sorted(set.intersection(*(set(v) for v in p.values()))):
            ro, wo, rb, wb = (p[("read", "ops")][t], p[("write", "ops")][t], p[("read", "bytes")][t],
                              p[("write", "bytes")][t])
            peaks = [ro[1], wo[1], rb[1], wb[1]]
            pi = None if peaks[0] is None or peaks[1] is None else peaks[0] + peaks[1]
            pm = None if peaks[2] is None or peaks[3] is None else (peaks[2] + peaks[3]) / 1e6
            samples.append(Sample(key=t, member=member, start=t, duration_s=interval, label=iso(t) or "",
                                  read_iops=ro[0], write_iops=wo[0], iops=ro[0] + wo[0], read_mbps=rb[0] / 1e6,
                                  write_mbps=wb[0] / 1e6, peak_iops=pi, peak_mbps=pm))
    if not samples:
        raise ValueProblem(f"{path}: no interval with read and write operations and bytes")
    notes = [f"{path.name}: Azure Monitor, interval {interval:g} s, aggregations {', '.join(sorted(used))}: the "
             "/sec metrics' average is the interval's rate, their maximum the busiest minute (reads and writes "
             "added: an upper bound); totals are divided by the interval"]
    return Series(source=str(path), format="azure-monitor", member_kind="disk", samples=samples, notes=notes)
