"""What held each run: the devices under the layout (a devices capture of its stack), the database's own
counters, the host CPU, and from those the binding resource in words.

Why a capture and diagnose's rules: the capture resolves a mount's whole stack (filesystem → LV/md →
members) and reads cgroup throttle caps; the rules decide when a device sits at a cap (median ≥ 90 % of it
over active intervals). A run is called I/O-bound only on that evidence, on flush latency, or when the layout's
own device never waited for work (busy with a queue, below any known cap: ``device_busy``); otherwise, if the
host CPU was busy, it is CPU-bound and the comparison refuses to name a winner.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockfit.devices import mountinfo, procstat, sysfs
from blockfit.devices.capture import Capture, snapshot, take_sample
from blockfit.devices.diskstats import SECTOR_BYTES, DiskStat
from blockfit.diagnose import rules
from blockfit.schema.bench import (
    IO_BINDINGS,
    Binding,
    DbCounters,
    DeviceEvidence,
    LayoutInfo,
    MemoryEvidence,
    RunEvidence,
)
from blockfit.schema.finding import DeviceSummary, Finding

CPU_BOUND_PCT = 85.0     # host CPU busy at or above this, with no device at a cap: the run measured CPU
INTERVAL_S = 1.0
# The layout's own device (a stripe's top, a single volume) busy this share of the time with at least this many
# I/Os in flight on average: it was never idle waiting for the database, so storage held the run even where no
# known cap was reached (an emulated or real volume that delivers less than its published cap).
BUSY_UTIL_PCT = 90.0
BUSY_QUEUE = 2.0


@dataclass
class KnownCap:
    """Caps the guest cannot see (qemu throttle groups, cloud volumes): per member device of a layout, and the
    instance's (shared by every member)."""

    iops: float | None = None
    mbps: float | None = None
    instance_iops: float | None = None
    instance_mbps: float | None = None


