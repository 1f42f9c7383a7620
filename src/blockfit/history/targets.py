"""Turn workload history into plan targets: sum the members per interval, take a percentile, apply the peak factor
and the headroom, and say where every figure came from.

The interface other readers use (the Prometheus fleet reader, issue 24, too): build one `Series` per source
(history/series.py) and call

    targets_from_series(series, devices=None, percentile=95.0, headroom_pct=0.0, peak_factor=None)

which returns `DerivedTargets` (schema/history.py). `derive_targets(paths, ...)` does the same for files.

Why a percentile and not the peak: one interval of a backup or a log switch should not size a month's bill;
why not the mean: the plan must carry the busy hours. p95 is the default; DBAs also size for the peak (100),
p99.9, p99 and the median, and each is named as they say it.

Why a peak factor: an interval's average hides what happened inside it (one published case: 57.8 MB/s over a
45-minute AWR snapshot, 318.5 and 413.1 MB/s in single minutes; rmoff.net, 2010-09-14). Where the source
resolves 60 s or finer, or carries its own finer maximum (AWR sysmetric MAXVAL, CloudWatch Maximum of 1-minute
points), that is used and the factor is 1. Where it has only coarser averages the default factor is 1 too:
blockfit does not invent a burst ratio from one published workload; it warns, names the case, and the user sets
`--peak-factor` (or exports the history with its maxima: `blockfit sql oracle`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from blockfit.errors import InputError
from blockfit.history.readers import read_history
from blockfit.history.series import MIN_SNAPSHOT_S, Sample, Series, iso
from blockfit.schema.history import DerivedTargets, HistoryPoint, HistorySource, PeakWindow, PercentileName

DEFAULT_PEAK_FACTOR = 1.0
BURST_CASE = ("one published case averaged 57.8 MB/s over a 45-minute AWR snapshot with 318.5 and 413.1 MB/s in "
              "single minutes (https://preview.rmoff.net/2010/09/14/the-danger-of-averages-measuring-i/o-throughput, "
              "2010-09-14)")
FINE_S = 60.0  # sources sampling this often or faster resolve bursts themselves
MAX_POINTS = 2000
NAMES: dict[float, PercentileName] = {100.0: "peak", 99.9: "p99.9", 99.0: "p99", 95.0: "p95", 50.0: "median"}
WORDS = {"peak": 100.0, "max": 100.0, "p100": 100.0, "median": 50.0, "p50": 50.0}


def parse_percentile(text: str | float, option: str = "--percentile") -> float:
    """'peak', 'median', 'p99.9', '99.9', '99.9%' or 100 as a number above 0 and at most 100."""
    raw = str(text).strip().lower()
    s = raw.removesuffix("%")
    if s in WORDS:
        return WORDS[s]
    s = s.removeprefix("p")
    try:
        value = float(s) if s.isascii() else math.nan
    except ValueError:
        raise InputError(f"{option} {text}: expected peak, median, p99.9, p99, p95 or a number above 0 and at "
                         "most 100") from None
    if isinstance(text, str) and raw == s and 0 < value < 1:   # neither 'p' nor '%': 0.95 meant p95
        raise InputError(f"{option} {text}: a bare fraction is ambiguous; write p{100 * value:g} (or {value:g}% "
                         "if you mean that percentile)")
    if not math.isfinite(value) or not 0 < value <= 100:
        raise InputError(f"{option} {text}: expected a number above 0 and at most 100 (100 = the peak)")
    return value


def percentile_name(p: float) -> PercentileName:
    return NAMES.get(round(p, 6), "custom")


def derive_targets(paths: Path | Sequence[Path], devices: list[str] | None = None, percentile: float = 95.0,
                   headroom_pct: float = 0.0, peak_factor: float | None = None,
                   declared: str | None = None) -> DerivedTargets:
    """Read every path (each once, in order) and derive the targets; see targets_from_series."""
    path_list = [paths] if isinstance(paths, Path) else list(paths)
    _check_options(percentile, headroom_pct, peak_factor)
    seen: dict[Path, Path] = {}
    for p in path_list:
        try:
            real = p.resolve()
        except (OSError, RuntimeError):
            real = p
        if real in seen:
            raise InputError(f"--from {p}: given twice (as {seen[real]} too); each history file counts once")
        seen[real] = p
    return targets_from_series([read_history(p, declared) for p in path_list], devices, percentile, headroom_pct,
                               peak_factor)


def _check_options(percentile: float, headroom_pct: float, peak_factor: float | None) -> None:
    if not math.isfinite(percentile) or not 0 < percentile <= 100:
        raise InputError(f"--percentile {percentile:g}: expected a number above 0 and at most 100 (100 = the peak)")
    if not math.isfinite(headroom_pct) or headroom_pct < 0:
        raise InputError(f"--headroom {headroom_pct:g}: expected a percentage of at least 0")
    if peak_factor is not None and (not math.isfinite(peak_factor) or not 1 <= peak_factor <= 100):
        raise InputError(f"--peak-factor {peak_factor:g}: expected a factor from 1 to 100 (the busiest minute "
                         "over the interval's average)")


@dataclass
class _Total:
    key: str | float | int
    start: float | None
    duration_s: float
    label: str
    read_iops: float
    write_iops: float
    iops: float
    read_mbps: float
    write_mbps: float
    peak_iops: float | None
    peak_mbps: float | None
    split: bool

    @property
    def mbps(self) -> float:
        return self.read_mbps + self.write_mbps


def targets_from_series(series: list[Series], devices: list[str] | None = None, percentile: float = 95.0,
                        headroom_pct: float = 0.0, peak_factor: float | None = None) -> DerivedTargets:
    """Sum the chosen members of every series per interval and derive the targets with their provenance."""
    _check_options(percentile, headroom_pct, peak_factor)
    if not series:
        raise InputError("--from: no history given")
    notes: list[str] = []
    warnings: list[str] = []
    skipped: list[str] = []
    chosen = [_choose(s, devices) for s in series]
    if devices:
        named = {d.removeprefix("/dev/") for d in devices}
        found = {m for c in chosen for m in c}
        missing = sorted(named - found)
        if missing:
            have = sorted({m for s in series for m in s.members})
            raise InputError(f"--devices {','.join(missing)}: not in {', '.join(s.source for s in series)} "
                             f"(it has {', '.join(have[:12])})")
    picked: list[list[Sample]] = []
    for s, members in zip(series, chosen, strict=True):
        rows = [x for x in s.samples if x.member in members]
        if s.snapshot_source:
            short = [x for x in rows if x.duration_s < MIN_SNAPSHOT_S]
            if short:
                rows = [x for x in rows if x.duration_s >= MIN_SNAPSHOT_S]
                skipped.append(f"{len(short)} interval(s) of {s.source} shorter than {MIN_SNAPSHOT_S:.0f} s "
                               f"({', '.join(sorted({x.label for x in short})[:5])})")
        if not rows:
            raise InputError(f"--from {s.source}: no intervals for {', '.join(members) or 'the series'}")
        picked.append(rows)
        skipped += [f"{s.source}: {x}" if len(series) > 1 else x for x in s.skipped]
        notes += s.notes
        warnings += s.warnings
    _check_oracle(series, chosen, notes, warnings)
    totals = _sum_per_interval(series, picked, skipped)
    if not totals:
        raise InputError(f"--from {', '.join(s.source for s in series)}: the sources share no interval (different "
                         "snapshots or times); give histories of the same period")
    return _targets(series, chosen, picked, totals, percentile, headroom_pct, peak_factor, notes, warnings, skipped)


def _choose(s: Series, devices: list[str] | None) -> list[str]:
    names = s.members
    if devices:
        if s.member_kind == "series":
            raise InputError(f"--devices: {s.source} is a {s.format} history of one series; leave --devices off")
        want = [d.removeprefix("/dev/") for d in devices]
        return [m for m in names if m in want]
    if s.member_kind == "device" and len(names) > 1:
        raise InputError(f"--from {s.source}: {len(names)} devices ({', '.join(names[:12])}); name the ones the "
                         "database uses with --devices (summing a stripe and its members would count I/Os twice)")
    return names


def _check_oracle(series: list[Series], chosen: list[list[str]], notes: list[str], warnings: list[str]) -> None:
    """RAC: reports of one database's instances are summed; a global report stands alone; one instance warns."""
    oracle = [(s, c) for s, c in zip(series, chosen, strict=True) if s.database is not None]
    if not oracle:
        return
    dbs = sorted({s.database or "" for s, _ in oracle})
    if len(dbs) > 1:
        raise InputError(f"--from: histories of different databases ({'; '.join(dbs)}); plan one database at a time")
    if len(series) > 1 and any(s.global_report for s in series):
        g = next(s for s in series if s.global_report)
        raise InputError(f"--from {g.source}: a RAC global report already sums every instance; give it alone")
    owners: dict[str, str] = {}
    for s, members in oracle:
        for m in members:
            if m in owners and owners[m] != s.source:
                raise InputError(f"--from {s.source}: instance {m} is in {owners[m]} too; each instance's history "
                                 "counts once")
            owners[m] = s.source
    instances = sorted(owners)
    total = max((s.instances_total or 0) for s, _ in oracle)
    if len(oracle) > 1 and len(instances) > 1:
        notes.append(f"summed the {len(instances)} RAC instances' histories ({', '.join(instances)}) interval by "
                     "interval: the database's I/O is the sum of its instances'")
    if total > len(instances) and not any(s.global_report for s, _ in oracle):
        missing = total - len(instances)
        warnings.append(f"{dbs[0]} is a RAC database of {total} instances and the history covers "
                        f"{len(instances)} ({', '.join(instances)}): this plans for "
                        f"{'that instance' if len(instances) == 1 else 'those instances'} only; the database does "
                        f"more I/O ({missing} more instance{'s' if missing > 1 else ''}): give every instance's "
                        "report (--from once each) or a RAC global report (awrgrpt.sql)")


