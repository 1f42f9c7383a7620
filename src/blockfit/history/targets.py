"""Turn a workload history into plan targets: sum the chosen devices per sample, take a percentile, add headroom.

Why a percentile and not the peak: one sample of a backup or a log switch should not size a month's bill;
why not the mean: the plan must carry the busy hours. The default p95 over the samples is the usual
capacity-planning compromise; the output says how many samples it rests on.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

import numpy as np

from blockfit.errors import InputError
from blockfit.history.readers import DeviceSample, History, read_history
from blockfit.schema.history import DerivedTargets


def derive_targets(path: Path, devices: list[str] | None, percentile: float = 95.0,
                   headroom_pct: float = 0.0) -> DerivedTargets:
    """Read PATH and derive targets; a file with several devices needs DEVICES (sums would count stacks twice)."""
    if not (0 < percentile <= 100) or not math.isfinite(percentile):
        raise InputError(f"--percentile {percentile:g}: expected a number above 0 and at most 100")
    if headroom_pct < 0 or not math.isfinite(headroom_pct):
        raise InputError(f"--headroom {headroom_pct:g}: expected a percentage of at least 0")
    history = read_history(path)
    chosen = _choose(path, history, devices)
    per_sample: dict[int, list[DeviceSample]] = {}
    for s in history.samples:
        if s.device in chosen:
            per_sample.setdefault(s.index, []).append(s)
    missing = [d for d in chosen if d and not any(s.device == d for s in history.samples)]
    if missing:
        raise InputError(f"--devices {','.join(missing)}: not in {path} (it has {', '.join(history.devices)})")
    rows = [per_sample[i] for i in sorted(per_sample)]
    if not rows:
        raise InputError(f"--from {path}: no samples for {', '.join(chosen) or 'the series'}")
    iops = np.array([sum(s.iops for s in r) for r in rows])
    mbps = np.array([sum(s.read_mbps + s.write_mbps for s in r) for r in rows])
    split = all(s.read_iops is not None and s.write_iops is not None for r in rows for s in r)
    reads = np.array([sum(s.read_iops or 0.0 for s in r) for r in rows])
    writes = np.array([sum(s.write_iops or 0.0 for s in r) for r in rows])
    read_from: Literal["ios", "bytes"] = "ios" if split else "bytes"
    if split:
        read_total, total = float(reads.sum()), float(reads.sum() + writes.sum())
    else:
        read_total = sum(s.read_mbps for r in rows for s in r)
        total = read_total + sum(s.write_mbps for r in rows for s in r)
    p = float(np.percentile(iops, percentile))
    m = float(np.percentile(mbps, percentile))
    if p <= 0 and m <= 0:
        raise InputError(f"--from {path}: the chosen devices did no I/O in {len(rows)} samples; nothing to plan for")
    grow = 1 + headroom_pct / 100
    return DerivedTargets(
        source=str(path), format=history.format, devices=sorted(d for d in chosen if d), samples=len(rows),
        skipped=history.skipped, percentile=percentile, headroom_pct=headroom_pct, iops=p, mbps=m,
        read_iops=float(np.percentile(reads, percentile)) if split else None,
        write_iops=float(np.percentile(writes, percentile)) if split else None,
        read_pct=100.0 * read_total / total if total > 0 else 100.0, read_pct_from=read_from,
        target_iops=p * grow, target_mbps=m * grow)


def _choose(path: Path, history: History, devices: list[str] | None) -> list[str]:
    names = history.devices
    if devices:
        if history.format == "csv":
            raise InputError(f"--devices: {path} is a CSV (one series); leave --devices off")
        return [d.removeprefix("/dev/") for d in devices]
    if len(names) > 1:
        raise InputError(f"--from {path}: {len(names)} devices ({', '.join(names[:12])}); name the ones the database "
                         "uses with --devices (summing a stripe and its members would count I/Os twice)")
    return names
