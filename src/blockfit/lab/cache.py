"""Where the lab keeps its one-time set-up (guest kernel, initramfs) and its per-run work directories."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from blockfit.errors import InputError


def cache_dir() -> Path:
    """$BLOCKFIT_LAB_CACHE, else $XDG_CACHE_HOME/blockfit/lab, else ~/.cache/blockfit/lab."""
    explicit = os.environ.get("BLOCKFIT_LAB_CACHE")
    if explicit:
        return _for_qemu(Path(explicit), "BLOCKFIT_LAB_CACHE")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return _for_qemu(Path(base) / "blockfit" / "lab", "the lab's cache (from XDG_CACHE_HOME or HOME)")


def runs_dir() -> Path:
    """Parent of per-run work dirs. Not /tmp: qemu opens the disk files with O_DIRECT, which tmpfs may refuse.
    A run's folder is written into qemu's key=value options (a comma splits one) and the guest's kernel command
    line (a blank splits it), so a folder with either, or a control character, is refused (_for_qemu)."""
    explicit = os.environ.get("BLOCKFIT_LAB_RUNS")
    return _for_qemu(Path(explicit), "BLOCKFIT_LAB_RUNS") if explicit else cache_dir() / "runs"


def _for_qemu(path: Path, source: str) -> Path:
    """PATH, refused when qemu's key=value options or the guest's kernel command line would split it."""
    if any(c == "," or c.isspace() or not c.isprintable() for c in str(path)):
        raise InputError(f"{source} {str(path)!r}: expected a folder path without commas, blanks or control "
                         "characters (qemu's options and the guest's kernel command line split at them)")
    return path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on PATH (created if missing): one process builds the cache at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