def _sum_per_interval(series: list[Series], picked: list[list[Sample]], skipped: list[str]) -> list[_Total]:
    per_key: list[dict[str | float | int, list[Sample]]] = []
    for rows in picked:
        d: dict[str | float | int, list[Sample]] = {}
        for x in rows:
            d.setdefault(x.key, []).append(x)
        per_key.append(d)
    common = set(per_key[0])
    for d in per_key[1:]:
        common &= set(d)
    for s, d in zip(series, per_key, strict=True):
        extra = len(set(d) - common)
        if extra and len(series) > 1:
            skipped.append(f"{extra} interval(s) of {s.source} that the other sources do not cover")
    out = []
    for key in common:
        group = [x for d in per_key for x in d[key]]
        split = all(x.read_iops is not None and x.write_iops is not None for x in group)
        peaks_i = [x.peak_iops for x in group]
        peaks_m = [x.peak_mbps for x in group]
        out.append(_Total(
            key=key, start=min((x.start for x in group if x.start is not None), default=None),
            duration_s=max(x.duration_s for x in group), label=group[0].label,
            read_iops=sum(x.read_iops or 0.0 for x in group), write_iops=sum(x.write_iops or 0.0 for x in group),
            iops=sum(x.iops for x in group), read_mbps=sum(x.read_mbps for x in group),
            write_mbps=sum(x.write_mbps for x in group),
            peak_iops=None if any(p is None for p in peaks_i) else sum(p or 0.0 for p in peaks_i),
            peak_mbps=None if any(p is None for p in peaks_m) else sum(p or 0.0 for p in peaks_m), split=split))
    out.sort(key=lambda t: (t.start if t.start is not None else math.inf, str(t.key)))
    if all(t.start is None for t in out):
        out.sort(key=lambda t: (0, t.key) if isinstance(t.key, (int, float)) else (1, str(t.key)))
    return out


