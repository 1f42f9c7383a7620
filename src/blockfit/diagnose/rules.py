"""Rules that turn per-interval metrics into Findings, each with evidence and a recommended change.

The engine reads only a Capture (samples + topology + settings) and an optional Expectation (caps from the
catalog), so a live run and a replay of its recording give the same Findings. Figures are medians over
the intervals in which a device was active, which keeps fio ramp-up and the partial last interval out.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from blockfit.devices import sysfs
from blockfit.devices.capture import Capture, CaptureHeader
from blockfit.devices.iostat import Interval, series
from blockfit.devices.mountinfo import Mount
from blockfit.devices.multipath import MultipathMap, is_multipath
from blockfit.devices.sysfs import BlockDevice
from blockfit.diagnose import wording
from blockfit.schema.finding import DeviceSummary, Diagnosis, Finding, Metric

MIN_IOPS = 5.0          # an interval counts as active above this
MIN_ACTIVE = 3          # intervals needed before a rule speaks
AT_CAP = 0.90           # median ≥ 90 % of a cap: the cap binds
OVER_CAP = 1.2        # throttles overshoot by a few %; far above a cap, the cap is not what binds
BELOW_CAP = 0.85        # median < 85 % of every cap: the cap does not bind
FLUSH_RATIO = 0.25      # flushes per write
FLUSH_SHARE = 0.10      # flush time / (write + flush time)
FLUSH_MIN_RATE = 5.0    # flushes per second
MIN_DEPTH = 0.4         # queue-depth bound: median in-flight at least this (below, the device mostly idles)
MIN_BUSY = 40.0         # ... and busy at least this % of the time
ONE_PATH_SHARE = 0.90   # one path carrying this share of a multipath device's I/O: the others are idle

CAVEATS = [
    "await and aqu-sz count time from request start in the block layer; a cap enforced above the device "
    "(cgroup throttle) is invisible in them, and one enforced below it (cloud volume) shows as service time.",
    "stime (busy/IOs) and qtime (await − stime) follow pt-diskstats; for devices that serve requests in "
    "parallel (SSD, RAID, cloud volumes) stime understates service time, so qtime overstates queueing.",
    "util is busy time, not saturation, for devices that serve requests in parallel (iostat man page).",
]


@dataclass
class Expectation:
    """Caps the layout is known to have: the catalog's for diagnose --layout/--instance (model.predict), the user's
    for bench --cap. ``source`` says which, in the evidence's words."""

    source: str
    member_iops: float | None = None
    member_mbps: float | None = None
    instance_iops: float | None = None
    instance_mbps: float | None = None
    members: list[str] = field(default_factory=list)
    # diagnose --inventory: each device's own caps (IOPS, MB/s, what it is), which differ from device to device
    device_caps: dict[str, DeviceCaps] = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceCaps:
    """What one device really is (a cloud volume an inventory names) and the caps that come with it."""

    iops: float | None
    mbps: float | None
    what: str            # e.g. "1x50G@balanced volume (inventory)"


