"""Tiny sysfs readers shared by diagnose (device stack, queue settings) and measure (device facts)."""

from __future__ import annotations

from pathlib import Path


def read_text(path: Path) -> str | None:
    """A sysfs attribute's text, stripped; None where it is absent or unreadable."""
    try:
        return path.read_text().strip()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    text = read_text(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
