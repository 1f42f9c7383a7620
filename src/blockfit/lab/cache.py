"""Where the lab keeps its one-time set-up (guest kernel, initramfs) and its per-run work directories."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def cache_dir() -> Path:
    """$BLOCKFIT_LAB_CACHE, else $XDG_CACHE_HOME/blockfit/lab, else ~/.cache/blockfit/lab."""
    explicit = os.environ.get("BLOCKFIT_LAB_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "blockfit" / "lab"


def runs_dir() -> Path:
    """Parent of per-run work dirs. Not /tmp: qemu opens the disk files with O_DIRECT, which tmpfs may refuse."""
    explicit = os.environ.get("BLOCKFIT_LAB_RUNS")
    return Path(explicit) if explicit else cache_dir() / "runs"


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
