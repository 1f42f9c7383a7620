"""Typed reader for the sysfs block tree: queue settings, the device stack, and major:minor → device lookups.

The stack comes from /sys/class/block/<dev>/slaves and holders (dm, md), the partition → disk link,
and for loop devices /sys/block/loopN/loop/backing_file when the backing file is itself a block device.
A device number (st_dev of a file, st_rdev of a node) names its device through /sys/dev/block/MAJOR:MINOR;
every package asks here rather than building that path itself.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from pydantic import BaseModel, Field

SYS = Path("/sys")

# A kernel block device name as /proc/diskstats and /sys/class/block spell it (sda, nvme0n1p1, dm-3, md127, zd16,
# cciss!c0d0): a letter or digit, then letters, digits and _ . ! -, at most 64. Names read from a file (a capture) are
# held to it, so a name is never a path ("..", "a/b") nor shell text where advice names /sys/block/NAME/....
_KERNEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.!-]{0,63}")


def is_kernel_name(name: str) -> bool:
    """Whether NAME is spelled as the kernel names block devices (see _KERNEL_NAME)."""
    return _KERNEL_NAME.fullmatch(name) is not None


ATTRIBUTE_MAX = 64 * 1024  # a sysfs attribute is at most a page; a copied tree (inspect --root) is held to this too


def read_bytes(path: Path, limit: int = ATTRIBUTE_MAX) -> bytes | None:
    """At most LIMIT bytes of a regular file; None where it is absent, unreadable or not a regular file. Opened
    without blocking, so a FIFO planted in a copied tree (inspect --root) is refused rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_text(path: Path) -> str | None:
    """A sysfs attribute's text, stripped; None where it is absent, unreadable or not a regular file."""
    data = read_bytes(path)
    return None if data is None else data.decode("utf-8", errors="replace").strip()


