"""iSCSI sessions: each session's target IQN from sysfs, and the node.session.queue_depth its node record sets.

sysfs: /sys/class/iscsi_session/sessionN/targetname (and a disk's sysfs path runs through its session). The queue
depth an initiator asks for lives in open-iscsi's node records, /etc/iscsi/nodes/IQN/PORTAL,TPGT/default (Debian,
Ubuntu) or /var/lib/iscsi/nodes/… (RHEL, Oracle Linux), one `key = value` a line; only that key is read.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from blockfit.devices.sysfs import read_text

NODE_DIRS = ("etc/iscsi/nodes", "var/lib/iscsi/nodes")
MAX_NODE_FILE = 64 * 1024  # a node record is a few KB
KEY = "node.session.queue_depth"


class IscsiSession(BaseModel):
    session: str = Field(description="sessionN")
    target: str | None = Field(default=None, description="target IQN")
    queue_depth: int | None = Field(default=None, description="node.session.queue_depth of its node record")
    queue_depth_source: str | None = None


def node_queue_depth(text: str) -> int | None:
    """The node.session.queue_depth of a node record's text; None when it sets none."""
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == KEY and value.strip().isdigit():
            return int(value.strip())
    return None


def _node_record(root: Path, target: str) -> tuple[int | None, str | None]:
    """The queue depth the first node record of TARGET sets, and the record's path."""
    if "/" in target or target in (".", ".."):
        return None, None
    for base in NODE_DIRS:
        folder = root / base / target
        try:
            records = sorted(folder.glob("*/default")) + sorted(p for p in folder.glob("*") if p.is_file())
        except OSError:
            continue
        for record in records:
            try:
                with open(record, encoding="utf-8", errors="replace") as fh:
                    depth = node_queue_depth(fh.read(MAX_NODE_FILE))
            except OSError:
                continue
            if depth is not None:
                return depth, "/" + record.relative_to(root).as_posix()
    return None, None


def read_sessions(root: Path) -> list[IscsiSession]:
    """Every iSCSI session under ROOT/sys, with its node record's queue depth where ROOT has one."""
    base = root / "sys" / "class" / "iscsi_session"
    try:
        names = sorted(p.name for p in base.iterdir())
    except OSError:
        return []
    sessions = []
    for name in names:
        target = read_text(base / name / "targetname")
        depth, source = _node_record(root, target) if target else (None, None)
        sessions.append(IscsiSession(session=name, target=target, queue_depth=depth, queue_depth_source=source))
    return sessions
