"""Workload history (iostat, sar, diagnose captures, CSV) → plan targets with their origin."""

from blockfit.history.targets import derive_targets

__all__ = ["derive_targets"]
