"""CloudWatch EBS metrics exports → per-volume intervals.

Two shapes are read, and in both the period and the statistic come from the file, never from a guess:

1. ``aws cloudwatch get-metric-data`` output merged with its own query (``jq -s '.[0] * .[1]' query.json
   result.json``): ``MetricDataQueries`` name each Id's metric, volume (dimension VolumeId), Period and Stat;
   ``MetricDataResults`` hold the Timestamps and Values per Id. The result alone has no period or statistic,
   so it is refused with that hint.
2. ``aws cloudwatch get-metric-statistics`` outputs of one volume, one per metric, in a JSON list (``jq -s .
   read_ops.json write_ops.json read_bytes.json write_bytes.json``): the Label names the metric, each datapoint
   names its statistic (its key: Sum, Average, Maximum) and its Unit; the period is the spacing of the
   timestamps, which must be one spacing throughout.

Metrics (https://docs.aws.amazon.com/ebs/latest/userguide/using_cloudwatch_ebs.html): VolumeReadOps,
VolumeWriteOps (Unit Count) and VolumeReadBytes, VolumeWriteBytes (Unit Bytes) count operations and bytes *in the
period*: a rate is Sum / period seconds. Maximum (Nitro-based instances only, which report a data point per
minute) is the busiest minute's count: / 60 gives that minute's rate, the finer maximum the targets use. Average
on Nitro is the mean of the per-minute data points: / 60 too. An export mixing periods, or whose Unit contradicts
its metric (Bytes for VolumeReadOps), is refused: its rates would be wrong by the ratio.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from blockfit.errors import ValueProblem
from blockfit.history.series import (
    MetricPoints,
    Sample,
    Series,
    cloud_rates,
    cloud_samples,
    cloud_series,
    json_export,
    metric_value,
    parse_time,
)

METRICS = {"VolumeReadOps": "Count", "VolumeWriteOps": "Count", "VolumeReadBytes": "Bytes",
           "VolumeWriteBytes": "Bytes"}
ORDER = ("VolumeReadOps", "VolumeWriteOps", "VolumeReadBytes", "VolumeWriteBytes")
STATS = ("Sum", "Average", "Maximum")


def read(path: Path, text: str) -> Series:
    doc = json_export(path, text)
    if isinstance(doc, dict) and "MetricDataResults" in doc:
        points, period = _metric_data(path, doc)
    elif isinstance(doc, dict) and "Datapoints" in doc:
        points, period = _statistics(path, [doc])
    elif isinstance(doc, list) and doc and all(isinstance(d, dict) and "Datapoints" in d for d in doc):
        points, period = _statistics(path, doc)
    else:
        raise ValueProblem(f"{path}: not a CloudWatch export (expected MetricDataQueries + MetricDataResults, "
                           "or get-metric-statistics Datapoints)")
    return _series(path, points, period)


# (volume, metric, stat) -> {timestamp: value}
Points = MetricPoints
# query Id -> (volume, metric, statistic, period)
Queries = dict[str, tuple[str, str, str, float]]


def _metric_data(path: Path, doc: dict[str, Any]) -> tuple[Points, float]:
    queries = doc.get("MetricDataQueries")
    if not isinstance(queries, list) or not queries:
        raise ValueProblem(f"{path}: get-metric-data results without their MetricDataQueries: the result has no "
                           "period or statistic; merge the query in (jq -s '.[0] * .[1]' query.json result.json)")
    by_id: Queries = {}
    for q in queries:
        found = _query(path, q)
        if found is not None:
            by_id[found[0]] = found[1]
    period = _one_period(path, by_id)
    points: Points = defaultdict(dict)
    for res in doc.get("MetricDataResults") or []:
        qid = str(res.get("Id", ""))
        if qid in by_id:
            _result(path, res, qid, by_id[qid], period, points)
    return points, period


def _query(path: Path, q: Any) -> tuple[str, tuple[str, str, str, float]] | None:
    """A MetricDataQueries entry as (Id, (volume, metric, statistic, period)); None for a metric not read here."""
    try:
        ms = q["MetricStat"]
        metric = ms["Metric"]["MetricName"]
        dims = {d["Name"]: d["Value"] for d in ms["Metric"].get("Dimensions", [])}
        period, stat = float(ms["Period"]), str(ms["Stat"])
        qid = str(q["Id"])
    except (KeyError, TypeError, ValueError):
        raise ValueProblem(f"{path}: a MetricDataQueries entry without Id, MetricStat.Metric.MetricName, "
                           "Period and Stat (math expressions are not read)") from None
    if metric not in METRICS:
        return None
    if stat not in STATS:
        raise ValueProblem(f"{path}: query {qid}: statistic {stat}; expected Sum, Average or Maximum")
    _check_unit(path, f"query {qid}: {metric}", metric, ms.get("Unit"))
    return qid, (dims.get("VolumeId", "volume"), metric, stat, period)


def _check_unit(path: Path, where: str, metric: str, unit: Any) -> None:
    """A Unit, where the export gives one, that is the metric's (Bytes for the bytes, Count for the operations)."""
    if unit is not None and unit != METRICS[metric]:
        raise ValueProblem(f"{path}: {where} with Unit {unit}; {metric} is counted in {METRICS[metric]}")


