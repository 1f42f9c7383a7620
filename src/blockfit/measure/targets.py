"""Calibrate targets: a directory (we create a test file), an existing file, or block devices — with safety checks.

Reads are always allowed. Writes (``write_pct`` > 0) are refused on block devices and existing files unless
``allow_write``, and always refused on mounted, swap or in-use (dm/md holder) devices. A write test on a
device that carries a filesystem/RAID/LVM signature proceeds only with ``allow_write`` and a warning.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from blockfit import proc
from blockfit.devices import mountinfo, swaps, sysfs
from blockfit.errors import InputError, ValueProblem

TEST_FILE_PREFIX = "blockfit-calibrate-"


@dataclass
class Target:
    """One thing fio reads: its path, what kind it is, and whether we created (and must delete) it."""

    given: str
    path: str
    kind: Literal["block", "file", "remote"]
    size_bytes: int
    created: bool = False
    direct_ok: bool = True
    filesystem: str | None = None


def _mounted_devnums() -> set[int]:
    nums: set[int] = set()
    with contextlib.suppress(OSError):
        for m in mountinfo.read():
            major, _, minor = m.dev.partition(":")
            if major != "0":
                nums.add(os.makedev(int(major), int(minor)))
    with contextlib.suppress(OSError):
        for path in swaps.read():
            with contextlib.suppress(OSError):
                st = os.stat(path)
                if stat.S_ISBLK(st.st_mode):
                    nums.add(st.st_rdev)
    return nums


def _devnum_of(sysdir: Path) -> int | None:
    try:
        major, minor = (sysdir / "dev").read_text().strip().split(":")
    except (OSError, ValueError):
        return None
    return os.makedev(int(major), int(minor))


def _related_sysdirs(sysdir: Path) -> list[Path]:
    """The device, its partitions, and everything stacked on them (holders), recursively."""
    seen: list[Path] = []
    todo = [sysdir]
    while todo:
        d = todo.pop()
        if d in seen:
            continue
        seen.append(d)
        with contextlib.suppress(OSError):
            todo.extend(p for p in d.iterdir() if (p / "partition").exists())
        with contextlib.suppress(OSError):
            todo.extend(sysfs.class_dir(h.name) for h in (d / "holders").iterdir())
    return seen


def device_usage(devnum: int) -> tuple[bool, list[str]]:
    """(mounted or swap anywhere in its stack, names of holders such as dm/md devices built on it)."""
    sysdir = sysfs.dev_dir(devnum)
    if sysdir is None:
        return False, []
    related = _related_sysdirs(sysdir)
    mounted = _mounted_devnums()
    is_mounted = any(_devnum_of(d) in mounted for d in related)
    holders: list[str] = []
    for d in related:
        with contextlib.suppress(OSError):
            holders.extend(h.name for h in (d / "holders").iterdir())
    return is_mounted, sorted(set(holders))


def signature(path: str) -> str | None:
    """Filesystem/RAID/LVM signature type found by blkid (None: none found or blkid missing)."""
    if shutil.which("blkid") is None:
        return None
    out = proc.run(["blkid", "-p", "-o", "export", path], timeout=60)
    for line in out.stdout.splitlines():
        if line.startswith(("TYPE=", "PTTYPE=")):
            return line.split("=", 1)[1]
    return None


def filesystem_type(path: str, mounts: list[mountinfo.Mount] | None = None) -> str | None:
    """Filesystem type of the mount holding ``path`` (longest matching mount point; MOUNTS: this process's)."""
    best, fstype = "", None
    real = os.path.realpath(path)
    if mounts is None:
        try:
            mounts = mountinfo.read()
        except OSError:
            return None
    for m in mounts:
        inside = real == m.mount_point or real.startswith(m.mount_point.rstrip("/") + "/")
        if inside and len(m.mount_point) >= len(best):
            best, fstype = m.mount_point, m.fstype
    return fstype


def supports_direct_io(directory: str) -> bool:
    """Whether files in ``directory`` can be opened with O_DIRECT (tmpfs, for one, cannot)."""
    probe = Path(directory) / f"{TEST_FILE_PREFIX}{os.getpid()}.probe"
    try:
        fd = os.open(probe, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o600)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise InputError(f"target {directory!r}: cannot create a test file there ({exc.strerror})") from None
    else:
        os.close(fd)
        return True
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()


def _directory_target(given: str, size_bytes: int) -> Target:
    """A directory: a fresh test file of SIZE_BYTES in it, which calibrate creates and removes."""
    from blockfit.files import owner_tag, sweep_tagged_files

    # named by its owner (pid and start time): a calibrate killed outright leaves it, the next one here removes it
    sweep_tagged_files(Path(given), TEST_FILE_PREFIX, ".dat", f"target {given!r}")
    usage = shutil.disk_usage(given)
    if usage.free < size_bytes * 1.05:
        raise ValueProblem(f"{size_bytes} bytes: only {usage.free} bytes free in {given!r}")
    direct = supports_direct_io(given)
    path = os.path.join(os.path.abspath(given), f"{TEST_FILE_PREFIX}{owner_tag()}.dat")
    return Target(given=given, path=path, kind="file", size_bytes=size_bytes, created=True,
                  direct_ok=direct, filesystem=filesystem_type(given))


def _file_target(given: str, st: os.stat_result, writes: bool, allow_write: bool, warnings: list[str]) -> Target:
    """An existing regular file: read in place; written only with --allow-write."""
    if writes and not allow_write:
        raise InputError(f"target {given!r}: a write test would overwrite this existing file; "
                         "pass --allow-write, or give a directory to get a fresh test file")
    if st.st_size < 1024 * 1024:
        raise InputError(f"target {given!r}: file is {st.st_size} bytes; expected at least 1 MiB")
    if st.st_blocks * 512 < st.st_size * 0.9:
        warnings.append(f"{given} is sparse: its holes read as zeros without touching the device")
    return Target(given=given, path=os.path.abspath(given), kind="file", size_bytes=st.st_size,
                  direct_ok=supports_direct_io(os.path.dirname(os.path.abspath(given))),
                  filesystem=filesystem_type(given))


def _check_block_write(given: str, devnum: int, allow_write: bool, warnings: list[str]) -> None:
    """A write test on a block device: never when mounted or in use, otherwise only with --allow-write."""
    mounted, holders = device_usage(devnum)
    if mounted:
        raise InputError(f"target {given!r}: mounted (or swap, or under a mounted device); "
                         "write tests on mounted devices are always refused")
    if holders:
        raise InputError(f"target {given!r}: in use by {', '.join(holders)}; "
                         "write tests on in-use devices are always refused")
    if not allow_write:
        raise InputError(f"target {given!r}: a write test on a block device destroys its data; "
                         "pass --allow-write to confirm")
    sig = signature(os.path.abspath(given))  # never an option of blkid's, as a relative "-p…" would be
    if sig:
        warnings.append(f"{given} carried a {sig} signature; the write test has damaged it")


def _block_target(given: str, st: os.stat_result, writes: bool, allow_write: bool, warnings: list[str]) -> Target:
    if writes:
        _check_block_write(given, st.st_rdev, allow_write, warnings)
    try:
        with open(given, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
    except OSError as exc:
        raise InputError(f"target {given!r}: cannot open for reading ({exc.strerror})") from None
    if size < 1024 * 1024:
        raise InputError(f"target {given!r}: device is {size} bytes; expected at least 1 MiB")
    return Target(given=given, path=os.path.abspath(given), kind="block", size_bytes=size)  # fio runs elsewhere


def check_fio_path(path: str, given: str) -> None:
    """fio reads its job file line by line and its values its own way: a line break in a filename starts a line
    of fio's (`[evil]` then `exec_prerun=COMMAND`, run as root), `${VAR}` is expanded, blanks around a value are
    dropped, and a backslash before the ':' between two files makes one name of them. A target whose path fio
    would read as another file, or as a command, is refused before anything is checked or run."""
    if (any(not ch.isprintable() for ch in path) or "$" in path or "\\" in path or path != path.strip()
            or len(path) > 4096):
        raise InputError(f"target {given!r}: fio would not read this path as written (expected a path without line "
                         "breaks or other control characters, '$', '\\', or blanks at either end; rename it, or "
                         "give a symlink to it)")


def resolve_target(given: str, *, size_bytes: int, write_pct: int, allow_write: bool, remote: bool = False,
                   warnings: list[str]) -> Target:
    """Check one TARGET argument and describe it; raises InputError for refusals and unusable targets."""
    writes = write_pct > 0
    check_fio_path(given, given)
    check_fio_path(os.path.abspath(given), given)  # a relative path is read from the current directory
    if not os.path.exists(given):
        if remote:
            if writes and not allow_write:
                raise InputError(f"target {given!r}: a write test on remote hosts needs --allow-write")
            return Target(given=given, path=given, kind="remote", size_bytes=0)
        raise InputError(f"target {given!r}: no such file, directory or block device")
    st = os.stat(given)
    if stat.S_ISDIR(st.st_mode):
        return _directory_target(given, size_bytes)
    if stat.S_ISREG(st.st_mode):
        return _file_target(given, st, writes, allow_write, warnings)
    if stat.S_ISBLK(st.st_mode):
        return _block_target(given, st, writes, allow_write, warnings)
    raise InputError(f"target {given!r}: expected a directory, a regular file or a block device")


def resolve_targets(given: list[str], *, size_bytes: int, write_pct: int, allow_write: bool,
                    remote: bool = False, warnings: list[str]) -> list[Target]:
    if not given:
        raise InputError("TARGET: expected at least one directory, file or block device")
    real = [os.path.realpath(g) for g in given]
    for i, path in enumerate(real):
        if path in real[:i]:
            raise InputError(f"TARGET: {given[i]!r} is named twice (as {given[real.index(path)]!r} too)")
    targets = [resolve_target(g, size_bytes=size_bytes, write_pct=write_pct, allow_write=allow_write,
                              remote=remote, warnings=warnings) for g in given]
    if len(targets) > 1 and any(t.created for t in targets):
        raise InputError("TARGET: a simulated stripe takes block devices or files, not directories")
    return targets
