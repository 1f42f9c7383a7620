"""Workload history → plan targets with their origin.

Readers (one module per source) turn iostat, sar, diagnose captures, CSV, AWR and Statspack reports, the
`blockfit sql` exports, SQL Server file stats, CloudWatch / OCI Monitoring / Azure Monitor exports and
`blockfit record` PostgreSQL recordings into one per-interval `Series`; `targets` turns series into targets.
"""

from blockfit.history.series import Sample, Series
from blockfit.history.targets import derive_targets, targets_from_series

__all__ = ["Sample", "Series", "derive_targets", "targets_from_series"]
