"""A capture: what the kernel says about a set of block devices, as one typed header plus raw diskstats samples.

A capture file is JSON Lines: first a header (topology, queue settings, mounts, stripe geometry, host-side
throttle caps, which devices were sampled), then one line per sample holding the raw diskstats lines and a
monotonic timestamp. Replay parses the same raw lines with the same parser, so whoever reads a capture
(diagnose's rules, bench evidence, history, report) sees the same input live and replayed.
"""

from __future__ import annotations

import json
import math
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from blockfit.devices import diskstats, geometry, mountinfo, sysfs, throttle
from blockfit.devices import multipath as mpath
from blockfit.errors import InputError
from blockfit.inputs import load_json, read_text

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
    mounts: list[mountinfo.Mount]
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
    """Check REQUESTED names against diskstats; default: every device with a size, except ram disks. An error
    names the values; the caller names the option that gave them."""
    present = [s.name for s in diskstats.parse(raw)]
    if requested:
        wanted = [r.removeprefix("/dev/") for r in requested]
        missing = [w for w in wanted if w not in present]
        if missing:
            raise InputError(f"{','.join(missing)}: not in /proc/diskstats "
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
        mounts=[m for m in mountinfo.read() if m.dev in majmins],
        geometry=[g for g in geometry.read_geometry(devices) if g.device in devices],
        caps=[c for c in throttle.read_caps() if c.dev in majmins],
        multipath=mpath.read_maps(devices),
    )


def take_sample(selected: list[str], t: float) -> Sample:
    wanted = set(selected)
    lines = [line for line in diskstats.read_raw().splitlines() if len(line.split()) > 2 and line.split()[2] in wanted]
    return Sample(t=t, lines=lines)


def restrict(capture: Capture, requested: list[str]) -> Capture:
    """Keep only the named devices and their stack (a replay of some devices of a capture)."""
    wanted = [r.removeprefix("/dev/") for r in requested]
    missing = [w for w in wanted if w not in capture.header.selected]
    if missing:
        raise InputError(f"{','.join(missing)}: not in this capture (it has "
                         f"{', '.join(capture.header.selected[:8])})")
    keep = set(_stack(wanted, capture.header.devices)) | set(wanted)
    devices = {n: d for n, d in capture.header.devices.items() if n in keep}
    header = capture.header.model_copy(update={"selected": sorted(keep), "devices": devices})
    samples = [Sample(t=s.t, lines=[ln for ln in s.lines if len(ln.split()) > 2 and ln.split()[2] in keep])
               for s in capture.samples]
    return Capture(header=header, samples=samples)


def load(path: Path) -> Capture:
    """Read a capture; any malformed line is reported with its line number. Checked before it is trusted: a
    header of a version this blockfit reads, sample times finite and increasing (a clock that stands still or
    runs backwards would turn every rate into nonsense or "no findings"). Errors name the file; the caller adds
    the option that named it."""
    where = str(path)
    text = read_text(path, where, "a capture written by 'blockfit diagnose --record'")
    header: CaptureHeader | None = None
    samples: list[Sample] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = load_json(line, f"{where} line {lineno}")
            if header is None:
                _check_version(obj, where, lineno)
                header = CaptureHeader.model_validate(obj)
            else:
                samples.append(Sample.model_validate(obj))
        except InputError:
            raise
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0][:160]
            raise InputError(f"{where} line {lineno}: not a blockfit diagnose capture line ({first})") from None
    if header is None or len(samples) < 2:
        raise InputError(f"{where}: expected a header and at least 2 samples, got {len(samples)} samples")
    if not (math.isfinite(header.interval_s) and header.interval_s > 0):
        raise InputError(f"{where}: interval_s is {header.interval_s}; expected a positive number of seconds")
    for i, (before, after) in enumerate(zip(samples, samples[1:], strict=False), start=2):
        if not after.t > before.t:
            raise InputError(f"{where}: sample {i} is at t={after.t:g} s, not after sample {i - 1} at "
                             f"t={before.t:g} s (expected times that increase)")
    if samples[0].t < 0:
        raise InputError(f"{where}: sample 1 is at t={samples[0].t:g} s; expected a time of at least 0")
    capture = Capture(header=header, samples=samples)
    sampled: list[str] = []
    for i in range(len(samples)):
        try:
            sampled += list(capture.stats(i))
        except diskstats.DiskstatsError as exc:
            raise InputError(f"{where}: {exc}") from None
    _check_names(header, sampled, where)
    return capture


def _device_names(header: CaptureHeader) -> list[tuple[str, str]]:
    """(field, name) of every device name a capture's header holds."""
    named = [("selected", n) for n in header.selected] + [("devices", n) for n in header.devices]
    for key, d in header.devices.items():
        named.append((f"devices.{key}.name", d.name))
        if d.disk is not None:
            named.append((f"devices.{key}.disk", d.disk))
        named += [(f"devices.{key}.slaves", n) for n in d.slaves] + [(f"devices.{key}.holders", n) for n in d.holders]
    for g in header.geometry:
        named += [("geometry.device", g.device)] + [("geometry.members", n) for n in g.members]
    for m in header.multipath:
        named += [("multipath.device", m.device)]
        named += [("multipath.paths", p.name) for grp in m.groups for p in grp.paths if p.name is not None]
    return named


def _check_names(header: CaptureHeader, sampled: list[str], where: str) -> None:
    """Every device name as the kernel spells one: findings name them, and advice writes /sys/block/NAME/… as a
    command to run, so a name like `x;reboot` or `..` in a hand-made capture is refused, never repeated."""
    for field, name in [*_device_names(header), *(("sample", n) for n in sampled)]:
        if not sysfs.is_kernel_name(name):
            raise InputError(f"{where}: {field}: device name {name[:80]!r} is not a kernel device name (expected "
                             "letters, digits and _ . ! - such as sda, nvme0n1p1, dm-3)")


def _check_version(obj: object, where: str, lineno: int) -> None:
    """A header from a newer blockfit is named as such, before its (maybe changed) fields are validated."""
    if not isinstance(obj, dict) or obj.get("type") != "header":
        return  # not a header: the model says what is wrong
    version = obj.get("version", CAPTURE_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(f"{where} line {lineno}: capture version {json.dumps(version)[:40]}: expected a whole "
                         "number of at least 1")
    if version > CAPTURE_VERSION:
        raise InputError(f"{where}: capture version {version}, written by a newer blockfit (this one reads version "
                         f"{CAPTURE_VERSION}): upgrade blockfit to replay it")
