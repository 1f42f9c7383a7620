"""Reader for /proc/swaps (proc(5)): which files and devices the kernel swaps to.

Calibrate refuses a write test on a swap device; the first line is a header, then one swap area per line
whose first field is its path (spaces escaped as \\040, like mountinfo).
"""

from __future__ import annotations

from blockfit.devices.mountinfo import unescape

SWAPS = "/proc/swaps"


def parse(text: str) -> list[str]:
    """The path of each swap area; the header line and blank lines are skipped."""
    return [unescape(line.split()[0]) for line in text.splitlines()[1:] if line.split()]


def read(path: str = SWAPS) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return parse(fh.read())
