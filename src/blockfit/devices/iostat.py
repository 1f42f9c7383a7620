"""Per device and interval: the iostat -x figures, flush rates, and pt-diskstats' queue/service split.

await = (Δread_ms + Δwrite_ms) / Δios: request start to completion, including block-layer queueing.
aqu-sz = Δweighted_ms / interval (time-weighted in-flight requests; iostat's definition).
util = Δio_ms / interval (busy time; for parallel devices "busy" is not "saturated" — iostat man page).
stime = Δio_ms / Δios and qtime = await − stime (pt-diskstats): stime is only meaningful for a device that
serves one request at a time; for SSDs, RAID and cloud volumes it understates service time, so qtime
overstates queueing. Flush fields exist from kernel 5.5 (20-field diskstats).
"""

from __future__ import annotations

from dataclasses import dataclass

from blockfit.devices.capture import Capture
from blockfit.devices.diskstats import SECTOR_BYTES, DiskStat


@dataclass(frozen=True)
class Interval:
    device: str
    t: float
    dt: float
    reads: int
    writes: int
    r_iops: float
    w_iops: float
    iops: float
    r_mbps: float
    w_mbps: float
    mbps: float
    avg_rq_kb: float
    r_await_ms: float
    w_await_ms: float
    await_ms: float
    aqu_sz: float
    util_pct: float
    in_flight: int
    flushes: int | None
    flushes_per_s: float | None
    flush_await_ms: float | None
    flush_ms: int | None
    write_ms: int
    discards_per_s: float | None
    service_ms: float
    queue_ms: float


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def _rate(a: int | None, b: int | None, dt: float) -> float | None:
    return None if a is None or b is None or b < a else (b - a) / dt


def interval(prev: DiskStat, cur: DiskStat, dt: float, t: float) -> Interval | None:
    """Deltas between two samples; None when a counter went backwards (device re-created or counter wrap)."""
    fields = ("reads", "writes", "sectors_read", "sectors_written", "read_ms", "write_ms", "io_ms", "weighted_ms")
    d = {f: getattr(cur, f) - getattr(prev, f) for f in fields}
    if dt <= 0 or any(v < 0 for v in d.values()):
        return None
    flushes = flush_ms = None
    if cur.flushes is not None and prev.flushes is not None and cur.flush_ms is not None and prev.flush_ms is not None:
        flushes, flush_ms = cur.flushes - prev.flushes, cur.flush_ms - prev.flush_ms
        if flushes < 0 or flush_ms < 0:
            return None
    ios = d["reads"] + d["writes"]
    nbytes = (d["sectors_read"] + d["sectors_written"]) * SECTOR_BYTES
    await_ms = _div(d["read_ms"] + d["write_ms"], ios)
    service = _div(d["io_ms"], ios)
    return Interval(
        device=cur.name, t=t, dt=dt, reads=d["reads"], writes=d["writes"],
        r_iops=d["reads"] / dt, w_iops=d["writes"] / dt, iops=ios / dt,
        r_mbps=d["sectors_read"] * SECTOR_BYTES / dt / 1e6, w_mbps=d["sectors_written"] * SECTOR_BYTES / dt / 1e6,
        mbps=nbytes / dt / 1e6, avg_rq_kb=_div(nbytes / 1024, ios),
        r_await_ms=_div(d["read_ms"], d["reads"]), w_await_ms=_div(d["write_ms"], d["writes"]), await_ms=await_ms,
        aqu_sz=d["weighted_ms"] / (dt * 1000), util_pct=min(100.0, d["io_ms"] / (dt * 10)), in_flight=cur.in_flight,
        flushes=flushes, flushes_per_s=None if flushes is None else flushes / dt,
        flush_await_ms=None if flushes is None or flush_ms is None else _div(flush_ms, flushes), flush_ms=flush_ms,
        write_ms=d["write_ms"], discards_per_s=_rate(prev.discards, cur.discards, dt),
        service_ms=service, queue_ms=max(0.0, await_ms - service),
    )


def series(capture: Capture) -> dict[str, list[Interval]]:
    """Every device's intervals, in time order."""
    out: dict[str, list[Interval]] = {}
    prev_stats = capture.stats(0)
    prev_t = capture.samples[0].t
    for i in range(1, len(capture.samples)):
        cur_stats = capture.stats(i)
        t = capture.samples[i].t
        for name, cur in cur_stats.items():
            prev = prev_stats.get(name)
            if prev is None:
                continue
            iv = interval(prev, cur, t - prev_t, t)
            if iv is not None:
                out.setdefault(name, []).append(iv)
        prev_stats, prev_t = cur_stats, t
    return out


def latest(capture: Capture) -> dict[str, Interval]:
    """The last interval of every device (for the live view)."""
    if len(capture.samples) < 2:
        return {}
    a, b = capture.stats(len(capture.samples) - 2), capture.stats(len(capture.samples) - 1)
    dt = capture.samples[-1].t - capture.samples[-2].t
    out = {}
    for name, cur in b.items():
        if name in a:
            iv = interval(a[name], cur, dt, capture.samples[-1].t)
            if iv is not None:
                out[name] = iv
    return out
