"""Lift and re-apply the emulated caps while the guest runs, when the guest asks for it.

The handshake goes through the work dir the guest shares over 9p (no network in the guest):
the guest's ``lab-caps lift|apply`` writes ``caps/req-<id>`` (renamed into place, so the host never reads
half a file) and waits for ``caps/ack-<id>``; the host, polling while the guest runs, changes every
throttle group over QMP and writes the ack: ``ok``, or ``error: …`` so the guest fails at once instead of
measuring with the wrong caps. ``lab-caps`` is the command a database bench runs as its
``--before-measure`` hook: load uncapped, then measure capped. Other requests (``lab-caps fit``: choose the
scale from the emulator's speed measured in this guest, then apply it) are answered by the handlers given.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from blockfit.lab.disks import Throttle
from blockfit.lab.qmp import Qmp, QmpError

ACK_TIMEOUT_S = 120

GUEST_SCRIPT = """#!/bin/bash
# lab-caps lift|apply|fit (generated): ask the host to lift, re-apply or fit the emulated caps, wait for its answer.
set -u
case "${1:-}" in lift|apply|fit) ;; *) echo "usage: lab-caps lift|apply|fit" >&2; exit 2 ;; esac
D=%(dir)s
id=$(date +%%s%%N)-$$
echo "$1" > "$D/req-$id.tmp" && mv "$D/req-$id.tmp" "$D/req-$id"
for _ in $(seq %(polls)d); do
  if [ -e "$D/ack-$id" ]; then
    answer=$(cat "$D/ack-$id")
    [ "$answer" = ok ] && { echo "lab-caps: $1: ok"; exit 0; }
    echo "lab-caps: $1: $answer" >&2; exit 1
  fi
  sleep 0.2
done
echo "lab-caps: $1: no answer from the host within %(timeout)d s" >&2
exit 1
"""


@dataclass
class CapControl:
    """The throttle groups of one guest and what the guest asked for so far."""

    work_dir: Path
    groups: list[Throttle]
    qmp: Qmp | None = None
    socket: Path | None = None  # qemu's monitor socket, set while the guest runs (in a private temp dir)
    log: list[str] = field(default_factory=list)  # "lift ok", "apply ok", "apply error: …" in order
    handlers: dict[str, Callable[[], None]] = field(default_factory=dict)  # more requests: name -> what answers it
    _done: set[str] = field(default_factory=set)

    @property
    def dir(self) -> Path:
        return self.work_dir / "caps"

    @property
    def guest_command(self) -> Path:
        """The guest's ``lab-caps`` script (same path in the guest: the work dir is shared at its own path)."""
        return self.dir / "lab-caps"

    def prepare(self) -> None:
        """Write the guest's command before the guest boots."""
        self.dir.mkdir(exist_ok=True)
        self.guest_command.write_text(GUEST_SCRIPT % {"dir": self.dir, "polls": ACK_TIMEOUT_S * 5,
                                                      "timeout": ACK_TIMEOUT_S})
        self.guest_command.chmod(0o755)

    def lift(self) -> None:
        assert self.qmp is not None
        for g in self.groups:
            self.qmp.set_limits(g.name, None, None, None)

    def apply(self) -> None:
        assert self.qmp is not None
        for g in self.groups:
            self.qmp.set_limits(g.name, g.iops, g.bps, g.iops_size)

    def poll(self) -> None:
        """Answer every request the guest has written since the last poll."""
        for req in sorted(self.dir.glob("req-*")):
            rid = req.name.removeprefix("req-")
            if rid.endswith(".tmp") or rid in self._done:
                continue
            what = req.read_text().strip()
            try:
                if self.qmp is None:
                    raise QmpError("no QMP connection to qemu")
                if what == "lift":
                    self.lift()
                elif what == "apply":
                    self.apply()
                elif what in self.handlers:
                    self.handlers[what]()
                else:
                    raise QmpError(f"unknown request {what!r}")
                answer = "ok"
            except (QmpError, OSError, ValueError) as exc:
                answer = f"error: {exc}"
            self._done.add(rid)
            self.log.append(f"{what} {answer}")
            tmp = self.dir / f".ack-{rid}"
            tmp.write_text(answer + "\n")
            os.replace(tmp, self.dir / f"ack-{rid}")
