"""Turn workload history into plan targets: sum the members per interval, take a percentile, apply the peak factor
and the headroom, and say where every figure came from.

The interface other readers use (the Prometheus fleet reader too): build one `Series` per source
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blockfit.errors import InputError, ValueProblem
from blockfit.history.readers import read_history
from blockfit.history.series import MIN_SNAPSHOT_S, SampleTable, Series, iso
from blockfit.schema.history import DerivedTargets, HistoryPoint, HistorySource, PeakWindow, PercentileName

DEFAULT_PEAK_FACTOR = 1.0
BURST_CASE = ("one published case averaged 57.8 MB/s over a 45-minute AWR snapshot with 318.5 and 413.1 MB/s in "
              "single minutes (https://preview.rmoff.net/2010/09/14/the-danger-of-averages-measuring-i/o-throughput, "
              "2010-09-14)")
FINE_S = 60.0  # sources sampling this often or faster resolve bursts themselves
MAX_POINTS = 2000
NAMES: dict[float, PercentileName] = {100.0: "peak", 99.9: "p99.9", 99.0: "p99", 95.0: "p95", 50.0: "median"}
WORDS = {"peak": 100.0, "max": 100.0, "p100": 100.0, "median": 50.0, "p50": 50.0}


def parse_percentile(text: str | float) -> float:
    """'peak', 'median', 'p99.9', '99.9', '99.9%' or 100 as a number above 0 and at most 100."""
    raw = str(text).strip().lower()
    s = raw.removesuffix("%")
    if s in WORDS:
        return WORDS[s]
    s = s.removeprefix("p")
    try:
        value = float(s) if s.isascii() else math.nan
    except ValueError:
        raise ValueProblem(f"{text}: expected a percentile: peak, median, p99.9, p99, p95 or a number above 0 "
                           "and at most 100") from None
    if isinstance(text, str) and raw == s and 0 < value < 1:   # neither 'p' nor '%': 0.95 meant p95
        raise ValueProblem(f"{text}: a bare fraction is ambiguous; write p{100 * value:g} (or {value:g}% "
                           "if you mean that percentile)")
    if not math.isfinite(value) or not 0 < value <= 100:
        raise ValueProblem(f"{text}: expected a percentile above 0 and at most 100 (100 = the peak)")
    return value


def percentile_name(p: float) -> PercentileName:
    return NAMES.get(round(p, 6), "custom")


def derive_targets(paths: Path | Sequence[Path], devices: list[str] | None = None, percentile: float = 95.0,
                   headroom_pct: float = 0.0, peak_factor: float | None = None,
                   declared: str | None = None) -> DerivedTargets:
    """Read every path (each once, in order) and derive the targets; see targets_from_series."""
    _check_options(percentile, headroom_pct, peak_factor)
    return targets_from_series(read_histories(paths, declared), devices, percentile, headroom_pct, peak_factor)


def read_histories(paths: Path | Sequence[Path], declared: str | None = None) -> list[Series]:
    """Every path read once, in order (a file given twice, by any name, is refused: it would count twice)."""
    path_list = [paths] if isinstance(paths, Path) else list(paths)
    seen: dict[Path, Path] = {}
    for p in path_list:
        try:
            real = p.resolve()
        except (OSError, RuntimeError):
            real = p
        if real in seen:
            raise ValueProblem(f"{p}: given twice (as {seen[real]} too); each history file counts once")
        seen[real] = p
    return [read_history(p, declared) for p in path_list]


def _check_options(percentile: float, headroom_pct: float, peak_factor: float | None) -> None:
    """The figures a library caller passes (the CLI has parsed and bounded each at its option already)."""
    if not math.isfinite(percentile) or not 0 < percentile <= 100:
        raise InputError(f"percentile {percentile:g}: expected a number above 0 and at most 100 (100 = the peak)")
    if not math.isfinite(headroom_pct) or headroom_pct < 0:
        raise InputError(f"headroom {headroom_pct:g}: expected a percentage of at least 0")
    if peak_factor is not None and (not math.isfinite(peak_factor) or not 1 <= peak_factor <= 100):
        raise InputError(f"peak factor {peak_factor:g}: expected a factor from 1 to 100 (the busiest minute "
                         "over the interval's average)")


@dataclass
class _Rows:
    """One source's chosen samples as numpy columns (None as NaN): long histories are summed and ranked by numpy,
    never as one Python object per interval."""

    table: SampleTable
    idx: np.ndarray | None  # the rows kept, as positions in the table; None: every row
    cols: dict[str, np.ndarray]
    distinct_keys: int = 0

    def __len__(self) -> int:
        return len(self.cols["iops"])

    def label(self, i: int) -> str:
        return self.table.label(i if self.idx is None else int(self.idx[i]))

    def positions(self) -> np.ndarray:
        return np.arange(len(self.table)) if self.idx is None else self.idx

    def keys(self) -> Iterator[str | float | int]:
        if self.idx is None:
            return iter(range(len(self.table)) if self.table.positional_keys else self.table.stored_keys)
        key = self.table.key
        return (key(j) for j in self.idx.tolist())


def _table(s: Series) -> SampleTable:
    if isinstance(s.samples, SampleTable):
        return s.samples
    t = SampleTable()
    for x in s.samples:
        t.add(x.key, x.member, x.start, x.duration_s, x.label, x.read_iops, x.write_iops, x.iops, x.read_mbps,
              x.write_mbps, x.peak_iops, x.peak_mbps, x.outstanding)
    return t


def _column(values: Any) -> np.ndarray:
    return np.frombuffer(values, dtype=np.float64) if len(values) else np.zeros(0)


def _pick(s: Series, members: list[str], skipped: list[str]) -> _Rows:
    """The rows of MEMBERS; a snapshot source's intervals shorter than MIN_SNAPSHOT_S are left out (and said)."""
    t = _table(s)
    cols = {name: _column(values) for name, values in t.columns.items()}
    ids = [i for i, m in enumerate(t.member_names) if m in members]
    keep = None
    if len(ids) < len(t.member_names):
        keep = np.isin(np.frombuffer(t.member_index, dtype=np.uint32) if len(t) else np.zeros(0, np.uint32), ids)
    if s.snapshot_source:
        short = cols["duration_s"] < MIN_SNAPSHOT_S
        if keep is not None:
            short &= keep
        if short.any():
            labels = sorted({t.label(j) for j in np.flatnonzero(short).tolist()})
            skipped.append(f"{int(short.sum())} interval(s) of {s.source} shorter than {MIN_SNAPSHOT_S:.0f} s "
                           f"({', '.join(labels[:5])})")
            keep = ~short if keep is None else keep & ~short
    if keep is None:
        return _Rows(t, None, cols)
    idx = np.flatnonzero(keep)
    return _Rows(t, idx, {name: c[idx] for name, c in cols.items()})