def read_int(path: Path) -> int | None:
    text = read_text(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None



def majmin(devnum: int) -> str:
    """'MAJOR:MINOR' of a device number, as sysfs and diskstats name it."""
    return f"{os.major(devnum)}:{os.minor(devnum)}"


def dev_dir(devnum: int | str, sys_root: Path = SYS) -> Path | None:
    """/sys/class/block/<name> of a device number or 'MAJOR:MINOR' (a partition's own directory); None if none."""
    link = sys_root / "dev" / "block" / (devnum if isinstance(devnum, str) else majmin(devnum))
    try:
        return link.resolve() if link.exists() else None
    except OSError:
        return None


def name_of(devnum: int | str, sys_root: Path = SYS) -> str | None:
    """The kernel name (sda1, dm-3) of a device number or 'MAJOR:MINOR'; None for anonymous devices (tmpfs, NFS)."""
    found = dev_dir(devnum, sys_root)
    return found.name if found else None


def class_dir(name: str, sys_root: Path = SYS) -> Path:
    """/sys/class/block/<name>."""
    return sys_root / "class" / "block" / name


def shown(name: str, attribute: str) -> str:
    """How a finding or advice names a block device's attribute: '/sys/block/sda/queue/scheduler'."""
    return f"/sys/block/{name}/{attribute}"


class QueueSettings(BaseModel):
    """The request-queue knobs that shape latency (sysfs-block ABI)."""

    scheduler: str | None = None
    nr_requests: int | None = None
    max_sectors_kb: int | None = None
    max_hw_sectors_kb: int | None = None
    read_ahead_kb: int | None = None
    write_cache: str | None = Field(default=None, description="'write back' passes flushes; 'write through' drops them")
    fua: bool | None = None
    rotational: bool | None = None
    logical_block_size: int | None = None
    physical_block_size: int | None = None
    minimum_io_size: int | None = None
    optimal_io_size: int | None = None
    device_queue_depth: int | None = Field(default=None, description="SCSI/iSCSI device/queue_depth where exposed")
    iscsi_session: str | None = Field(default=None, description="iSCSI session (sessionN) the disk belongs to")
    iscsi_target: str | None = Field(default=None, description="its target IQN (/sys/class/iscsi_session/*/targetname)")
    host_can_queue: int | None = Field(default=None, description="SCSI host can_queue (iSCSI: session cmds_max)")


class BlockDevice(BaseModel):
    name: str
    kind: str = Field(description="disk | partition | dm | md | loop | nvme | other")
    dev: str | None = Field(default=None, description="major:minor")
    size_bytes: int = 0
    disk: str | None = Field(default=None, description="for a partition: its whole disk")
    start_sector: int | None = Field(default=None, description="for a partition: its first 512-byte sector")
    slaves: list[str] = Field(default_factory=list, description="devices this one is built on (members)")
    holders: list[str] = Field(default_factory=list, description="devices built on this one")
    dm_name: str | None = None
    dm_uuid: str | None = Field(default=None, description="dm/uuid: 'mpath-…' for multipath maps, 'LVM-…' for LVs")
    md_level: str | None = None
    md_chunk_bytes: int | None = None
    loop_backing_file: str | None = None
    loop_direct_io: bool | None = None
    queue: QueueSettings | None = None


def _scheduler(text: str | None) -> str | None:
    if text is None:
        return None
    if "[" in text:
        return text.split("[", 1)[1].split("]", 1)[0]
    return text or None


def _iscsi(dev_dir: Path) -> tuple[str | None, str | None, int | None]:
    """An iSCSI disk sits under .../hostN/sessionM/target.../block/sdX in sysfs: find its session and host."""
    parts = Path(os.path.realpath(dev_dir)).parts
    session = next((p for p in parts if p.startswith("session") and p[7:].isdigit()), None)
    host = next((p for p in parts if p.startswith("host") and p[4:].isdigit()), None)
    if session is None:
        return None, None, None
    sys_root = Path(*parts[: parts.index("devices")]) if "devices" in parts else SYS
    target = read_text(sys_root / "class" / "iscsi_session" / session / "targetname")
    can_queue = read_int(sys_root / "class" / "scsi_host" / host / "can_queue") if host else None
    return session, target, can_queue


def read_queue(dev_dir: Path) -> QueueSettings | None:
    q = dev_dir / "queue"
    if not q.is_dir():
        return None
    rot = read_int(q / "rotational")
    fua = read_int(q / "fua")
    session, target, can_queue = _iscsi(dev_dir)
    return QueueSettings(
        iscsi_session=session, iscsi_target=target, host_can_queue=can_queue,
        scheduler=_scheduler(read_text(q / "scheduler")),
        nr_requests=read_int(q / "nr_requests"),
        max_sectors_kb=read_int(q / "max_sectors_kb"),
        max_hw_sectors_kb=read_int(q / "max_hw_sectors_kb"),
        read_ahead_kb=read_int(q / "read_ahead_kb"),
        write_cache=read_text(q / "write_cache"),
        fua=None if fua is None else bool(fua),
        rotational=None if rot is None else bool(rot),
        logical_block_size=read_int(q / "logical_block_size"),
        physical_block_size=read_int(q / "physical_block_size"),
        minimum_io_size=read_int(q / "minimum_io_size"),
        optimal_io_size=read_int(q / "optimal_io_size"),
        device_queue_depth=read_int(dev_dir / "device" / "queue_depth"),
    )


def _kind(name: str, dev_dir: Path) -> str:
    if (dev_dir / "partition").exists():
        return "partition"
    if (dev_dir / "dm").is_dir():
        return "dm"
    if (dev_dir / "md").is_dir():
        return "md"
    if (dev_dir / "loop").is_dir():
        return "loop"
    if name.startswith("nvme"):
        return "nvme"
    return "disk" if (dev_dir / "device").exists() else "other"


def _name_of_blockdev_path(path: str, sys_root: Path) -> str | None:
    """/dev/loop3 (or any path to a block special file) → 'loop3', via its major:minor in /sys/dev/block."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    link = sys_root / "dev" / "block" / f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    try:
        return Path(os.path.realpath(link)).name
    except OSError:
        return None


def read_device(name: str, sys_root: Path = SYS) -> BlockDevice | None:
    dev_dir = sys_root / "class" / "block" / name
    if not dev_dir.exists():
        return None
    kind = _kind(name, dev_dir)
    size = read_int(dev_dir / "size") or 0
    device = BlockDevice(name=name, kind=kind, dev=read_text(dev_dir / "dev"), size_bytes=size * 512)
    if kind == "partition":
        device.disk = Path(os.path.realpath(dev_dir)).parent.name
        device.start_sector = read_int(dev_dir / "start")
        return device
    device.queue = read_queue(dev_dir)
    for rel, attr in (("slaves", "slaves"), ("holders", "holders")):
        d = dev_dir / rel
        if d.is_dir():
            setattr(device, attr, sorted(p.name for p in d.iterdir()))
    if kind == "dm":
        device.dm_name = read_text(dev_dir / "dm" / "name")
        device.dm_uuid = read_text(dev_dir / "dm" / "uuid") or None
    if kind == "md":
        device.md_level = read_text(dev_dir / "md" / "level")
        device.md_chunk_bytes = read_int(dev_dir / "md" / "chunk_size")
    if kind == "loop":
        backing = read_text(dev_dir / "loop" / "backing_file")
        device.loop_backing_file = backing
        dio = read_int(dev_dir / "loop" / "dio")
        device.loop_direct_io = None if dio is None else bool(dio)
        lower = _name_of_blockdev_path(backing, sys_root) if backing else None
        if lower and lower not in device.slaves:
            device.slaves.append(lower)
    return device


def read_topology(names: list[str] | None = None, sys_root: Path = SYS) -> dict[str, BlockDevice]:
    """Read every block device (or `names`), then add the reverse links loop backing files imply."""
    if names is None:
        base = sys_root / "class" / "block"
        names = sorted(p.name for p in base.iterdir()) if base.is_dir() else []
    devices = {}
    for name in names:
        dev = read_device(name, sys_root)
        if dev is not None:
            devices[name] = dev
    for dev in devices.values():
        for lower in dev.slaves:
            if lower in devices and dev.name not in devices[lower].holders:
                devices[lower].holders.append(dev.name)
    return devices


def whole_disk(name: str, devices: dict[str, BlockDevice]) -> str:
    """Map a partition to its disk; any other device maps to itself."""
    dev = devices.get(name)
    return dev.disk if dev is not None and dev.kind == "partition" and dev.disk else name


def members(name: str, devices: dict[str, BlockDevice]) -> list[str]:
    """The devices a stacked device is built on (partitions stay as the kernel lists them)."""
    dev = devices.get(name)
    return list(dev.slaves) if dev else []
