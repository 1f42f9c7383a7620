"""A tiny QMP client: change a throttle-group's caps while the guest runs.

Why: a database bench loads its data with the caps lifted (loading under the measuring caps is ten times
slower) and measures with them applied, in the same guest. qemu's ``throttle-group`` object takes new
limits live through ``qom-set <group> limits {...}``; only the keys given change, the others keep their
value, and 0 means "no limit". Its ``x-iops-total``-style properties refuse any change once the object
exists ("Property cannot be set after initialization", block/throttle-groups.c), so this module only
uses ``limits``.

The protocol (docs/interop/qmp-spec): qemu greets with ``{"QMP": …}``, the client sends
``qmp_capabilities``, then one JSON command per line; replies are ``{"return": …}`` or
``{"error": {"class", "desc"}}``, and asynchronous ``{"event": …}`` lines may come in between.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

from blockfit.errors import EnvironmentProblem


class QmpError(EnvironmentProblem):
    """qemu refused a command, or the monitor could not be reached."""


class Qmp:
    """One QMP connection over a unix socket (the ``-qmp unix:PATH,server=on,wait=off`` of the lab's qemu)."""

    def __init__(self, path: Path, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:  # qemu creates the socket a moment after it starts
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout_s)
            try:
                sock.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                sock.close()
                if time.monotonic() > deadline:
                    raise QmpError(f"lab: qemu's monitor socket {path} did not come up: {exc}") from None
                time.sleep(0.1)
        self._sock = sock
        self._file = sock.makefile("rwb")
        greeting = self._read()
        if "QMP" not in greeting:
            self.close()
            raise QmpError(f"lab: {path} is not a QMP monitor (greeting {greeting!r})")
        self.execute("qmp_capabilities")

    def _read(self) -> dict[str, Any]:
        line = self._file.readline()
        if not line:
            raise QmpError("lab: qemu closed its monitor connection")
        msg: dict[str, Any] = json.loads(line)
        return msg

    def execute(self, command: str, **arguments: Any) -> Any:
        """Send one command and return its ``return`` value; raise QmpError with qemu's words on an error."""
        request: dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self._file.write(json.dumps(request).encode() + b"\n")
        self._file.flush()
        while True:
            msg = self._read()
            if "event" in msg:
                continue
            if "error" in msg:
                raise QmpError(f"lab: qemu refused {command}: {msg['error'].get('desc', msg['error'])}")
            return msg.get("return")

    def limits(self, group: str) -> dict[str, int]:
        """The group's current limits (qemu's ThrottleLimits keys: iops-total, bps-total, iops-size, …)."""
        value: dict[str, int] = self.execute("qom-get", path=group, property="limits")
        return value

    def set_limits(self, group: str, iops: int | None, bps: int | None, iops_size: int | None = None) -> None:
        """Set the group's total IOPS and bytes/s caps and its IOPS accounting size; None or 0 lifts each.

        All three go together: qemu refuses an iops-size without an IOPS cap. Other keys are kept.
        """
        self.execute("qom-set", path=group, property="limits",
                     value={"iops-total": iops or 0, "bps-total": bps or 0, "iops-size": iops_size or 0})

    def close(self) -> None:
        try:
            self._file.close()
        finally:
            self._sock.close()

    def __enter__(self) -> Qmp:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