def _one_period(path: Path, by_id: Queries) -> float:
    periods = sorted({v[3] for v in by_id.values()})
    if len(periods) > 1:
        raise ValueProblem(f"{path}: the export mixes periods ({', '.join(f'{p:g} s' for p in periods)}); "
                           "export every metric with one Period")
    if not by_id:
        raise ValueProblem(f"{path}: no VolumeReadOps/VolumeWriteOps/VolumeReadBytes/VolumeWriteBytes queries")
    return periods[0]


def _result(path: Path, res: dict[str, Any], qid: str, query: tuple[str, str, str, float], period: float,
            points: Points) -> None:
    """One MetricDataResults entry's values into POINTS under its query's volume, metric and statistic."""
    vol, metric, stat, _p = query
    ts, vals = res.get("Timestamps") or [], res.get("Values") or []
    if len(ts) != len(vals):
        raise ValueProblem(f"{path}: result {qid}: {len(ts)} timestamps for {len(vals)} values")
    for t, v in zip(ts, vals, strict=True):
        points[(vol, metric, stat)][parse_time(str(t), str(path), f"result {qid}")] = metric_value(path, qid, v)
    _check_spacing(path, f"result {qid}", sorted(points[(vol, metric, stat)]), period)


def _statistics(path: Path, docs: list[dict[str, Any]]) -> tuple[Points, float]:
    points: Points = defaultdict(dict)
    periods: dict[str, float] = {}
    for d in docs:
        metric = str(d.get("Label", ""))
        if metric not in METRICS:
            raise ValueProblem(f"{path}: get-metric-statistics output labelled {metric!r}; expected one of "
                               f"{', '.join(METRICS)}")
        for p in d["Datapoints"] or []:
            _datapoint(path, metric, p, points)
        times = sorted({t for (_v, m, _s), pts in points.items() if m == metric for t in pts})
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        if gaps:
            periods[metric] = min(gaps)
            _check_spacing(path, metric, times, periods[metric])
    if not points:
        raise ValueProblem(f"{path}: no datapoints")
    return points, _statistics_period(path, periods)


def _datapoint(path: Path, metric: str, p: Any, points: Points) -> None:
    """A get-metric-statistics datapoint's statistics into POINTS (its volume is not in the output: 'volume')."""
    if not isinstance(p, dict):
        raise ValueProblem(f"{path}: {metric}: a datapoint that is not an object")
    _check_unit(path, f"{metric} datapoint", metric, p.get("Unit"))
    t = parse_time(str(p.get("Timestamp", "")), str(path), metric)
    found = [s for s in STATS if s in p]
    if not found:
        raise ValueProblem(f"{path}: {metric} datapoint without Sum, Average or Maximum")
    for s in found:
        points[("volume", metric, s)][t] = metric_value(path, metric, p[s])


def _statistics_period(path: Path, periods: dict[str, float]) -> float:
    """The one period of every metric, read from the spacing of its timestamps."""
    if len(set(periods.values())) > 1:
        mixed = ", ".join(f"{m} {p:g} s" for m, p in sorted(periods.items()))
        raise ValueProblem(f"{path}: the export mixes periods ({mixed}); export every metric with one --period")
    if not periods:
        raise ValueProblem(f"{path}: one datapoint per metric; the period cannot be read from the file "
                           "(export at least two periods)")
    return next(iter(periods.values()))


def _check_spacing(path: Path, where: str, times: list[float], period: float) -> None:
    for a, b in zip(times, times[1:], strict=False):
        gap = b - a
        if gap < period - 0.5 or abs(gap / period - round(gap / period)) > 0.01:
            raise ValueProblem(f"{path}: {where}: datapoints {gap:g} s apart with Period {period:g} s: the export "
                               "mixes periods")


def _series(path: Path, points: Points, period: float) -> Series:
    samples: list[Sample] = []
    used: set[str] = set()
    for vol in sorted({v for v, _m, _s in points}):
        rate, peak, read_stats = cloud_rates(points, vol, METRICS, period, STATS)
        used |= read_stats
        if not rate and peak:
            rate, peak = peak, {}
            used.add("Maximum as the series")
        missing = [m for m in METRICS if m not in rate]
        if missing:
            raise ValueProblem(f"{path}: volume {vol}: no {', '.join(missing)} (export all four: VolumeReadOps, "
                               "VolumeWriteOps, VolumeReadBytes, VolumeWriteBytes)")
        samples += cloud_samples(vol, rate, peak, ORDER, period, stamped_at_end=False)
    note = (f"CloudWatch EBS metrics, period {period:g} s, statistics {', '.join(sorted(used))}: IOPS = "
            "(VolumeReadOps + VolumeWriteOps) Sum / period, MB/s = (VolumeReadBytes + VolumeWriteBytes) Sum / period "
            "/ 10^6" + ("; Maximum / 60 = the busiest minute (per-minute data points of Nitro instances), reads and "
                        "writes added: an upper bound" if "Maximum" in used else ""))
    return cloud_series(path, "cloudwatch", "volume", samples, note, "no period with all four metrics")
