"""placeholder"""

from __future__ import annotations

from pathlib import Path

from blockfit.errors import InputError
from blockfit.history.series import Series


def read(path: Path, text: str) -> Series:
    raise InputError(f"--from {path}: azure_monitor is not read yet")
