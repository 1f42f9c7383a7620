"""Writing result files so that a failure (disk full, a bad path, Ctrl-C) never leaves one half-written."""

from __future__ import annotations

import os
from pathlib import Path

from blockfit.errors import InputError


def write_atomically(path: Path, text: str, what: str) -> None:
    """Write beside `path` and rename over it; `what` names the option the path came from, for the error."""
    if path.is_dir():
        raise InputError(f"{what} {str(path)!r}: expected a file path, not a directory")
    if not path.parent.is_dir():
        raise InputError(f"{what} {str(path)!r}: directory {str(path.parent)!r} does not exist")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