def resolve(directory: Path, label: str) -> LayoutInfo:
    """The mount a directory lives on and its block device stack (empty when not on a block device)."""
    st = os.stat(directory)
    dev = sysfs.majmin(st.st_dev)
    real = str(directory.resolve())
    found = [m for m in mountinfo.read() if m.dev == dev and (real + "/").startswith(m.mount_point.rstrip("/") + "/")]
    mount = max(found, key=lambda m: len(m.mount_point)) if found else None
    devices: list[str] = []
    members: list[str] = []
    name = sysfs.name_of(dev)
    if name is not None:
        header = snapshot([name], INTERVAL_S)
        devices = header.selected
        members = _members(devices, Capture(header=header, samples=[]))
    return LayoutInfo(label=label, dir=str(directory), mount_point=mount.mount_point if mount else "?",
                      fstype=mount.fstype if mount else "?", source=mount.source if mount else "?",
                      fs_device=name, devices=devices, members=members,
                      mount_options=mount.all_options if mount else [])


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies over all CPUs; iowait counts as idle (a CPU waiting on I/O is free)."""
    busy, total = procstat.cpu_times()
    return busy, total


class DeviceSampler:
    """Samples /proc/diskstats for a stack every second in a thread, between start() and stop()."""

    def __init__(self, devices: list[str]) -> None:
        self.devices = devices
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.capture: Capture | None = None
        self._cpu0 = cpu_times()

    def start(self) -> DeviceSampler:
        self._cpu0 = cpu_times()
        if self.devices:
            self.capture = Capture(header=snapshot(self.devices, INTERVAL_S), samples=[])
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        assert self.capture is not None
        t0 = time.monotonic()
        i = 0
        while True:
            self.capture.samples.append(take_sample(self.capture.header.selected, time.monotonic() - t0))
            i += 1
            if self._stop.wait(max(0.0, t0 + i * INTERVAL_S - time.monotonic())):
                return

    def stop(self) -> tuple[Capture | None, float]:
        """The capture (None without a block device) and the host CPU busy % over the window."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        busy1, total1 = cpu_times()
        busy0, total0 = self._cpu0
        cpu = 100.0 * (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0
        if self.capture is not None and self.capture.header.selected:
            self.capture.samples.append(take_sample(self.capture.header.selected,
                                                            self.capture.samples[-1].t + INTERVAL_S
                                                            if self.capture.samples else 0.0))
        return self.capture, cpu


DB_QUERY = """
SELECT (SELECT sum(blks_read) FROM pg_stat_database), (SELECT sum(blks_hit) FROM pg_stat_database),
       (SELECT sum(temp_files) FROM pg_stat_database), (SELECT sum(temp_bytes) FROM pg_stat_database),
       pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0'),
       checkpoints_timed + checkpoints_req, buffers_checkpoint, buffers_backend, buffers_clean
FROM pg_stat_bgwriter
"""
DB_FIELDS = ("blks_read", "blks_hit", "temp_files", "temp_bytes", "wal_bytes", "checkpoints", "buffers_checkpoint",
             "buffers_backend", "buffers_clean")


def db_snapshot(conn: Any) -> dict[str, int]:
    """Cumulative counters now (psycopg connection, autocommit); subtract two for a run's deltas."""
    conn.execute("SELECT pg_stat_clear_snapshot()")
    row = conn.execute(DB_QUERY).fetchone()
    return {k: int(v or 0) for k, v in zip(DB_FIELDS, row, strict=True)}


def db_delta(before: dict[str, int], after: dict[str, int]) -> DbCounters:
    d = {k: max(0, after[k] - before[k]) for k in DB_FIELDS}
    looked = d["blks_read"] + d["blks_hit"]
    return DbCounters(**d, hit_ratio=d["blks_hit"] / looked if looked else None)


def _members(info_devices: list[str], capture: Capture) -> list[str]:
    """The bottom of the stack (devices built on nothing we sampled): where a volume's cap applies."""
    devs = capture.header.devices
    return [n for n in info_devices if n in devs and not devs[n].slaves and devs[n].kind != "partition"]


RunEnds = tuple[dict[str, DiskStat], dict[str, DiskStat]]


def run_ends(capture: Capture | None) -> RunEnds | None:
    """Every device's counters at the run's first and last sample (None: fewer than two samples)."""
    if capture is None or len(capture.samples) < 2:
        return None
    return capture.stats(0), capture.stats(len(capture.samples) - 1)


def page_cache_hit_ratio(ends: RunEnds | None, fs_device: str | None, db: DbCounters) -> float | None:
    """1 - (bytes read from the filesystem's device) / (blocks the server missed in shared buffers x 8 KiB)."""
    if ends is None or fs_device is None or db.blks_read == 0:
        return None
    first, last = ends[0].get(fs_device), ends[1].get(fs_device)
    if first is None or last is None:
        return None
    device_bytes = (last.sectors_read - first.sectors_read) * SECTOR_BYTES
    return min(1.0, max(0.0, 1.0 - device_bytes / (db.blks_read * 8192)))


def completed(ends: RunEnds | None, count: Callable[[DiskStat], int]) -> dict[str, int]:
    """Per device: how much ``count`` of its counters grew between the run's first and last sample."""
    if ends is None:
        return {}
    first, last = ends
    return {name: count(b) - count(a) for name, b in last.items() if (a := first.get(name)) is not None}


def ios_done(s: DiskStat) -> int:
    return s.reads + s.writes


def bytes_moved(s: DiskStat) -> int:
    return (s.sectors_read + s.sectors_written) * SECTOR_BYTES


def judge(capture: Capture | None, cpu_pct: float, known: KnownCap | None, db: DbCounters,
          memory: MemoryEvidence | None, fs_device: str | None = None) -> RunEvidence:
    """Device figures, diagnose's findings and the binding resource of one run."""
    ends = run_ends(capture)
    db.page_cache_hit_ratio = page_cache_hit_ratio(ends, fs_device, db)
    if capture is None or len(capture.samples) < 2:
        binding: Binding = "cpu" if cpu_pct >= CPU_BOUND_PCT else "unknown"
        return RunEvidence(db=db, memory=memory, cpu_busy_pct=cpu_pct, binding=binding, io_bound=False,
                           binding_detail=f"no block device sampled; host CPU {cpu_pct:.0f} % busy")
    diag = rules.diagnose(capture, _expectation(known, capture), "bench")
    at_cap = [f for f in diag.findings if f.kind == "member_cap" and "cap_use" in f.measurements]
    devices = _device_evidence(diag.devices, at_cap, ends)
    binding, detail = _binding(diag.findings, at_cap, devices, cpu_pct)
    return RunEvidence(devices=devices, db=db, memory=memory, cpu_busy_pct=cpu_pct, binding=binding,
                       binding_detail=detail, io_bound=binding in IO_BINDINGS, findings=diag.findings)


def _expectation(known: KnownCap | None, capture: Capture) -> rules.Expectation | None:
    """The caps the bench was told, as diagnose's expectation (None: none told)."""
    if known is None or not (known.iops or known.mbps or known.instance_iops or known.instance_mbps):
        return None
    return rules.Expectation(source="--cap / --instance-cap", member_iops=known.iops, member_mbps=known.mbps,
                             instance_iops=known.instance_iops, instance_mbps=known.instance_mbps,
                             members=_members(capture.header.selected, capture))


def _device_evidence(summaries: list[DeviceSummary], at_cap: list[Finding], ends: RunEnds | None,
                     ) -> list[DeviceEvidence]:
    """Each sampled device's figures, with what it completed in the run and, for a member at its cap, that cap."""
    devices = []
    ios, nbytes = completed(ends, ios_done), completed(ends, bytes_moved)
    for s in summaries:
        f = next((f for f in at_cap if f.device == s.device), None)
        devices.append(DeviceEvidence(device=s.device, role=s.role, parent=s.parent, read_iops=s.read_iops,
                                      write_iops=s.write_iops, mbps=s.mbps, r_await_ms=s.r_await_ms,
                                      w_await_ms=s.w_await_ms, aqu_sz=s.aqu_sz, util_pct=s.util_pct,
                                      flush_await_ms=s.flush_await_ms, ios=ios.get(s.device),
                                      bytes=nbytes.get(s.device),
                                      cap=f.measurements["cap"] if f else None,
                                      cap_use=f.measurements["cap_use"] if f else None))
    return devices


def _binding(findings: list[Finding], at_cap: list[Finding], devices: list[DeviceEvidence],
             cpu_pct: float) -> tuple[Binding, str]:
    """What held the run, first match wins: the instance's cap, a member's cap, flush latency, the CPU, a device
    busy below any known cap; else unknown. With the sentence that says so."""
    storms = [f for f in findings if f.kind == "flush_storm"]
    instance = [f for f in findings if f.kind == "instance_cap"]
    if instance:
        return "instance_cap", (f"instance cap: {instance[0].summary} ({instance[0].evidence[0]}); "
                                f"host CPU {cpu_pct:.0f} %")
    if at_cap:
        return _member_cap(at_cap, cpu_pct)
    if storms:
        return "flush_latency", (f"fsync/flush latency: {storms[0].summary} on {storms[0].device}; "
                                 f"host CPU {cpu_pct:.0f} %")
    if cpu_pct >= CPU_BOUND_PCT:
        return "cpu", f"CPU: host {cpu_pct:.0f} % busy and no device at a cap"
    if (busy := busy_device(devices)) is not None:
        return "device_busy", (f"{busy.device} busy {busy.util_pct:.0f} % of the time with {busy.aqu_sz:.1f} I/Os "
                               f"in flight on average at {busy.mbps:.1f} MB/s, "
                               f"{busy.read_iops + busy.write_iops:,.0f} IOPS, below any known cap; "
                               f"host CPU {cpu_pct:.0f} %")
    top = max(devices, key=lambda d: d.read_iops + d.write_iops, default=None)
    return "unknown", (f"no device at a known cap and CPU {cpu_pct:.0f} % busy"
                       + (f"; busiest {top.device} {top.read_iops + top.write_iops:,.0f} IOPS, await "
                          f"{top.r_await_ms:.1f} ms" if top else ""))


def _member_cap(at_cap: list[Finding], cpu_pct: float) -> tuple[Binding, str]:
    """Members at their IOPS or MB/s cap: which, and how much of it they used."""
    unit = "MB/s" if at_cap[0].metric == "mbps" else "IOPS"
    binding: Binding = "mbps_cap" if unit == "MB/s" else "iops_cap"
    uses = [f.measurements["cap_use"] for f in at_cap]
    names = ", ".join(f.device for f in at_cap)
    who, whose = ("members", "their") if len(at_cap) > 1 else ("member", "its")
    return binding, (f"{who} {names} at {min(uses):.0%}" + (f"–{max(uses):.0%}" if len(at_cap) > 1 else "")
                     + f" of {whose} {unit} cap ({at_cap[0].evidence[0]}); host CPU {cpu_pct:.0f} %")


def busy_device(devices: list[DeviceEvidence]) -> DeviceEvidence | None:
    """The layout's own device (the stack's top, or the lone device) when it never waited for work: busy at least
    BUSY_UTIL_PCT of the time with a queue of at least BUSY_QUEUE. Members are not asked: one busy member of an
    otherwise idle stripe is a hot spot, not the layout's limit."""
    top = [d for d in devices if d.role in ("top", "device")]
    return next((d for d in top if d.util_pct >= BUSY_UTIL_PCT and d.aqu_sz >= BUSY_QUEUE), None)


def most_common(bindings: list[Binding]) -> Binding | None:
    return Counter(bindings).most_common(1)[0][0] if bindings else None
