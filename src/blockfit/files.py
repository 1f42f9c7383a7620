"""Writing result files so that a failure (disk full, a bad path, Ctrl-C) never leaves one half-written."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from blockfit.errors import InputError


def check_target(path: Path, what: str) -> None:
    """Refuse a result path that cannot be written atomically, before any work: a directory, a parent that is not
    a directory or not writable, a name too long, or an existing non-regular file (renaming over /dev/null as root
    would replace the device node with a regular file)."""
    try:
        st = path.stat() if path.exists() else None
        parent_ok = path.parent.is_dir()
    except OSError as exc:
        raise InputError(f"{what} {str(path)!r}: cannot be used ({exc.strerror})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} {str(path)!r}: expected a file path, not a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {str(path)!r}: exists and is not a regular file (a device, pipe or socket)")
    if not parent_ok:
        raise InputError(f"{what} {str(path)!r}: directory {str(path.parent)!r} does not exist")
    if not os.access(path.parent, os.W_OK | os.X_OK):  # the file is written beside its path, then renamed
        raise InputError(f"{what} {str(path)!r}: directory {str(path.parent)!r} is not writable")


def write_atomically(path: Path, text: str, what: str) -> None:
    """Write beside `path` and rename over it; `what` names the option the path came from, for the error."""
    check_target(path, what)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # a name or title from argv that was not UTF-8 holds lone surrogates: written escaped, not a traceback
        tmp.write_text(text, encoding="utf-8", errors="backslashreplace")
        os.replace(tmp, path)
    except OSError as exc:
        _discard(tmp)
        raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
    except BaseException:
        _discard(tmp)
        raise


def _discard(tmp: Path) -> None:
    with contextlib.suppress(OSError):  # e.g. the temp name is too long although the target's name is not
        tmp.unlink(missing_ok=True)