def _targets(series: list[Series], chosen: list[list[str]], picked: list[list[Sample]], totals: list[_Total],
             percentile: float, headroom_pct: float, peak_factor: float | None, notes: list[str],
             warnings: list[str], skipped: list[str]) -> DerivedTargets:
    iops = np.array([t.iops for t in totals])
    mbps = np.array([t.mbps for t in totals])
    interval = max(float(np.median([x.duration_s for x in rows])) for rows in picked)
    fine_peaks = all(t.peak_iops is not None and t.peak_mbps is not None for t in totals)
    if peak_factor is not None:
        factor, why = peak_factor, f"--peak-factor {peak_factor:g}"
        base_i, base_m = iops, mbps
        if fine_peaks:
            notes.append("the history carries per-interval maxima; --peak-factor makes the targets come from the "
                         "interval averages instead")
    elif fine_peaks:
        factor = 1.0
        base_i = np.array([t.peak_iops or 0.0 for t in totals])
        base_m = np.array([t.peak_mbps or 0.0 for t in totals])
        ratio = _median_ratio(base_i, iops)
        why = ("1: the source's own finer maximum inside each interval is used instead of the average"
               + (f" (here the maxima are {ratio:.2f}x the averages, median over the intervals)" if ratio else ""))
    elif interval <= FINE_S:
        factor, why = 1.0, f"1: the history samples every {interval:.3g} s, fine enough to show bursts itself"
        base_i, base_m = iops, mbps
    else:
        factor, base_i, base_m = DEFAULT_PEAK_FACTOR, iops, mbps
        why = (f"{DEFAULT_PEAK_FACTOR:g} (the default): the history has only {interval / 60:,.0f}-minute averages "
               "and no finer maximum; blockfit does not guess the burst ratio")
        warnings.append(f"the history holds {interval / 60:,.0f}-minute averages: bursts inside an interval do not "
                        f"show ({BURST_CASE}); set --peak-factor from what you know of the workload, or export "
                        "per-snapshot maxima (blockfit sql oracle) and plan from those")
    p_i = float(np.percentile(base_i, percentile)) * factor
    p_m = float(np.percentile(base_m, percentile)) * factor
    if p_i <= 0 and p_m <= 0:
        raise InputError(f"--from {', '.join(s.source for s in series)}: the chosen members did no I/O in "
                         f"{len(totals)} intervals; nothing to plan for")
    split = all(t.split for t in totals)
    read_p: float | None
    write_p: float | None
    weights = np.array([t.duration_s or 1.0 for t in totals])
    if split:
        reads = np.array([t.read_iops for t in totals])
        writes = np.array([t.write_iops for t in totals])
        read_total, total = float((reads * weights).sum()), float(((reads + writes) * weights).sum())
        ratio_i = p_i / float(np.percentile(iops, percentile)) if float(np.percentile(iops, percentile)) else 1.0
        read_p = float(np.percentile(reads, percentile)) * ratio_i
        write_p = float(np.percentile(writes, percentile)) * ratio_i
    else:
        read_total = float((np.array([t.read_mbps for t in totals]) * weights).sum())
        total = read_total + float((np.array([t.write_mbps for t in totals]) * weights).sum())
        read_p = write_p = None
    grow = 1 + headroom_pct / 100
    return DerivedTargets(
        sources=[_source(s, c, rows) for s, c, rows in zip(series, chosen, picked, strict=True)],
        samples=len(totals), interval_s=interval, percentile=percentile, percentile_name=percentile_name(percentile),
        peak_factor=factor, peak_factor_source=why, headroom_pct=headroom_pct, iops=p_i, mbps=p_m,
        read_iops=read_p, write_iops=write_p,
        read_pct=100.0 * read_total / total if total > 0 else 100.0, read_pct_from="ios" if split else "bytes",
        target_iops=p_i * grow, target_mbps=p_m * grow,
        peak_iops_window=_window(totals[int(np.argmax(base_i))]),
        peak_mbps_window=_window(totals[int(np.argmax(base_m))]),
        skipped=skipped, notes=_unique(notes), warnings=_unique(warnings), series=_points(totals))


