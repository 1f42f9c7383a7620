"""Facts about a block device from sysfs, as calibrate reports them: size, scheduler, queue depth, cache, stack."""

from __future__ import annotations

import os
from pathlib import Path

from blockfit.devices.sysfs import dev_dir as sysfs_dir
from blockfit.devices.sysfs import read_int as _int
from blockfit.devices.sysfs import read_text as _read
from blockfit.schema.measurement import DeviceFacts

PAGE = os.sysconf("SC_PAGE_SIZE")


def queue_dir(sysdir: Path) -> Path:
    """Partitions have no queue/ of their own: use the parent disk's."""
    return sysdir.parent / "queue" if (sysdir / "partition").exists() else sysdir / "queue"


def scheduler(text: str | None) -> str | None:
    """'mq-deadline kyber [none]' → 'none'."""
    if not text:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return text


def device_facts(path: str) -> DeviceFacts:
    """Facts for a block device node (or, for a regular file, the block device holding its filesystem)."""
    st = os.stat(path)
    is_block = (st.st_mode & 0o170000) == 0o060000
    devnum = st.st_rdev if is_block else st.st_dev
    sysdir = sysfs_dir(devnum)
    facts = DeviceFacts(path=path, kind="block" if is_block else "file",
                        device=f"/dev/{sysdir.name}" if sysdir else None,
                        major_minor=f"{os.major(devnum)}:{os.minor(devnum)}")
    if not is_block:
        facts.size_bytes = st.st_size
    if sysdir is None:
        return facts
    q = queue_dir(sysdir)
    sectors = _int(sysdir / "size")
    if is_block and sectors is not None:
        facts.size_bytes = sectors * 512
    _queue_facts(facts, q)
    disk = sysdir.parent if (sysdir / "partition").exists() else sysdir
    _disk_facts(facts, disk)
    return facts


def _queue_facts(facts: DeviceFacts, q: Path) -> None:
    """What the request queue says: scheduler, depth, cache, block and transfer sizes."""
    facts.scheduler = scheduler(_read(q / "scheduler"))
    facts.nr_requests = _int(q / "nr_requests")
    rotational = _int(q / "rotational")
    facts.rotational = None if rotational is None else bool(rotational)
    facts.write_cache = _read(q / "write_cache")
    facts.logical_block_size = _int(q / "logical_block_size")
    facts.max_sectors_kb = _int(q / "max_sectors_kb")
    segments = _int(q / "max_segments")
    if facts.max_sectors_kb is not None and segments is not None:
        # a user buffer is not physically contiguous: count one page per segment
        segment = min(_int(q / "max_segment_size") or PAGE, PAGE)
        facts.max_io_bytes = min(facts.max_sectors_kb * 1024, segments * segment)


def _disk_facts(facts: DeviceFacts, disk: Path) -> None:
    """What the whole disk says: its driver's queue depth, model, loop backing and stacked members."""
    facts.queue_depth = _int(disk / "device" / "queue_depth")
    facts.model = _read(disk / "device" / "model")
    if (disk / "loop").is_dir():
        facts.loop_backing_file = _read(disk / "loop" / "backing_file")
        dio = _read(disk / "loop" / "dio")
        facts.loop_direct_io = None if dio is None else dio == "1"
    slaves = disk / "slaves"
    if slaves.is_dir():
        facts.members = sorted(p.name for p in slaves.iterdir())
