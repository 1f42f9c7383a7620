"""Sample /proc/diskstats for the chosen block devices every interval; record and replay JSONL captures.

A capture file is JSON Lines: first a header (topology, queue settings, mounts, stripe geometry, host-side
throttle caps, which devices were sampled), then one line per sample holding the raw diskstats lines and a
monotonic timestamp. Replay parses the same raw lines with the same parser, so the rule engine sees the
same input live and replayed.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, Field, ValidationError

from blockfit.diagnose import diskstats, geometry, mounts, sysfs, throttle
from blockfit.diagnose import multipath as mpath
from blockfit.errors import InputError

CAPTURE_VERSION = 1


class CaptureHeader(BaseModel):
    type: Literal["header"] = "header"
    version: int = CAPTURE_VERSION
    hostname: str
    kernel: str
    started: str
    interval_s: float
    selected: list[str] = Field(description="devices sampled (user choice plus their stack)")
    devices: dict[str, sysfs.BlockDevice]
    mounts: list[mounts.Mount]
    geometry: list[geometry.StripeGeometry]
    caps: list[throttle.ThrottleCap]
    multipath: list[mpath.MultipathMap] = Field(default_factory=list,
                                                   description="dm-multipath maps: path groups and path states")


class Sample(BaseModel):
    type: Literal["sample"] = "sample"
    t: float = Field(description="seconds since the first sample (monotonic clock)")
    lines: list[str] = Field(description="raw /proc/diskstats lines of the selected devices")


class Capture(BaseModel):
    header: CaptureHeader
    samples: list[Sample]

    def stats(self, index: int) -> dict[str, diskstats.DiskStat]:
        parsed = diskstats.parse("\n".join(self.samples[index].lines), f"sample {index + 1}")
        return {s.name: s for s in parsed}


def _stack(names: list[str], devices: dict[str, sysfs.BlockDevice]) -> list[str]:
    """The named devices plus everything above and below them, so a stripe and its members are seen together."""
    seen: list[str] = []
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in devices:
            continue
        seen.append(name)
        dev = devices[name]
        todo.extend(dev.slaves + dev.holders)
        if dev.disk:
            todo.append(dev.disk)
    return sorted(seen)


def select_devices(requested: list[str] | None, raw: str) -> list[str]:
    """Validate `--devices` against diskstats; default: every device with a size, except ram disks."""
    present = [s.name for s in diskstats.parse(raw)]
    if requested:
        wanted = [r.removeprefix("/dev/") for r in requested]
        missing = [w for w in wanted if w not in present]
        if missing:
            raise InputError(f"--devices {','.join(missing)}: not in /proc/diskstats "
                             f"(expected kernel names such as {', '.join(present[:4])})")
        return wanted
    topo = sysfs.read_topology(present)
    return [n for n in present if not n.startswith(("ram", "zram")) and n in topo and topo[n].size_bytes > 0]


def snapshot(requested: list[str] | None, interval_s: float) -> CaptureHeader:
    raw = diskstats.read_raw()
    chosen = select_devices(requested, raw)
    everything = sysfs.read_topology()
    selected = _stack(chosen, everything) if requested else chosen
    devices = {n: everything[n] for n in selected if n in everything}
    majmins = {d.dev for d in devices.values()}
    return CaptureHeader(
        hostname=platform.node(), kernel=platform.release(), started=datetime.now(UTC).isoformat(),
        interval_s=interval_s, selected=selected, devices=devices,
        mounts=[m for m in mounts.read() if m.dev in majmins],
        geometry=[g for g in geometry.read_geometry(devices) if g.device in devices],
        caps=[c for c in throttle.read_caps() if c.dev in majmins],
        multipath=mpath.read_maps(devices),
    )


def take_sample(selected: list[str], t: float) -> Sample:
    wanted = set(selected)
    lines = [line for line in diskstats.read_raw().splitlines() if len(line.split()) > 2 and line.split()[2] in wanted]
    return Sample(t=t, lines=lines)


def _write(fh: IO[str] | None, model: BaseModel) -> None:
    if fh is not None:
        fh.write(model.model_dump_json() + "\n")
        fh.flush()


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_live(requested: list[str] | None, interval_s: float, duration_s: float, record: Path | None = None,
             on_sample: Callable[[Capture], None] | None = None) -> Capture:
    """Sample until duration elapses or Ctrl-C; a recording is written to a temp name and renamed at the end."""
    header = snapshot(requested, interval_s)
    capture = Capture(header=header, samples=[])
    tmp = record.with_name(f".{record.name}.{os.getpid()}.part") if record else None
    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)  # stop like Ctrl-C: keep what was sampled, leave no temp file
    fh = open(tmp, "w", encoding="utf-8") if tmp else None  # noqa: SIM115 - closed in finally
    try:
        _write(fh, header)
        start = time.monotonic()
        count = int(round(duration_s / interval_s))
        for i in range(count + 1):
            target = start + i * interval_s
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            sample = take_sample(header.selected, time.monotonic() - start)
            capture.samples.append(sample)
            _write(fh, sample)
            if on_sample is not None:
                on_sample(capture)
    except KeyboardInterrupt:
        pass  # stop early and diagnose what was sampled
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
        if fh is not None and tmp is not None and record is not None:
            fh.close()
            if len(capture.samples) >= 2:
                tmp.replace(record)
            else:
                tmp.unlink(missing_ok=True)
    return capture


def restrict(capture: Capture, requested: list[str]) -> Capture:
    """Keep only the named devices and their stack (for `--replay` with `--devices`)."""
    wanted = [r.removeprefix("/dev/") for r in requested]
    missing = [w for w in wanted if w not in capture.header.selected]
    if missing:
        raise InputError(f"--devices {','.join(missing)}: not in this capture (it has "
                         f"{', '.join(capture.header.selected[:8])})")
    keep = set(_stack(wanted, capture.header.devices)) | set(wanted)
    devices = {n: d for n, d in capture.header.devices.items() if n in keep}
    header = capture.header.model_copy(update={"selected": sorted(keep), "devices": devices})
    samples = [Sample(t=s.t, lines=[ln for ln in s.lines if len(ln.split()) > 2 and ln.split()[2] in keep])
               for s in capture.samples]
    return Capture(header=header, samples=samples)


def load(path: Path) -> Capture:
    """Read a capture; any malformed line is reported with its line number."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--replay {path}: cannot read ({exc.strerror})") from None
    header: CaptureHeader | None = None
    samples: list[Sample] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if lineno == 1 or header is None:
                header = CaptureHeader.model_validate(obj)
            else:
                samples.append(Sample.model_validate(obj))
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0][:160]
            raise InputError(f"--replay {path} line {lineno}: not a blockfit diagnose capture line ({first})") from None
    if header is None or len(samples) < 2:
        raise InputError(f"--replay {path}: expected a header and at least 2 samples, got {len(samples)} samples")
    if header.version != CAPTURE_VERSION:
        raise InputError(f"--replay {path}: capture version {header.version}, expected {CAPTURE_VERSION}")
    capture = Capture(header=header, samples=samples)
    for i in range(len(samples)):
        try:
            capture.stats(i)
        except diskstats.DiskstatsError as exc:
            raise InputError(f"--replay {path}: {exc}") from None
    return capture
