"""OCI Monitoring exports (`oci monitoring metric-data summarize-metrics-data`, namespace oci_blockstore) → per-volume
intervals.

The CLI's output holds the data points but not the query that made them, and the query is where the interval and
the statistic are (``VolumeReadOps[5m].sum()``). So the file must carry it: ``{"query-text": "...", "data":
[...]}`` (the CLI output with its query added: ``jq --arg q "$Q" '. + {"query-text": $q}'``), or a JSON list of such
objects, one per metric. Nothing is assumed when it is missing: the file is refused with that hint.

Metrics (https://docs.oracle.com/en-us/iaas/Content/Block/References/volumemetrics.htm): VolumeReadOps,
VolumeWriteOps (operations in the interval) and VolumeReadThroughput, VolumeWriteThroughput (bytes in the
interval). With ``.sum()`` a rate is the value / interval seconds. ``.max()`` and ``.mean()`` summarise the
per-minute raw points: / 60 gives a per-second rate, and ``.max()`` over an interval longer than a minute is the
busiest minute, the finer maximum the targets use. An export mixing intervals, or whose metadata unit
contradicts its metric (bytes for VolumeReadOps), is refused.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from blockfit.errors import ValueProblem
from blockfit.history.series import (
    MetricPoints,
    Sample,
    Series,
    check_rate,
    cloud_rates,
    cloud_samples,
    cloud_series,
    json_export,
    parse_time,
)

METRICS = {"VolumeReadOps": "ops", "VolumeWriteOps": "ops", "VolumeReadThroughput": "bytes",
           "VolumeWriteThroughput": "bytes"}
ORDER = ("VolumeReadOps", "VolumeWriteOps", "VolumeReadThroughput", "VolumeWriteThroughput")
MQL = re.compile(r"^\s*(\w+)\[(\d+)([smhd])\](?:\{[^}]*\})?(?:\.\w+\([^)]*\))*?\.(sum|max|mean|avg)\(\)\s*$", re.I)
SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
BYTE_UNITS = ("byte", "bytes", "by")


def read(path: Path, text: str) -> Series:
    doc = json_export(path, text)
    parts = doc if isinstance(doc, list) else [doc]
    if parts and isinstance(parts[0], dict) and "aggregated-datapoints" in parts[0]:
        raise ValueProblem(f"{path}: OCI data without its query: the interval and the statistic are in the query, "
                           "not in the CLI's output; save {\"query-text\": QUERY, \"data\": OUTPUT.data}")
    # (volume, metric, stat) -> {t: value}
    points: MetricPoints = defaultdict(dict)
    intervals = {_part(path, part, points) for part in parts}
    if len(intervals) > 1:
        mixed = ", ".join(f"{i:g} s" for i in sorted(intervals))
        raise ValueProblem(f"{path}: the export mixes intervals ({mixed}); query every metric with one interval")
    if not intervals:
        raise ValueProblem(f"{path}: no query")
    return _series(path, points, intervals.pop())


def _part(path: Path, part: Any, points: MetricPoints) -> float:
    """One {"query-text": ..., "data": [...]} object's data points into POINTS; its query's interval in seconds."""
    if not isinstance(part, dict) or not isinstance(part.get("data"), list):
        raise ValueProblem(f"{path}: expected {{\"query-text\": ..., \"data\": [...]}} (or a list of them)")
    q = part.get("query-text", part.get("queryText", part.get("query")))
    if not isinstance(q, str):
        raise ValueProblem(f"{path}: no query-text: the interval and the statistic are in the query, not in "
                           "the CLI's output; save {\"query-text\": QUERY, \"data\": OUTPUT.data}")
    m = MQL.match(q)
    if not m:
        raise ValueProblem(f"{path}: query-text {q!r}: expected METRIC[INTERVAL]{{...}}.sum() (or .max(), "
                           ".mean())")
    metric, interval, stat = m.group(1), float(m.group(2)) * SECONDS[m.group(3).lower()], m.group(4).lower()
    if metric not in METRICS:
        raise ValueProblem(f"{path}: query of {metric}; expected VolumeReadOps, VolumeWriteOps, "
                           "VolumeReadThroughput or VolumeWriteThroughput (namespace oci_blockstore)")
    for entry in part["data"]:
        _entry(path, entry, metric, "mean" if stat == "avg" else stat, points)
    return interval


def _entry(path: Path, entry: Any, metric: str, stat: str,
           points: MetricPoints) -> None:
    if not isinstance(entry, dict):
        raise ValueProblem(f"{path}: a data entry that is not an object")
    name = entry.get("name", metric)
    if name != metric:
        raise ValueProblem(f"{path}: data of {name} under a query of {metric}")
    unit = str((entry.get("metadata") or {}).get("unit", "")).strip().lower()
    if unit:
        is_bytes = unit in BYTE_UNITS or unit.startswith("byte")
        if is_bytes != (METRICS[metric] == "bytes"):
            raise ValueProblem(f"{path}: {metric} with unit {unit!r}; {metric} counts "
                               f"{'bytes' if METRICS[metric] == 'bytes' else 'operations'}")
    dims = entry.get("dimensions") or {}
    vol = str(dims.get("resourceId") or dims.get("resourceDisplayName") or "volume")
    dps = entry.get("aggregated-datapoints", entry.get("aggregatedDatapoints"))
    if not isinstance(dps, list):
        raise ValueProblem(f"{path}: {metric} entry without aggregated-datapoints")
    for dp in dps:
        try:
            t = parse_time(str(dp["timestamp"]), str(path), metric)
            v = check_rate(str(path), metric, "value", float(dp["value"]))
        except (KeyError, TypeError, ValueError):
            raise ValueProblem(f"{path}: {metric}: a data point without a timestamp and a numeric value") from None
        points[(vol, metric, stat)][t] = v


def _series(path: Path, points: MetricPoints, interval: float) -> Series:
    samples: list[Sample] = []
    for vol in sorted({v for v, _m, _s in points}):
        rate, peak, _used = cloud_rates(points, vol, METRICS, interval, ("sum", "mean", "max"))
        if not rate and len(peak) == len(METRICS):
            rate, peak = peak, {}
        missing = [m for m in METRICS if m not in rate]
        if missing:
            raise ValueProblem(f"{path}: volume {vol}: no {', '.join(missing)} (export all four metrics)")
        # OCI stamps an aggregated point at the end of its interval
        samples += cloud_samples(vol, rate, peak, ORDER, interval, stamped_at_end=True)
    note = (f"OCI Monitoring oci_blockstore, interval {interval:g} s: IOPS = (VolumeReadOps + VolumeWriteOps).sum() "
            "/ interval, MB/s = (VolumeReadThroughput + VolumeWriteThroughput).sum() / interval / 10^6; .max() / 60 = "
            "the busiest minute (reads and writes added: an upper bound)")
    return cloud_series(path, "oci-monitoring", "volume", samples, note, "no interval with all four metrics")
