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
from blockfit.history.series import (
    MINUTE_S,
    Sample,
    Series,
    cloud_series,
    json_export,
    metric_value,
    ops_bytes_sample,
    parse_time,
)

DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


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


# (member, direction, what) -> {t: (rate, peak or None)}
Points = dict[tuple[str, str, str], dict[float, tuple[float, float | None]]]


def read(path: Path, text: str) -> Series:
    doc = json_export(path, text)
    if not isinstance(doc, dict) or not isinstance(doc.get("value"), list):
        raise ValueProblem(f"{path}: not Azure Monitor metrics JSON (expected 'interval' and 'value')")
    if "interval" not in doc:
        raise ValueProblem(f"{path}: no 'interval': the data points' interval is not assumed")
    interval = duration_s(str(doc["interval"]), path)
    series: Points = defaultdict(dict)
    used: set[str] = set()
    for metric in doc["value"]:
        _metric(path, metric, interval, series, used)
    if not series:
        raise ValueProblem(f"{path}: no disk read/write operations or bytes metrics")
    return _series(path, series, interval, used)


def _metric(path: Path, metric: Any, interval: float, series: Points, used: set[str]) -> None:
    if not isinstance(metric, dict):
        raise ValueProblem(f"{path}: a 'value' entry that is not an object")
    name_obj = metric.get("name")
    name = str(name_obj.get("value", "") if isinstance(name_obj, dict) else name_obj or "")
    kind = _kind(name)
    if kind is None:
        return
    direction, what, per_second = kind
    _check_unit(path, name, str(metric.get("unit", "")), what, per_second)
    resource = str(metric.get("id", "")).split("/providers/Microsoft.Insights/")[0].rstrip("/").split("/")[-1] or "disk"
    for ts in metric.get("timeseries") or []:
        member = _member(resource, ts)
        times = []
        for dp in ts.get("data") or []:
            t = parse_time(str(dp.get("timeStamp", dp.get("timestamp", ""))), str(path), name)
            times.append(t)
            point = _rate_point(path, name, dp, used) if per_second else _total_point(path, name, dp, interval, used)
            if point is not None:
                series[(member, direction, what)][t] = point
        _check_spacing(path, name, times, interval)


def _check_unit(path: Path, name: str, unit: str, what: str, per_second: bool) -> None:
    """A metric's unit that agrees with its name: BytesPerSecond or CountPerSecond for a /sec name, else Bytes or
    Count."""
    want_unit = ("BytesPerSecond" if what == "bytes" else "CountPerSecond") if per_second else \
        ("Bytes" if what == "bytes" else "Count")
    if unit != want_unit:
        raise ValueProblem(f"{path}: metric {name!r} with unit {unit or 'none'}; {name!r} is in {want_unit}")


def _member(resource: str, ts: Any) -> str:
    """The disk a timeseries is of: the resource, and the LUN where the series is one of a VM's data disks."""
    lun = next((str(mv.get("value")) for mv in ts.get("metadatavalues") or []
                if str((mv.get("name") or {}).get("value", "")).lower() == "lun"), None)
    return f"{resource} LUN {lun}" if lun is not None else resource


def _rate_point(path: Path, name: str, dp: Any, used: set[str]) -> tuple[float, float | None] | None:
    """A /sec metric's data point: the average as the rate (the maximum where it alone is there), the maximum as
    the busiest minute; None for a point without either (the disk was idle or detached)."""
    avg, mx = dp.get("average"), dp.get("maximum")
    if avg is None and mx is None:
        return None
    if avg is None:
        used.add("maximum")
        return metric_value(path, name, mx), None
    used.add("average")
    if mx is None:
        return metric_value(path, name, avg), None
    used.add("maximum")
    return metric_value(path, name, avg), metric_value(path, name, mx)


def _total_point(path: Path, name: str, dp: Any, interval: float,
                 used: set[str]) -> tuple[float, float | None] | None:
    """A total metric's data point: the total / the interval as the rate, the maximum / 60 as the busiest minute
    where the interval is longer than one; None for a point without a total."""
    tot, mx = dp.get("total"), dp.get("maximum")
    if tot is None:
        return None
    rate = metric_value(path, name, tot) / interval
    peak = metric_value(path, name, mx) / MINUTE_S if mx is not None and interval > MINUTE_S else None
    used.add("total")
    if peak is not None:
        used.add("maximum")
    return rate, peak


def _check_spacing(path: Path, name: str, times: list[float], interval: float) -> None:
    times = sorted(times)
    for a, b in zip(times, times[1:], strict=False):
        if abs((b - a) - interval) > 0.5:
            raise ValueProblem(f"{path}: {name}: data points {b - a:g} s apart under interval {interval:g} s: "
                               "the export mixes intervals")


def _series(path: Path, series: Points, interval: float, used: set[str]) -> Series:
    samples: list[Sample] = []
    for member in sorted({m for m, _d, _w in series}):
        parts = {(d, w): series.get((member, d, w)) for d in ("read", "write") for w in ("ops", "bytes")}
        missing = [f"{d} {w}" for (d, w), v in parts.items() if not v]
        if missing:
            raise ValueProblem(f"{path}: {member}: no {', '.join(missing)} metric (export read and write "
                               "operations and bytes)")
        ro, wo, rb, wb = (series[(member, d, w)] for d, w in (("read", "ops"), ("write", "ops"), ("read", "bytes"),
                                                              ("write", "bytes")))
        for t in sorted(set(ro) & set(wo) & set(rb) & set(wb)):
            samples.append(ops_bytes_sample(t, member, t, interval, (ro[t][0], wo[t][0], rb[t][0], wb[t][0]),
                                            (ro[t][1], wo[t][1], rb[t][1], wb[t][1])))
    note = (f"Azure Monitor, interval {interval:g} s, aggregations {', '.join(sorted(used))}: the /sec metrics' "
            "average is the interval's rate, their maximum the busiest minute (reads and writes added: an upper "
            "bound); totals are divided by the interval")
    return cloud_series(path, "azure-monitor", "disk", samples, note,
                        "no interval with read and write operations and bytes")