def _median_ratio(peaks: np.ndarray, avgs: np.ndarray) -> float | None:
    ok = avgs > 0
    return float(np.median(peaks[ok] / avgs[ok])) if ok.any() else None


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _source(s: Series, members: list[str], rows: list[Sample]) -> HistorySource:
    starts = [x.start for x in rows if x.start is not None]
    ends = [x.start + x.duration_s for x in rows if x.start is not None]
    keys = {x.key for x in rows}
    return HistorySource(path=s.source, format=s.format, member_kind=s.member_kind,
                         members=members if s.member_kind != "series" else [],
                         interval_s=float(np.median([x.duration_s for x in rows])), samples=len(keys),
                         start=iso(min(starts)) if starts else None, end=iso(max(ends)) if ends else None,
                         database=s.database)


def _window(t: _Total) -> PeakWindow:
    return PeakWindow(label=t.label, start=iso(t.start),
                      end=iso(None if t.start is None else t.start + t.duration_s),
                      iops=t.peak_iops if t.peak_iops is not None else t.iops,
                      mbps=t.peak_mbps if t.peak_mbps is not None else t.mbps)


def _points(totals: list[_Total]) -> list[HistoryPoint]:
    """The summed series for the report; longer than MAX_POINTS, consecutive intervals are binned by their max."""
    t0 = next((t.start for t in totals if t.start is not None), None)
    clock = 0.0
    pts = []
    for t in totals:
        at = t.start - t0 if (t.start is not None and t0 is not None) else clock
        clock = at + t.duration_s
        pts.append(HistoryPoint(t=at, duration_s=t.duration_s, label=t.label, read_iops=t.read_iops if t.split
                                else t.iops, write_iops=t.write_iops if t.split else 0.0, read_mbps=t.read_mbps,
                                write_mbps=t.write_mbps, peak_iops=t.peak_iops, peak_mbps=t.peak_mbps))
    if len(pts) <= MAX_POINTS:
        return pts
    size = math.ceil(len(pts) / MAX_POINTS)
    out = []
    for i in range(0, len(pts), size):
        b = pts[i:i + size]
        busiest = max(b, key=lambda p: p.read_iops + p.write_iops)
        out.append(HistoryPoint(
            t=b[0].t, duration_s=b[-1].t + b[-1].duration_s - b[0].t, label=busiest.label,
            read_iops=max(p.read_iops for p in b), write_iops=max(p.write_iops for p in b),
            read_mbps=max(p.read_mbps for p in b), write_mbps=max(p.write_mbps for p in b),
            peak_iops=None if any(p.peak_iops is None for p in b) else max(p.peak_iops or 0.0 for p in b),
            peak_mbps=None if any(p.peak_mbps is None for p in b) else max(p.peak_mbps or 0.0 for p in b)))
    return out