@dataclass
class _Totals:
    """The chosen members summed per interval, in time order (numpy columns, None as NaN); `first` is where each
    interval's first sample sits in the sources laid end to end (its label is the interval's)."""

    cols: dict[str, np.ndarray]
    split: np.ndarray
    first: np.ndarray
    picked: list[_Rows]
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.split)

    def label(self, i: int) -> str:
        p = int(self.first[i])
        k = int(np.searchsorted(self.offsets, p, side="right")) - 1
        return self.picked[k].label(p - int(self.offsets[k]))

    def mbps(self) -> np.ndarray:
        return self.cols["read_mbps"] + self.cols["write_mbps"]


def _sum_per_interval(series: list[Series], picked: list[_Rows], skipped: list[str]) -> _Totals:
    """Sum the sources' samples that share a key (an interval), over the keys every source has."""
    keys, codes = _key_codes(picked)
    present = _common_keys(series, picked, codes, len(keys), skipped)
    offsets = np.cumsum([0] + [len(c) for c in codes])
    if len(picked) == 1 and len(np.unique(codes[0])) == len(codes[0]):  # one sample per interval: nothing to sum
        one = picked[0].cols
        cols = {**one, "read_iops": np.nan_to_num(one["read_iops"], nan=0.0),
                "write_iops": np.nan_to_num(one["write_iops"], nan=0.0)}
        split = ~np.isnan(one["read_iops"]) & ~np.isnan(one["write_iops"])
        first = np.arange(len(codes[0]))
        keys = keys[codes[0]] if isinstance(keys, np.ndarray) else keys
    else:
        cols, split, first, common = _sum_groups(picked, np.concatenate(codes), present)
        keys = keys[common] if isinstance(keys, np.ndarray) else [keys[k] for k in common.tolist()]
    order = _time_order(cols["start"], keys)
    if len(order) > 1 and (np.diff(order) == 1).all():  # already in time order: no copies
        return _Totals(cols, split, first, picked, offsets)
    return _Totals({name: c[order] for name, c in cols.items()}, split[order], first[order], picked, offsets)