@dataclass(frozen=True)
class Cap:
    metric: str          # attribute of Interval: iops, r_iops, w_iops, mbps, r_mbps, w_mbps
    value: float
    source: str


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def _cv(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean else 0.0


def _active(ivs: list[Interval]) -> list[Interval]:
    return [iv for iv in ivs if iv.iops >= MIN_IOPS]


def _steady(act: list[Interval]) -> list[Interval]:
    """Drop ramp-up and tail intervals: keep those within half to one-and-a-half times the median IOPS."""
    mid = _med([iv.iops for iv in act])
    return [iv for iv in act if 0.5 * mid <= iv.iops <= 1.5 * mid]


_f = wording.figure


def _above(name: str, devices: dict[str, BlockDevice]) -> list[str]:
    """The device and every device stacked on it (holders, transitively)."""
    seen, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in seen or n not in devices:
            continue
        seen.append(n)
        todo.extend(devices[n].holders)
        todo.extend(p.name for p in devices.values() if p.kind == "partition" and p.disk == n)
    return seen


def caps_for(name: str, header: CaptureHeader, expectation: Expectation | None) -> list[Cap]:
    caps: list[Cap] = []
    dev = header.devices.get(name)
    if dev is not None:
        units = {"read_iops": ("r_iops", 1.0), "write_iops": ("w_iops", 1.0),
                 "read_bps": ("r_mbps", 1e-6), "write_bps": ("w_mbps", 1e-6)}
        for c in header.caps:
            if c.dev == dev.dev:
                metric, scale = units[c.kind]
                caps.append(Cap(metric, c.value * scale, f"{c.kind.replace('_', ' ')} throttle in cgroup {c.cgroup}"))
    if expectation is not None and name in expectation.members:
        if expectation.member_iops:
            caps.append(Cap("iops", expectation.member_iops, f"member IOPS cap ({expectation.source})"))
        if expectation.member_mbps:
            caps.append(Cap("mbps", expectation.member_mbps, f"member MB/s cap ({expectation.source})"))
    own = expectation.device_caps.get(name) if expectation is not None else None
    if own is not None:
        if own.iops:
            caps.append(Cap("iops", own.iops, f"IOPS cap of {name}, a {own.what}"))
        if own.mbps:
            caps.append(Cap("mbps", own.mbps, f"MB/s cap of {name}, a {own.what}"))
    return caps


def _cap_use(ivs: list[Interval], cap: Cap) -> float:
    return _med([getattr(iv, cap.metric) for iv in ivs]) / cap.value


# --- rules -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlushFigures:
    """Flush and write totals over some intervals, and whether they make a storm by the thresholds above."""

    seconds: float
    flushes: int
    writes: int
    flush_ms: int
    write_ms: int

    @classmethod
    def of(cls, ivs: list[Interval]) -> FlushFigures:
        return cls(sum(iv.dt for iv in ivs), sum(iv.flushes or 0 for iv in ivs), sum(iv.writes for iv in ivs),
                   sum(iv.flush_ms or 0 for iv in ivs), sum(iv.write_ms for iv in ivs))

    @property
    def rate(self) -> float:
        return self.flushes / self.seconds if self.seconds else 0.0

    @property
    def ratio(self) -> float:
        return self.flushes / self.writes if self.writes else 0.0

    @property
    def share(self) -> float:
        total = self.flush_ms + self.write_ms
        return self.flush_ms / total if total else 0.0

    @property
    def costly(self) -> bool:
        """Flushes often enough, taking enough of the write time, to cost the writes beside them."""
        return self.rate >= FLUSH_MIN_RATE and self.share >= FLUSH_SHARE

    @property
    def storm(self) -> bool:
        """Over a whole capture: costly, and the writes' own flushes (not an occasional journal commit)."""
        return self.costly and self.ratio >= FLUSH_RATIO


def storm_windows(act: list[Interval]) -> list[list[Interval]]:
    """Runs of consecutive intervals, at least MIN_ACTIVE long, in each of which flushing is costly: at least
    FLUSH_MIN_RATE flushes a second taking at least FLUSH_SHARE of write+flush time.

    A storm under other load (OLTP writes beside a batch that fsyncs every write, as at Claremont) is diluted
    over a whole capture below every threshold; within its own seconds it is not. Its flushes per write are
    diluted there too, by the other load's writes, so a window is judged by what the flushes cost (rate and
    share of time), and its flushes per write are reported, not required."""
    runs: list[list[Interval]] = []
    run: list[Interval] = []
    for iv in act:
        if not FlushFigures.of([iv]).costly:
            run = []
        elif run and abs((iv.t - iv.dt) - run[-1].t) <= 0.5 * iv.dt:
            run.append(iv)
        else:
            run = [iv]
            runs.append(run)
    return [r for r in runs if len(r) >= MIN_ACTIVE]


def flush_storm(name: str, ivs: list[Interval], header: CaptureHeader) -> Finding | None:
    """A flush storm over the whole capture, or else in its worst window (the run with the most flush time)."""
    act = [iv for iv in ivs if iv.writes > 0 and iv.flushes is not None]
    if len(act) < MIN_ACTIVE:
        return None
    whole = FlushFigures.of(act)
    if whole.storm:
        return _storm_finding(name, whole, header, [])
    windows = storm_windows(act)
    if not windows:
        return None
    worst = max(windows, key=lambda w: FlushFigures.of(w).flush_ms)
    fig = FlushFigures.of(worst)
    first_t, last_t = worst[0].t - worst[0].dt, worst[-1].t
    origin = act[0].t - act[0].dt
    window = [f"the storm lasts {_f(fig.seconds)} s (+{_f(first_t - origin)} s to +{_f(last_t - origin)} s"
              f"{f', the worst of {len(windows)} windows' if len(windows) > 1 else ''}); over the whole "
              f"{_f(whole.seconds)} s other writes dilute it to {whole.ratio:.2f} flushes per write and "
              f"{whole.share:.0%} of write+flush time"]
    finding = _storm_finding(name, fig, header, window)
    finding.measurements.update({"window_start_s": first_t - origin, "window_s": fig.seconds,
                                 "windows": float(len(windows)), "capture_flushes_per_write": whole.ratio,
                                 "capture_flush_time_share": whole.share})
    return finding


def _barrier_mounts(name: str, header: CaptureHeader) -> tuple[dict[str | None, str], list[Mount]]:
    """The devices at and above NAME by major:minor, and the filesystems on them mounted with write barriers on."""
    stack = _above(name, header.devices)
    majmins = {header.devices[n].dev: n for n in stack if header.devices[n].dev}
    return majmins, [m for m in header.mounts if m.dev in majmins and m.barriers]


def _storm_finding(name: str, fig: FlushFigures, header: CaptureHeader, window: list[str]) -> Finding:
    majmins, barrier_mounts = _barrier_mounts(name, header)
    evidence = [
        f"{_f(fig.rate)} flushes/s against {_f(fig.writes / fig.seconds)} writes/s: {fig.ratio:.2f} flushes per "
        "write",
        f"flush time {_f(fig.flush_ms / fig.flushes if fig.flushes else 0)} ms per flush, {fig.share:.0%} of "
        f"write+flush time (writes average {_f(fig.write_ms / fig.writes)} ms)",
        *window,
    ]
    dev = header.devices.get(name)
    if dev is not None and dev.queue is not None and dev.queue.write_cache:
        evidence.append(f"{sysfs.shown(name, 'queue/write_cache')} = '{dev.queue.write_cache}' "
                        "(flushes reach the device)")
    for m in barrier_mounts:
        evidence.append(f"{m.fstype} on {majmins[m.dev]} mounted at {m.mount_point} with write barriers on "
                        f"(options: {','.join(m.all_options)})")
    first = barrier_mounts[0] if barrier_mounts else None
    rec = wording.flush_storm_advice(first.mount_point if first else None, first.fstype if first else None)
    return Finding(kind="flush_storm", device=name, severity="critical" if fig.share >= 0.3 else "warning",
                   summary=wording.flush_storm(fig.ratio, fig.share),
                   evidence=evidence, recommendation=rec,
                   measurements={"flushes_per_s": fig.rate, "writes_per_s": fig.writes / fig.seconds,
                                 "flushes_per_write": fig.ratio,
                                 "flush_ms_avg": fig.flush_ms / fig.flushes if fig.flushes else 0.0,
                                 "flush_time_share": fig.share, "barrier_mounts": float(len(barrier_mounts))})


def member_cap(name: str, ivs: list[Interval], caps: list[Cap], header: CaptureHeader) -> Finding | None:
    act = _active(ivs)
    if len(act) < MIN_ACTIVE:
        return None
    # A rate well above a cap means that cap does not govern all of this device's I/O (a cgroup throttle
    # covers only the processes in its cgroup), so it cannot be what holds the rate.
    governing = [(u, c) for c in caps for u in [_cap_use(act, c)] if u <= OVER_CAP]
    if governing:
        use, cap = max(governing, key=lambda p: p[0])
        if use < AT_CAP:
            return None
        value = _med([getattr(iv, cap.metric) for iv in act])
        metric: Metric = "mbps" if cap.metric.endswith("mbps") else "iops"
        unit = "MB/s" if metric == "mbps" else "IOPS"
        evidence = [f"{cap.metric} median {_f(value)} {unit} = {use:.0%} of the {_f(cap.value)} {unit} cap "
                    f"({cap.source})",
                    f"variation across {len(act)} active intervals {_cv([getattr(iv, cap.metric) for iv in act]):.1%}",
                    f"await {_f(_med([iv.await_ms for iv in act]))} ms, "
                    f"in flight {_f(_med([iv.aqu_sz for iv in act]))}"]
        parent = _holder_stripe(name, header)
        if parent:
            evidence.append(f"member of {parent}: on a stripe every member gets an equal share of random I/O, "
                            "so the stripe is held to members × this cap")
        return Finding(kind="member_cap", device=name, severity="warning", metric=metric,
                       summary=wording.member_cap(unit, cap.value, use), evidence=evidence,
                       recommendation=wording.MEMBER_CAP,
                       measurements={"value": value, "cap": cap.value, "cap_use": use})
    return _plateau(name, act)


def _plateau(name: str, act: list[Interval]) -> Finding | None:
    """No cap known: more in flight brought more latency but no more IOPS — something below caps the device.

    Intervals are split at the median in-flight into a low-queue and a high-queue half; by Little's law an
    uncapped device would give IOPS in proportion to in-flight at flat latency. Medians of each half keep
    one transition interval (a job starting) from hiding the plateau; the low half's IOPS are its upper
    quartile, because the intervals in which the load changes (a job starting or switching, only partly
    running) fall in that half with fewer I/Os: two of five in a 10 s capture on a busy machine (1,800 and
    1,804 against a 3,000 cap; the rest 2,700-3,300 as the throttle's slices fall) pulled its median to
    2,700, and 3,000 at 16 in flight looked like 11 % more. A device that is not capped still gives about
    in-flight-times more at the higher depth, far above the low half's best.
    """
    if len(act) < 5:
        return None
    ordered = sorted(act, key=lambda iv: iv.aqu_sz)
    half = len(ordered) // 2
    low, high = ordered[:half], ordered[-half:]
    aqu_lo, aqu_hi = _med([iv.aqu_sz for iv in low]), _med([iv.aqu_sz for iv in high])
    iops_lo, iops_hi = statistics.quantiles([iv.iops for iv in low], n=4)[2], _med([iv.iops for iv in high])
    lat_lo, lat_hi = _med([iv.await_ms for iv in low]), _med([iv.await_ms for iv in high])
    if aqu_lo < 1.0 or aqu_hi < 1.5 * aqu_lo or iops_lo <= 0 or lat_lo <= 0:
        return None
    if iops_hi > 1.1 * iops_lo or lat_hi < 1.3 * lat_lo:
        return None
    return Finding(kind="member_cap", device=name, severity="warning", metric="iops",
                   summary=wording.plateau(iops_hi, aqu_lo, aqu_hi),
                   evidence=[f"low-queue intervals: {aqu_lo:.2f} in flight, {_f(iops_lo)} IOPS, await {_f(lat_lo)} ms",
                             f"high-queue intervals: {aqu_hi:.2f} in flight, {_f(iops_hi)} IOPS, await {_f(lat_hi)} ms",
                             "by Little's law an uncapped device would have given about "
                             f"{_f(iops_lo * aqu_hi / aqu_lo)} IOPS at the higher depth",
                             "no cap known for this device (pass --layout/--cloud/--instance to compare with the "
                             "catalog)"],
                   recommendation=wording.PLATEAU,
                   measurements={"value": iops_hi, "aqu_low": aqu_lo, "aqu_high": aqu_hi, "await_low_ms": lat_lo,
                                 "await_high_ms": lat_hi})


def _holder_stripe(name: str, header: CaptureHeader) -> str | None:
    dev = header.devices.get(name)
    if dev is None:
        return None
    for h in dev.holders:
        hd = header.devices.get(h)
        if hd is not None and len(hd.slaves) >= 2 and not is_multipath(hd, header.multipath):
            return h
    return None


def _host_limits(names: list[str], header: CaptureHeader) -> list[tuple[str, int]]:
    """Each queue-depth limit the host sets on these devices, named as the user would look it up."""
    limits = []
    for n in names:
        d = header.devices.get(n)
        if d is None or d.queue is None:
            continue
        if d.queue.device_queue_depth:
            what = sysfs.shown(n, "device/queue_depth")
            if d.queue.iscsi_session:
                what += f" (iSCSI {d.queue.iscsi_session} {d.queue.iscsi_target or ''}: node.session.queue_depth)"
            limits.append((what, d.queue.device_queue_depth))
        if d.queue.host_can_queue:
            limits.append((f"SCSI host can_queue of {n}", d.queue.host_can_queue))
        if d.queue.nr_requests:
            limits.append((sysfs.shown(n, "queue/nr_requests"), d.queue.nr_requests))
    return limits


def _cap_evidence(act: list[Interval], caps: list[Cap], lat: float, evidence: list[str]) -> float | None:
    """Add each cap's use to EVIDENCE; return the in-flight count an IOPS cap needs at this latency."""
    need = None
    for c in caps:
        use = _cap_use(act, c)
        if c.metric.endswith("iops"):
            need = c.value * lat / 1000
        evidence.append(f"{c.metric} uses {use:.0%} of its {_f(c.value)} cap ({c.source})")
    if need is not None:
        evidence.append(f"to reach the IOPS cap at this latency needs about {need:.1f} I/Os in flight (cap × await)")
    if not caps:
        evidence.append("no cap known for this device: if its volume cap is ≈ this IOPS, this is the cap, not "
                        "queue depth (pass --layout/--cloud/--instance)")
    return need


def _pinned_depth(act: list[Interval]) -> tuple[float, float, float, float, float] | None:
    """(in flight, its variation, util %, await ms, IOPS) medians of a busy device whose in-flight count held still;
    None when it was shallow, varied, idle or had no latency."""
    aqu = [iv.aqu_sz for iv in act]
    depth, spread = _med(aqu), _cv(aqu)
    util = _med([iv.util_pct for iv in act])
    lat = _med([iv.await_ms for iv in act])
    iops = _med([iv.iops for iv in act])
    if depth < MIN_DEPTH or spread > 0.3 or util < MIN_BUSY or lat <= 0:
        return None
    return depth, spread, util, lat, iops


def _depth_evidence(figures: tuple[float, float, float, float, float], pinned: list[tuple[str, int]]) -> list[str]:
    """The pinned in-flight count, Little's law on it, and the host limits it equals."""
    depth, spread, util, lat, iops = figures
    little = iops * lat / 1000
    evidence = [
        f"in flight (aqu-sz) {depth:.2f} median, variation {spread:.0%}: pinned",
        f"await {_f(lat)} ms with the device {util:.0f}% busy; IOPS {_f(iops)} ≈ in-flight / await = "
        f"{_f(depth / lat * 1000)} (Little's law; IOPS × await = {little:.2f})",
    ]
    for what, lim in pinned:
        evidence.append(f"in-flight equals the host limit {what} = {lim}")
    return evidence


def queue_depth_bound(name: str, ivs: list[Interval], caps: list[Cap], header: CaptureHeader,
                      capped_members: set[str]) -> Finding | None:
    act = _steady(_active(ivs))
    dev = header.devices.get(name)
    if len(act) < MIN_ACTIVE or dev is None:
        return None
    if set(dev.slaves) & capped_members:
        return None
    figures = _pinned_depth(act)
    if figures is None or any(_cap_use(act, c) >= BELOW_CAP for c in caps):
        return None
    depth, spread, util, lat, iops = figures
    limits = _host_limits([name] + dev.slaves, header)
    pinned = [(what, lim) for what, lim in limits if abs(depth - lim) <= 0.1 * lim + 0.5]
    evidence = _depth_evidence(figures, pinned)
    need = _cap_evidence(act, caps, lat, evidence)
    target = f"about {max(need or 0, depth * 2):.0f}"
    rec = wording.queue_depth_advice(depth, target, pinned[0] if pinned else None)
    return Finding(kind="queue_depth_bound", device=name, severity="warning" if pinned or caps else "info",
                   summary=wording.queue_depth_bound(depth, lat),
                   evidence=evidence, recommendation=rec,
                   measurements={"in_flight": depth, "in_flight_cv": spread, "await_ms": lat, "iops": iops,
                                 "util_pct": util, "needed_in_flight": need or 0.0})


@dataclass(frozen=True)
class _MemberFigures:
    """A stripe's members' median IOPS, await (ms) and util (%) over their active intervals; n members."""

    iops: dict[str, float]
    lat: dict[str, float]
    util: dict[str, float]
    n: int

    @classmethod
    def of(cls, per: dict[str, list[Interval]], n: int) -> _MemberFigures:
        return cls(iops={m: _med([iv.iops for iv in v]) for m, v in per.items()},
                   lat={m: _med([iv.await_ms for iv in v]) for m, v in per.items()},
                   util={m: _med([iv.util_pct for iv in v]) for m, v in per.items()}, n=n)


def stripe_imbalance(name: str, data: dict[str, list[Interval]], header: CaptureHeader) -> list[Finding]:
    dev = header.devices.get(name)
    if dev is None or len(dev.slaves) < 2 or is_multipath(dev, header.multipath):
        return []  # a multipath map's slaves are paths to one volume, not stripe members
    per = {m: _active(data.get(m, [])) for m in dev.slaves}
    if sum(1 for v in per.values() if len(v) >= MIN_ACTIVE) < 2:
        return []
    members = _MemberFigures.of(per, len(dev.slaves))
    found = (_hot_member(name, members), _slow_member(name, data, members))
    return [f for f in found if f is not None]


def _hot_member(name: str, m: _MemberFigures) -> Finding | None:
    """The member carrying at least 1.5x its fair share of the stripe's IOPS."""
    total = sum(m.iops.values())
    hot = max(m.iops, key=lambda k: m.iops[k])
    share = m.iops[hot] / total if total else 0.0
    if not (total and share >= 1.5 / m.n):
        return None
    return Finding(
        kind="stripe_imbalance", device=hot, severity="warning", metric="iops",
        summary=wording.stripe_hot_member(hot, name, share, 1 / m.n),
        evidence=["member IOPS: " + ", ".join(f"{k} {_f(v)}" for k, v in sorted(m.iops.items()))],
        recommendation=wording.STRIPE_HOT_MEMBER,
        measurements={"share": share, "fair_share": 1 / m.n})


def _slow_member(name: str, data: dict[str, list[Interval]], m: _MemberFigures) -> Finding | None:
    """The member with the longest await, when it is much slower or much busier than the rest without carrying
    more than its share (a hot member is busier because it carries more)."""
    total = sum(m.iops.values())
    slow = max(m.lat, key=lambda k: m.lat[k])
    ref = _med([m.lat[k] for k in m.lat if k != slow])
    slow_share = m.iops[slow] / total if total else 0.0
    slower = m.lat[slow] >= 2 * ref and m.lat[slow] - ref >= 0.5
    busier = m.util[slow] >= 90 and _med([m.util[k] for k in m.util if k != slow]) <= 60
    if not (slow_share < 1.2 / m.n and (slower or busier)):
        return None
    return Finding(
        kind="stripe_slow_member", device=slow, severity="warning",
        summary=wording.stripe_slow_member(slow, name, m.lat[slow], ref),
        evidence=["member await: " + ", ".join(f"{k} {_f(v)} ms" for k, v in sorted(m.lat.items())),
                  "member util: " + ", ".join(f"{k} {v:.0f}%" for k, v in sorted(m.util.items())),
                  "member IOPS: " + ", ".join(f"{k} {_f(v)}" for k, v in sorted(m.iops.items())),
                  f"{name} does {_f(_med([iv.iops for iv in _active(data.get(name, []))]))} IOPS ≈ {m.n} × "
                  f"{slow}'s {_f(m.iops[slow])}: random I/O spreads evenly, so the slowest member sets the pace"],
        recommendation=wording.STRIPE_SLOW_MEMBER,
        measurements={"await_ms": m.lat[slow], "others_await_ms": ref, "iops": m.iops[slow],
                      "util_pct": m.util[slow]})


def _map_of(name: str, header: CaptureHeader) -> MultipathMap | None:
    return next((m for m in header.multipath if m.device == name), None)


def _path_iops(paths: list[str], data: dict[str, list[Interval]], top: list[Interval]) -> dict[str, float]:
    """Each path's median IOPS over the intervals in which the multipath device itself was active."""
    times = {iv.t for iv in top}
    return {p: _med([iv.iops for iv in data.get(p, []) if iv.t in times]) for p in paths}


def _map_layout(mp: MultipathMap) -> str:
    """The map's path groups as dmsetup recorded them: selector, state, paths (failed ones marked)."""
    states = {"A": "active", "E": "standby", "D": "disabled"}
    layout = "; ".join(f"group {i + 1} ({g.selector}, {states.get(g.state, g.state)}): "
                       + ", ".join(f"{p.name or p.dev}{'' if p.active else ' FAILED'}" for p in g.paths)
                       for i, g in enumerate(mp.groups))
    return f"dmsetup: {len(mp.groups)} path group(s): {layout}"


def _one_path_cause(mp: MultipathMap) -> str:
    """Why the I/O takes one path, from the map: failed paths, one path per group, or one active path."""
    failed = [p for g in mp.groups for p in g.paths if not p.active]
    if failed:
        return "failed_paths"
    if len(mp.groups) > 1:
        return "failover_grouping"
    if len(mp.active_paths) < 2:
        return "one_active_path"
    return "unknown"


def multipath_one_path(name: str, data: dict[str, list[Interval]], header: CaptureHeader) -> Finding | None:
    """A multipath device with several paths whose I/O all goes over one of them.

    dm-multipath sends I/O only to the active path group; with the default failover grouping (one path
    per group) that is one path, and a volume whose rate scales with paths (OCI UHP over iSCSI) then gets
    one path's worth. The per-path rates from diskstats show it whatever the cause; the map's groups and
    path states (dmsetup, when recorded) say which cause it is.
    """
    dev = header.devices.get(name)
    if dev is None or len(dev.slaves) < 2 or not is_multipath(dev, header.multipath):
        return None
    top = _active(data.get(name, []))
    if len(top) < MIN_ACTIVE:
        return None
    iops = _path_iops(dev.slaves, data, top)
    total = sum(iops.values())
    hot = max(iops, key=lambda p: iops[p])
    share = iops[hot] / total if total else 0.0
    if not total or share < ONE_PATH_SHARE:
        return None
    n = len(dev.slaves)
    evidence = [f"path IOPS while {name} was busy: " + ", ".join(f"{p} {_f(v)}" for p, v in sorted(iops.items())),
                f"{hot} carries {share:.0%} of the I/O; {n} paths would each carry {1 / n:.0%} if spread"]
    mp = _map_of(name, header)
    cause = "unknown"
    measurements = {"paths": float(n), "busiest_path_share": share, "fair_share": 1 / n}
    if mp is not None:
        evidence.append(_map_layout(mp))
        cause = _one_path_cause(mp)
        measurements |= {"active_paths": float(len(mp.active_paths)), "path_groups": float(len(mp.groups))}
    rec = wording.multipath_advice(cause)
    return Finding(kind="multipath_one_path", device=name, severity="warning", metric="iops",
                   summary=wording.multipath_one_path(name, n, hot, share),
                   evidence=evidence, recommendation=rec, measurements=measurements)


def instance_cap(data: dict[str, list[Interval]], expectation: Expectation | None) -> Finding | None:
    if expectation is None or not expectation.members:
        return None
    names = [m for m in expectation.members if m in data]
    if not names:
        return None
    sums_iops, sums_mbps = _summed(data, names)
    act = [i for i in range(len(sums_iops)) if sums_iops[i] >= MIN_IOPS]
    if len(act) < MIN_ACTIVE:
        return None
    for metric, label, values, cap in (("iops", "IOPS", sums_iops, expectation.instance_iops),
                                       ("mbps", "MB/s", sums_mbps, expectation.instance_mbps)):
        if not cap:
            continue
        value = _med([values[i] for i in act])
        if value / cap >= AT_CAP:
            return Finding(kind="instance_cap", device="instance", severity="warning", metric=cast(Metric, metric),
                           summary=wording.instance_cap(len(names), cap, label),
                           evidence=[f"sum of {', '.join(names)}: {_f(value)} {label} = {value / cap:.0%} of the "
                                     f"instance limit {_f(cap)} ({expectation.source})"],
                           recommendation=wording.INSTANCE_CAP,
                           measurements={"value": value, "cap": cap})
    return None


def _summed(data: dict[str, list[Interval]], names: list[str]) -> tuple[list[float], list[float]]:
    """The members' IOPS and MB/s summed per interval, over the intervals every member has."""
    length = min(len(data[m]) for m in names)
    return ([sum(data[m][i].iops for m in names) for i in range(length)],
            [sum(data[m][i].mbps for m in names) for i in range(length)])


def small_io_on_throughput_bound(name: str, ivs: list[Interval], caps: list[Cap]) -> Finding | None:
    act = _active(ivs)
    iops_caps = [c for c in caps if c.metric.endswith("iops")]
    mbps_caps = [c for c in caps if c.metric.endswith("mbps")]
    if len(act) < MIN_ACTIVE or not iops_caps or not mbps_caps:
        return None
    at_iops = max(_cap_use(act, c) for c in iops_caps)
    mb_use = max(_cap_use(act, c) for c in mbps_caps)
    rq = _med([iv.avg_rq_kb for iv in act])
    if at_iops < AT_CAP or mb_use > 0.3 or rq > 32:
        return None
    return Finding(kind="small_io_on_throughput_bound", device=name, severity="info", metric="iops",
                   summary=wording.small_io_on_throughput_bound(rq, mb_use),
                   evidence=[f"average request {rq:.1f} KiB", f"IOPS at {at_iops:.0%} of cap, MB/s at {mb_use:.0%}"],
                   recommendation=wording.SMALL_IO,
                   measurements={"avg_request_kb": rq, "iops_cap_use": at_iops, "mbps_cap_use": mb_use})


def misaligned_geometry(header: CaptureHeader) -> list[Finding]:
    return _misaligned_partitions(header) + _misaligned_xfs(header)


def _misaligned_partitions(header: CaptureHeader) -> list[Finding]:
    """Partitions that start off their disk's optimal I/O size."""
    findings = []
    for dev in header.devices.values():
        if dev.kind != "partition" or dev.start_sector is None or dev.disk is None:
            continue
        disk = header.devices.get(dev.disk)
        align = disk.queue.optimal_io_size if disk and disk.queue and disk.queue.optimal_io_size else None
        if align and (dev.start_sector * 512) % align:
            findings.append(Finding(
                kind="misaligned_geometry", device=dev.name, severity="warning",
                summary=wording.misaligned_partition(dev.start_sector * 512, align),
                evidence=[f"{dev.name} start sector {dev.start_sector}; {dev.disk} optimal_io_size {align}"],
                recommendation=wording.PARTITION_ALIGN,
                measurements={"start_bytes": float(dev.start_sector * 512), "align": float(align)}))
    return findings


def _misaligned_xfs(header: CaptureHeader) -> list[Finding]:
    """XFS mounts on a stripe whose sunit/swidth are not the stripe's."""
    findings = []
    stripe_of = {g.device: g for g in header.geometry}
    for m in header.mounts:
        devname = next((d.name for d in header.devices.values() if d.dev == m.dev), None)
        g = stripe_of.get(devname or "")
        if g is None or not g.stripe_bytes or m.fstype != "xfs":
            continue
        sunit, swidth = m.option("sunit"), m.option("swidth")
        want_su, want_sw = g.stripe_bytes // 512, g.stripe_bytes // 512 * g.stripes
        if _xfs_units_differ(sunit, swidth, want_su, want_sw):
            findings.append(Finding(
                kind="misaligned_geometry", device=devname or m.dev, severity="info",
                summary=wording.misaligned_xfs(m.mount_point, g.stripes),
                evidence=[f"mount sunit={sunit} swidth={swidth}; stripe {g.stripe_bytes} B × {g.stripes} "
                          f"→ sunit={want_su} swidth={want_sw} (512-byte units)"],
                recommendation=wording.xfs_geometry_advice(g.stripe_bytes, g.stripes),
                measurements={"want_sunit": float(want_su), "want_swidth": float(want_sw)}))
    return findings


def _xfs_units_differ(sunit: str | None, swidth: str | None, want_su: int, want_sw: int) -> bool:
    """A missing or other sunit, or a numeric swidth other than the stripe's (no swidth option is not a miss)."""
    return sunit is None or not sunit.isdigit() or int(sunit) != want_su or (swidth or "").isdigit() and int(
        swidth or 0) != want_sw


def scheduler_readahead(name: str, ivs: list[Interval], header: CaptureHeader) -> Finding | None:
    dev = header.devices.get(name)
    act = _active(ivs)
    if dev is None or dev.queue is None or len(act) < MIN_ACTIVE:
        return None
    q = dev.queue
    iops = _med([iv.iops for iv in act])
    if q.rotational is False and q.scheduler == "bfq" and iops >= 5000:
        return Finding(kind="scheduler_readahead", device=name, severity="info",
                       summary=wording.scheduler_bfq(iops),
                       evidence=[f"{sysfs.shown(name, 'queue/scheduler')} = bfq, rotational = 0, {_f(iops)} IOPS"],
                       recommendation=wording.bfq_advice(name),
                       measurements={"iops": iops})
    return None


# --- engine ------------------------------------------------------------------------------------------------


def _role(dev: BlockDevice | None, selected: set[str], header: CaptureHeader) -> tuple[str, str | None]:
    if dev is None:
        return "device", None
    if dev.kind == "partition":
        return "partition", dev.disk
    up = [h for h in dev.holders if h in selected]
    if up:
        holder = header.devices.get(up[0])
        return ("path" if is_multipath(holder, header.multipath) else "member"), up[0]
    return ("top" if dev.slaves else "device"), None


def summarise(name: str, ivs: list[Interval], header: CaptureHeader) -> DeviceSummary | None:
    act = _active(ivs)
    if not act:
        return None
    role, parent = _role(header.devices.get(name), set(header.selected), header)
    med: Callable[[str], float] = lambda attr: _med([getattr(iv, attr) for iv in act])  # noqa: E731
    has_flush = all(iv.flushes_per_s is not None for iv in act)
    return DeviceSummary(device=name, role=role, parent=parent, active_intervals=len(act), iops=med("iops"),
                         read_iops=med("r_iops"), write_iops=med("w_iops"), mbps=med("mbps"),
                         avg_request_kb=med("avg_rq_kb"), r_await_ms=med("r_await_ms"), w_await_ms=med("w_await_ms"),
                         aqu_sz=med("aqu_sz"), util_pct=med("util_pct"),
                         flushes_per_s=med("flushes_per_s") if has_flush else None,
                         flush_await_ms=med("flush_await_ms") if has_flush else None,
                         discards_per_s=med("discards_per_s") if all(iv.discards_per_s is not None for iv in act)
                         else None,
                         service_ms=med("service_ms"), queue_ms=med("queue_ms"))


def _speaks_for_itself(name: str, data: dict[str, list[Interval]], header: CaptureHeader) -> bool:
    """False for a partition whose whole disk was sampled too: the whole disk speaks for its partitions."""
    dev = header.devices.get(name)
    return not (dev is not None and dev.kind == "partition" and dev.disk in data)


def _caps_and_storms(names: list[str], data: dict[str, list[Interval]], header: CaptureHeader,
                     expectation: Expectation | None, findings: list[Finding]) -> tuple[set[str], set[str]]:
    """First pass: devices at a cap, and devices in a flush storm (which explains serialised I/O)."""
    capped: set[str] = set()
    stormy: set[str] = set()
    for name in filter(lambda n: _speaks_for_itself(n, data, header), names):
        f = member_cap(name, data[name], caps_for(name, header, expectation), header)
        if f is not None:
            findings.append(f)
            capped.add(name)
        storm = flush_storm(name, data[name], header)
        if storm is not None:
            findings.append(storm)
            stormy.add(name)
    return capped, stormy


def _held_by_member_or_path(names: list[str], data: dict[str, list[Interval]], header: CaptureHeader,
                            findings: list[Finding]) -> set[str]:
    """A stripe with a slow member (and its members), or a multipath map on one path: that member or path,
    not queue depth, holds them."""
    held: set[str] = set()
    for name in names:
        for f in stripe_imbalance(name, data, header):
            findings.append(f)
            if f.kind == "stripe_slow_member":
                held.update({name, *header.devices[name].slaves})
        one_path = multipath_one_path(name, data, header)
        if one_path is not None:
            findings.append(one_path)
            held.add(name)
    return held


def diagnose(capture: Capture, expectation: Expectation | None = None, source: str = "live") -> Diagnosis:
    header = capture.header
    data = series(capture)
    names = sorted(data)
    findings: list[Finding] = []
    capped, stormy = _caps_and_storms(names, data, header, expectation, findings)
    held = _held_by_member_or_path(names, data, header, findings)
    for name in filter(lambda n: _speaks_for_itself(n, data, header), names):
        caps = caps_for(name, header, expectation)
        rules = [small_io_on_throughput_bound(name, data[name], caps), scheduler_readahead(name, data[name], header)]
        if name not in capped | stormy | held:
            rules.insert(0, queue_depth_bound(name, data[name], caps, header, capped | held))
        findings.extend(f for f in rules if f is not None)
    inst = instance_cap(data, expectation)
    if inst is not None:
        findings.append(inst)
    findings.extend(misaligned_geometry(header))
    order = {"critical": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: (order[f.severity], f.kind, f.device))
    summaries = [s for s in (summarise(n, data[n], header) for n in names) if s is not None]
    duration = capture.samples[-1].t - capture.samples[0].t
    return Diagnosis(source=source, interval_s=header.interval_s, duration_s=duration, samples=len(capture.samples),
                     devices=summaries, findings=findings, caveats=list(CAVEATS))
