"""Clean up after a bench that was SIGKILLed: a watcher process outside blockfit's control flow.

Why: SIGKILL runs none of our code, so the ExitStack cannot stop servers or delete clusters. The kernel's
parent-death signal takes the postmaster down, but its data, socket dir and memory cgroup would stay. The
janitor is started first, in its own session (a terminal's Ctrl-C does not reach it), and blocks reading a
pipe whose write end only blockfit holds. End of file means blockfit is gone, however it went. It then
empties and removes the memory cgroups and deletes the directories listed in its manifest (one
``cgroup PATH`` or ``dir PATH`` per line, appended as they are created). A clean exit empties the manifest
first, so then it does nothing. It imports little (memcg, for removing a cgroup): it must start fast.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from blockfit import lifecycle, proc
from blockfit.dbbench import memcg


class Janitor:
    """The parent's handle: ``register`` what you create, ``close`` after cleaning up yourself."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="blockfit-janitor-"))
        self.manifest = self.dir / "manifest"
        self.manifest.write_text("")
        # no parent-death signal: the janitor's whole job is to outlive blockfit
        self.proc = proc.start([sys.executable, "-m", "blockfit.dbbench.janitor", str(self.manifest)],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               die_with_parent=False)

    def register(self, kind: str, path: Path) -> None:
        line = f"{kind} {path}"
        if len(line.splitlines()) != 1:  # a second line would be an entry of its own, which clean() deletes
            raise ValueError(f"janitor: {line!r} is not one line")
        with open(self.manifest, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    def close(self) -> None:
        """Everything was cleaned up by the caller: empty the manifest, let the janitor go, and wait for it."""
        self.manifest.write_text("")
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill_group(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


def clean(manifest: Path) -> None:
    """Cgroups first (no process may still write into a directory being deleted), then directories."""
    try:
        entries = [line.split(" ", 1) for line in manifest.read_text(encoding="utf-8").splitlines() if " " in line]
    except OSError:
        return
    for kind, path in entries:
        if kind == "cgroup":
            with contextlib.suppress(Exception):  # one stuck cgroup must not keep the directories
                memcg.remove(Path(path))
    for kind, path in reversed(entries):
        if kind == "dir":
            shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(manifest.parent, ignore_errors=True)


def main() -> None:
    lifecycle.ignore(signal.SIGINT, signal.SIGTERM)
    while sys.stdin.buffer.read(4096):
        pass
    clean(Path(sys.argv[1]))


if __name__ == "__main__":
    main()