def _key_codes(picked: list[_Rows]) -> tuple[list[str | float | int] | np.ndarray, list[np.ndarray]]:
    """The keys of all sources, and each source's rows as codes into them (equal keys, equal codes)."""
    if all(rows.table.positional_keys for rows in picked):  # a row's key is its position: no key objects
        codes = [rows.positions() for rows in picked]
        return np.arange(max(int(c.max()) + 1 for c in codes)), codes
    index: dict[str | float | int, int] = {}
    codes = [np.fromiter((index.setdefault(k, len(index)) for k in rows.keys()), dtype=np.int64,
                         count=len(rows)) for rows in picked]
    return list(index), codes


def _common_keys(series: list[Series], picked: list[_Rows], codes: list[np.ndarray], n_keys: int,
                 skipped: list[str]) -> np.ndarray:
    """Which keys every source has; each source's count of distinct keys is set on its rows, and the intervals
    only some sources cover are said in SKIPPED."""
    present = np.ones(n_keys, dtype=bool)
    distinct = []
    for c in codes:
        has = np.zeros(n_keys, dtype=bool)
        has[c] = True
        present &= has
        distinct.append(np.flatnonzero(has))
    for s, rows, d in zip(series, picked, distinct, strict=True):
        rows.distinct_keys = len(d)
        extra = int(len(d) - present[d].sum())
        if extra and len(series) > 1:
            skipped.append(f"{extra} interval(s) of {s.source} that the other sources do not cover")
    return present


