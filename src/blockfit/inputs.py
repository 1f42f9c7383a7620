"""Reading files a user hands blockfit, before anything trusts them: bounded, typed, finite.

A file may come from another blockfit, another tool, an editor or a hostile hand. Every reader of JSON
(report, build --plan, plan --from, diagnose --replay) goes through `load_json`: nesting bounded (deep nesting
would exhaust the parser's stack), no NaN or Infinity (never written by blockfit, drawn as "$nan a month"), no
number that overflows a float, and no negative value where the name says it is a physical quantity (the
vocabulary's unit suffixes: IOPS, MB/s, GB, bytes, ms, s, dollars). A user's file is opened through `CappedFile`:
regular files only, its size measured against a cap. Problems are InputErrors naming the file and what is wrong.
blockfit's own result documents read back (kind, schema version, a plan derived again) are `documents.py`'s.
"""

from __future__ import annotations

import io
import math
import os
import re
import stat
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from blockfit.errors import InputError

MAX_DEPTH = 64  # blockfit's own results nest about 8 deep; a lab bench result about 10
MAX_NUMBER = 1e300  # beyond this, sums and products of the figures overflow to infinity
MAX_RESULT_BYTES = 64 * 1024**2  # a fleet of a thousand hosts' plans is a few MB

# the vocabulary's name shapes of physical quantities: never negative
_PHYSICAL = re.compile(r"(^|_)(iops|mbps)$|_gb$|_size$|_bytes$|^(small|large)_io$|_ms$|_s$"
                       r"|^(monthly|storage|compute|total|cost_per_month|unit_price|quantity|hours_per_month)$")
_PERCENT = re.compile(r"^(read|write)_pct$")

Item = TypeVar("Item", bound=Hashable)


def load_json(text: str, where: str) -> Any:
    """Parse JSON text; a problem of bounds or numbers is an InputError naming `where` and the field. Syntax
    errors stay json.JSONDecodeError (a ValueError) so a caller can try another format."""
    import json  # here: `model` and `plan` load a catalog through this module but never a JSON file

    try:
        data = json.loads(text)
    except RecursionError:
        raise InputError(f"{where}: nested deeper than {MAX_DEPTH} levels (not a blockfit file)") from None
    check_values(data, where)
    return data


def check_values(data: Any, where: str) -> None:
    """Depth at most MAX_DEPTH; every number finite and within MAX_NUMBER (NaN, Infinity and 1e400 are refused);
    physical quantities (by name) not negative; read/write shares 0-100."""
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"{where}: nested deeper than {MAX_DEPTH} levels (not a blockfit file)")
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            here = f"{path}.{key}" if path else str(key)
            if isinstance(value, (dict, list)):
                stack.append((value, here, depth + 1))
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                _check_number(str(key), value, here, where)


def _check_number(key: str, value: float, here: str, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: {here} is {value}; expected a finite number")
    if abs(value) > MAX_NUMBER:
        shown = f"{value:.3g}" if isinstance(value, float) else f"a {len(str(abs(value)))}-digit number"
        raise InputError(f"{where}: {here} is {shown}; expected a number below {MAX_NUMBER:g}")
    if _PHYSICAL.search(key) and value < 0:
        raise InputError(f"{where}: {here} is {value:g}; expected a quantity of at least 0")
    if _PERCENT.match(key) and not 0 <= value <= 100:
        raise InputError(f"{where}: {here} is {value:g}; expected a percentage from 0 to 100")


def named_twice(values: Sequence[Item]) -> Item | None:
    """The first value given a second time (for an error that says which), or None."""
    seen: set[Item] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None


def user_path(text: str, what: str) -> Path:
    """A path option as typed, with a leading ``~`` or ``~user`` expanded; one-line InputError when there is no such
    user or home (Path.expanduser raises RuntimeError, e.g. for "~\\n")."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        raise InputError(f"{what} {text!r}: '~' names no user or home directory here; expected a file path") from None


def _not_a_file(mode: int) -> str | None:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return None if stat.S_ISREG(mode) else "not a regular file"


def _kernel_devices() -> set[int]:
    out = set()
    for root in ("/proc", "/sys"):
        try:
            out.add(os.stat(root).st_dev)
        except OSError:
            pass
    return out


class CappedFile(io.RawIOBase):
    """A regular file read through a byte cap. Sizes are measured by reading, never taken from st_size: a FIFO,
    /dev/zero and the kernel's /proc files all misstate it. Past the cap, reading raises one InputError."""

    def __init__(self, path: Path, where: str, expected: str, limit: int) -> None:
        super().__init__()
        self.where, self.expected, self.limit, self.read_bytes = where, expected, limit, 0
        try:  # non-blocking: opening a FIFO without a writer would wait forever
            self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise InputError(f"{where}: cannot read: file not found (expected {expected})") from None
        except OSError as exc:
            raise InputError(f"{where}: cannot read ({exc.strerror or exc})") from None
        st = os.fstat(self.fd)
        what = _not_a_file(st.st_mode)
        if what is None and st.st_dev in _kernel_devices():
            os.close(self.fd)
            raise InputError(f"{where}: a /proc or /sys file, made up by the kernel as it is read, not a stored file "
                             f"(expected {expected})")
        if what:
            os.close(self.fd)
            raise InputError(f"{where}: is {what}, not a file (expected {expected})")
        os.set_blocking(self.fd, True)
        self.sized_empty = st.st_size == 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n = os.readv(self.fd, [buffer])
        except OSError as exc:
            raise InputError(f"{self.where}: cannot read ({exc.strerror or exc})") from None
        self.read_bytes += n
        if n and self.sized_empty:  # size 0 yet content: a pseudo-file made up as it is read
            raise InputError(f"{self.where}: its size reads as 0 yet it has content (a kernel or generated file, not "
                             f"a stored one); expected {self.expected}")
        if self.read_bytes > self.limit:
            raise InputError(f"{self.where}: larger than {self.limit / 1e6:,.0f} MB (measured by reading); "
                             f"expected {self.expected} under that size")
        return n

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()


def read_capped(path: Path, where: str, expected: str, limit: int) -> bytes:
    """The bytes of PATH, read in chunks up to LIMIT (past it, a one-line InputError); a FIFO, device, directory
    or /proc file is refused before reading."""
    with CappedFile(path, where, expected, limit) as f:
        chunks = []
        while chunk := f.read(1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)


def read_text(path: Path, where: str, expected: str) -> str:
    """A file's text (UTF-8, a byte-order mark dropped), at most MAX_RESULT_BYTES; a device, FIFO or /proc file
    is refused before reading (/dev/zero never ends), binary or UTF-16 text is named as such."""
    try:
        return read_capped(path, where, expected, MAX_RESULT_BYTES).decode("utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{where}: cannot read: file not found (expected {expected})") from None
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text (a binary or UTF-16 file?); expected {expected}") from None
    except OSError as exc:
        raise InputError(f"{where}: cannot read ({exc.strerror or exc})") from None