def _sum_groups(picked: list[_Rows], codes: np.ndarray, present: np.ndarray
                ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """Per common key: sums (in source and row order, as a running sum would add them), the earliest start, the
    longest duration, whether every sample splits reads and writes, and peaks only where every sample has one."""
    sel = present[codes]
    common = np.flatnonzero(present)
    remap = np.full(len(present), -1, dtype=np.int64)
    remap[common] = np.arange(len(common))
    g = remap[codes[sel]]
    n = len(common)

    def cat(name: str) -> np.ndarray:
        return np.concatenate([r.cols[name] for r in picked])[sel]

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(g, weights=np.nan_to_num(values, nan=0.0), minlength=n)

    def missing(values: np.ndarray) -> np.ndarray:
        return np.bincount(g, weights=np.isnan(values).astype(np.float64), minlength=n) > 0

    cols = {name: total(cat(name)) for name in ("read_iops", "write_iops", "iops", "read_mbps", "write_mbps")}
    start = np.full(n, np.nan)
    np.fmin.at(start, g, cat("start"))
    duration = np.full(n, -np.inf)
    np.maximum.at(duration, g, cat("duration_s"))
    cols["start"], cols["duration_s"] = start, duration
    r, w = cat("read_iops"), cat("write_iops")
    split = ~missing(np.where(np.isnan(w), np.nan, r))
    for name in ("peak_iops", "peak_mbps", "outstanding"):
        values = cat(name)
        cols[name] = np.where(missing(values), np.nan, total(values))
    _, first_sel = np.unique(g, return_index=True)
    return cols, split, np.flatnonzero(sel)[first_sel], common


def _time_order(start: np.ndarray, keys: list[str | float | int] | np.ndarray) -> np.ndarray:
    """Intervals by start time (none last), ties by the key's text; with no start at all, numeric keys in
    order, then the others by their text."""
    if np.isnan(start).all():
        if isinstance(keys, np.ndarray) or all(isinstance(k, (int, float)) for k in keys):
            return np.argsort(np.array(keys, dtype=np.float64), kind="stable")
        return np.array(sorted(range(len(keys)), key=lambda i: (0, keys[i]) if isinstance(keys[i], (int, float))
                               else (1, str(keys[i]))), dtype=np.int64)
    primary = np.where(np.isnan(start), np.inf, start)
    if np.unique(primary).size == len(primary):
        return np.argsort(primary, kind="stable")
    return np.lexsort((np.array([str(k) for k in keys]), primary))


def _targets(series: list[Series], chosen: list[list[str]], picked: list[_Rows], totals: _Totals,
             percentile: float, headroom_pct: float, peak_factor: float | None, notes: list[str],
             warnings: list[str], skipped: list[str]) -> DerivedTargets:
    cols = totals.cols
    interval = max(float(np.median(rows.cols["duration_s"])) for rows in picked)
    factor, why, base_i, base_m = _peak_basis(totals, interval, peak_factor, notes, warnings)
    p_i = float(np.percentile(base_i, percentile)) * factor
    p_m = float(np.percentile(base_m, percentile)) * factor
    if p_i <= 0 and p_m <= 0:
        raise ValueProblem(f"{', '.join(s.source for s in series)}: the chosen members did no I/O in "
                           f"{len(totals)} intervals; nothing to plan for")
    split = bool(totals.split.all())
    read_p, write_p, read_pct = _read_split(cols, split, p_i, percentile)
    grow = 1 + headroom_pct / 100
    outstanding = _outstanding(cols["outstanding"], percentile, series)
    return DerivedTargets(
        sources=[_source(s, c, rows) for s, c, rows in zip(series, chosen, picked, strict=True)],
        samples=len(totals), interval_s=interval, percentile=percentile, percentile_name=percentile_name(percentile),
        peak_factor=factor, peak_factor_source=why, headroom_pct=headroom_pct, iops=p_i, mbps=p_m,
        read_iops=read_p, write_iops=write_p,
        read_pct=read_pct, read_pct_from="ios" if split else "bytes",
        target_iops=p_i * grow, target_mbps=p_m * grow,
        peak_iops_window=_window(totals, int(np.argmax(base_i))),
        peak_mbps_window=_window(totals, int(np.argmax(base_m))),
        skipped=skipped, notes=_unique(notes), warnings=_unique(warnings), series=_points(totals),
        outstanding=outstanding, outstanding_from=_outstanding_from(series) if outstanding is not None else None)


def _peak_basis(totals: _Totals, interval: float, peak_factor: float | None, notes: list[str],
                warnings: list[str]) -> tuple[float, str, np.ndarray, np.ndarray]:
    """The factor on the percentile, why it is that, and the per-interval IOPS and MB/s it applies to: the user's
    --peak-factor, else the source's own finer maxima, else 1 for a sampling fine enough to show bursts, else the
    default factor with a warning (averages over long intervals hide the bursts a plan must carry)."""
    cols = totals.cols
    iops = cols["iops"]
    mbps = totals.mbps()
    fine_peaks = not np.isnan(cols["peak_iops"]).any() and not np.isnan(cols["peak_mbps"]).any()
    if peak_factor is not None:
        if fine_peaks:
            notes.append("the history carries per-interval maxima; --peak-factor makes the targets come from the "
                         "interval averages instead")
        return peak_factor, f"--peak-factor {peak_factor:g}", iops, mbps
    if fine_peaks:
        ratio = _median_ratio(cols["peak_iops"], iops)
        why = ("1: the source's own finer maximum inside each interval is used instead of the average"
               + (f" (here the maxima are {ratio:.2f}x the averages, median over the intervals)" if ratio else ""))
        return 1.0, why, cols["peak_iops"], cols["peak_mbps"]
    if interval <= FINE_S:
        return 1.0, f"1: the history samples every {interval:.3g} s, fine enough to show bursts itself", iops, mbps
    warnings.append(f"the history holds {interval / 60:,.0f}-minute averages: bursts inside an interval do not "
                    f"show ({BURST_CASE}); set --peak-factor from what you know of the workload, or export "
                    "per-snapshot maxima (blockfit sql oracle) and plan from those")
    why = (f"{DEFAULT_PEAK_FACTOR:g} (the default): the history has only {interval / 60:,.0f}-minute averages "
           "and no finer maximum; blockfit does not guess the burst ratio")
    return DEFAULT_PEAK_FACTOR, why, iops, mbps


def _read_split(cols: dict[str, np.ndarray], split: bool, p_i: float,
                percentile: float) -> tuple[float | None, float | None, float]:
    """The read and write IOPS at the percentile, scaled as the total was, where every interval splits its I/Os
    (else None), and the read share in percent: of the I/Os where split, else of the bytes."""
    weights = np.where(cols["duration_s"] != 0, cols["duration_s"], 1.0)
    read_p: float | None
    write_p: float | None
    if split:
        iops, reads, writes = cols["iops"], cols["read_iops"], cols["write_iops"]
        read_total, total = float((reads * weights).sum()), float(((reads + writes) * weights).sum())
        ratio_i = p_i / float(np.percentile(iops, percentile)) if float(np.percentile(iops, percentile)) else 1.0
        read_p = float(np.percentile(reads, percentile)) * ratio_i
        write_p = float(np.percentile(writes, percentile)) * ratio_i
    else:
        read_total = float((cols["read_mbps"] * weights).sum())
        total = read_total + float((cols["write_mbps"] * weights).sum())
        read_p = write_p = None
    return read_p, write_p, 100.0 * read_total / total if total > 0 else 100.0


def _outstanding(values: np.ndarray, percentile: float, series: list[Series]) -> float | None:
    """The percentile of the I/Os the chosen members kept in flight together per interval (the sum of their mean
    queues), or None where some interval's source does not say."""
    if not len(values) or np.isnan(values).any():
        return None
    return round(float(np.percentile(values, percentile)), 2)


def _outstanding_from(series: list[Series]) -> str:
    """What the in-flight figure was read from, in the source's own words."""
    words = {"iostat": "iostat's aqu-sz", "diagnose": "diskstats' time-weighted queue (a diagnose capture)",
             "pg-recording": "diskstats' time-weighted queue (a PostgreSQL recording)",
             "awr": "AWR wait events by Little's law (requests/s x mean I/O wait)",
             "statspack": "Statspack wait events by Little's law (requests/s x mean I/O wait)"}
    return ", ".join(dict.fromkeys(words.get(s.format, s.format) for s in series))


def targets_from_series(series: list[Series], devices: list[str] | None = None, percentile: float = 95.0,
                        headroom_pct: float = 0.0, peak_factor: float | None = None) -> DerivedTargets:
    """Sum the chosen members of every series per interval and derive the targets with their provenance."""
    _check_options(percentile, headroom_pct, peak_factor)
    if not series:
        raise InputError("no history given: expected at least one series")
    notes: list[str] = []
    warnings: list[str] = []
    skipped: list[str] = []
    chosen = choose_members(series, devices)
    picked: list[_Rows] = []
    for s, members in zip(series, chosen, strict=True):
        rows = _pick(s, members, skipped)
        if not len(rows):
            raise ValueProblem(f"{s.source}: no intervals for {', '.join(members) or 'the series'}")
        picked.append(rows)
        skipped += [f"{s.source}: {x}" if len(series) > 1 else x for x in s.skipped]
        notes += s.notes
        warnings += s.warnings
    _check_oracle(series, chosen, notes, warnings)
    totals = _sum_per_interval(series, picked, skipped)
    if not len(totals):
        raise ValueProblem(f"{', '.join(s.source for s in series)}: the sources share no interval (different "
                           "snapshots or times); give histories of the same period")
    derived = _targets(series, chosen, picked, totals, percentile, headroom_pct, peak_factor, notes, warnings,
                       skipped)
    return derived.model_copy(update=host_fields(series))


def host_fields(series: list[Series]) -> dict[str, object]:
    """The largest host the histories ran on (CPUs and memory, each the most of any report: one host that takes
    their I/O is at least as big as each of them), when every history says; else nothing."""
    hosts = [s.host for s in series]
    if not hosts or any(h is None for h in hosts):
        return {}
    known = [h for h in hosts if h is not None]
    return {"host_cpus": max(h.cpus for h in known), "host_memory_gb": max(h.memory_gb for h in known),
            "host_from": "; ".join(h.source for h in known)}


def choose_members(series: list[Series], devices: list[str] | None) -> list[list[str]]:
    """The members of each series to sum: DEVICES (names, /dev/ or not), or every member where that is one device
    or a series of its own. Problems name the devices given: the CLI names the option (before reading the rest)."""
    want = None if not devices else list(dict.fromkeys(d.removeprefix("/dev/") for d in devices))
    chosen = [_choose(s, want) for s in series]
    if want:
        found = {m for c in chosen for m in c}
        missing = [d for d in want if d not in found]
        if missing:
            have = sorted({m for s in series for m in s.members})
            raise ValueProblem(f"{','.join(missing)}: not in {', '.join(s.source for s in series)} "
                               f"(it has {', '.join(have[:12])})")
    return chosen


def _choose(s: Series, want: list[str] | None) -> list[str]:
    names = s.members
    if want:
        if s.member_kind == "series":
            raise ValueProblem(f"{','.join(want)}: {s.source} is a {s.format} history of one series, not of "
                               "devices; name none")
        return [m for m in names if m in want]
    if s.member_kind == "device" and len(names) > 1:
        raise ValueProblem(f"none named: {s.source} has {len(names)} devices ({', '.join(names[:12])}); name the "
                           "ones the database uses (summing a stripe and its members would count I/Os twice)")
    return names


def _check_oracle(series: list[Series], chosen: list[list[str]], notes: list[str], warnings: list[str]) -> None:
    """RAC: reports of one database's instances are summed; a global report stands alone; one instance warns."""
    oracle = [(s, c) for s, c in zip(series, chosen, strict=True) if s.database is not None]
    if not oracle:
        return
    dbs = sorted({s.database or "" for s, _ in oracle})
    if len(dbs) > 1:
        raise ValueProblem(f"{', '.join(s.source for s, _ in oracle)}: histories of different databases "
                           f"({'; '.join(dbs)}); plan one database at a time")
    if len(series) > 1 and any(s.global_report for s in series):
        g = next(s for s in series if s.global_report)
        raise ValueProblem(f"{g.source}: a RAC global report already sums every instance; give it alone")
    instances = _instances_once(oracle)
    _rac_coverage(oracle, dbs[0], instances, notes, warnings)


def _instances_once(oracle: list[tuple[Series, list[str]]]) -> list[str]:
    """The instances the Oracle histories cover, each in one history only (else counted twice), sorted."""
    owners: dict[str, str] = {}
    for s, members in oracle:
        for m in members:
            if m in owners and owners[m] != s.source:
                raise ValueProblem(f"{s.source}: instance {m} is in {owners[m]} too; each instance's history "
                                   "counts once")
            owners[m] = s.source
    return sorted(owners)


def _rac_coverage(oracle: list[tuple[Series, list[str]]], db: str, instances: list[str], notes: list[str],
                  warnings: list[str]) -> None:
    """A note where RAC instances' histories are summed; a warning where they are not all of the database's."""
    total = max((s.instances_total or 0) for s, _ in oracle)
    if len(oracle) > 1 and len(instances) > 1:
        notes.append(f"summed the {len(instances)} RAC instances' histories ({', '.join(instances)}) interval by "
                     "interval: the database's I/O is the sum of its instances'")
    if total > len(instances) and not any(s.global_report for s, _ in oracle):
        missing = total - len(instances)
        warnings.append(f"{db} is a RAC database of {total} instances and the history covers "
                        f"{len(instances)} ({', '.join(instances)}): this plans for "
                        f"{'that instance' if len(instances) == 1 else 'those instances'} only; the database does "
                        f"more I/O ({missing} more instance{'s' if missing > 1 else ''}): give every instance's "
                        "report (--from once each) or a RAC global report (awrgrpt.sql)")




def _median_ratio(peaks: np.ndarray, avgs: np.ndarray) -> float | None:
    ok = avgs > 0
    return float(np.median(peaks[ok] / avgs[ok])) if ok.any() else None


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _source(s: Series, members: list[str], rows: _Rows) -> HistorySource:
    start, duration = rows.cols["start"], rows.cols["duration_s"]
    timed = ~np.isnan(start)
    first = float(start[timed].min()) if timed.any() else None
    last = float((start[timed] + duration[timed]).max()) if timed.any() else None
    return HistorySource(path=s.source, format=s.format, member_kind=s.member_kind,
                         members=members if s.member_kind != "series" else [],
                         interval_s=float(np.median(duration)), samples=rows.distinct_keys,
                         start=iso(first), end=iso(last), database=s.database)


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _window(totals: _Totals, i: int) -> PeakWindow:
    cols = totals.cols
    start = _optional(cols["start"][i])
    peak_i, peak_m = _optional(cols["peak_iops"][i]), _optional(cols["peak_mbps"][i])
    return PeakWindow(label=totals.label(i), start=iso(start),
                      end=iso(None if start is None else start + float(cols["duration_s"][i])),
                      iops=peak_i if peak_i is not None else float(cols["iops"][i]),
                      mbps=peak_m if peak_m is not None else float(totals.mbps()[i]))


def _offsets(start: np.ndarray, duration: np.ndarray) -> np.ndarray:
    """Each interval's time since the first start; an interval without a start follows the one before it."""
    timed = ~np.isnan(start)
    if timed.all():
        return start - start[0]
    if not timed.any():
        return np.concatenate(([0.0], np.cumsum(duration)[:-1]))
    t0 = float(start[timed][0])
    out, clock = [], 0.0
    for s, d in zip(start.tolist(), duration.tolist(), strict=True):
        at = clock if math.isnan(s) else s - t0
        clock = at + d
        out.append(at)
    return np.array(out)


def _points(totals: _Totals) -> list[HistoryPoint]:
    """The summed series for the report; longer than MAX_POINTS, consecutive intervals are binned by their max."""
    cols = totals.cols
    at = _offsets(cols["start"], cols["duration_s"])
    dur = cols["duration_s"]
    reads = np.where(totals.split, cols["read_iops"], cols["iops"])
    writes = np.where(totals.split, cols["write_iops"], 0.0)
    n = len(totals)
    if n <= MAX_POINTS:
        return [HistoryPoint(t=float(at[i]), duration_s=float(dur[i]), label=totals.label(i),
                             read_iops=float(reads[i]), write_iops=float(writes[i]),
                             read_mbps=float(cols["read_mbps"][i]), write_mbps=float(cols["write_mbps"][i]),
                             peak_iops=_optional(cols["peak_iops"][i]), peak_mbps=_optional(cols["peak_mbps"][i]))
                for i in range(n)]
    size = math.ceil(n / MAX_POINTS)
    out = []
    for a in range(0, n, size):
        b = min(a + size, n)
        busiest = a + int(np.argmax(reads[a:b] + writes[a:b]))
        peaks = {name: None if np.isnan(cols[name][a:b]).any() else float(cols[name][a:b].max())
                 for name in ("peak_iops", "peak_mbps")}
        out.append(HistoryPoint(
            t=float(at[a]), duration_s=float(at[b - 1] + dur[b - 1] - at[a]), label=totals.label(busiest),
            read_iops=float(reads[a:b].max()), write_iops=float(writes[a:b].max()),
            read_mbps=float(cols["read_mbps"][a:b].max()), write_mbps=float(cols["write_mbps"][a:b].max()),
            peak_iops=peaks["peak_iops"], peak_mbps=peaks["peak_mbps"]))
    return out
