"""fio json+ latency bins: merge them across jobs and hosts, and read percentiles from the merged counts.

Each bin maps a latency (ns, the bucket's representative value) to an I/O count. Counts add, so the merged
histogram of several jobs or hosts gives true combined percentiles, which per-job percentile values cannot.
``percentile`` follows fio's own rule (stat.c): the first bucket whose cumulative count reaches p% of all I/Os,
so a single job's merged histogram reproduces fio's printed percentile exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LatencyHistogram:
    """Latency counts by bucket value in nanoseconds, plus the exact sum for the mean."""

    bins: dict[int, int] = field(default_factory=dict)
    total_ns: float = 0.0  # sum of latencies (from fio's mean × N), for an exact average

    @classmethod
    def from_fio(cls, lat: Mapping[str, Any]) -> LatencyHistogram:
        """From one direction's ``lat_ns`` object of fio json+ (needs ``bins``; mean × N gives the sum)."""
        bins = {int(k): int(v) for k, v in (lat.get("bins") or {}).items() if int(v) > 0}
        n = sum(bins.values())
        return cls(bins=bins, total_ns=float(lat.get("mean", 0.0)) * n)

    @classmethod
    def merged(cls, parts: Iterable[LatencyHistogram]) -> LatencyHistogram:
        out = cls()
        for part in parts:
            out.add(part)
        return out

    def add(self, other: LatencyHistogram) -> None:
        for k, v in other.bins.items():
            self.bins[k] = self.bins.get(k, 0) + v
        self.total_ns += other.total_ns

    @property
    def count(self) -> int:
        return sum(self.bins.values())

    def mean_ns(self) -> float:
        n = self.count
        return self.total_ns / n if n else 0.0

    def percentile_ns(self, p: float) -> float:
        """Latency (ns) at percentile p (0 < p ≤ 100); 0 when empty."""
        if not 0 < p <= 100:
            raise ValueError(f"percentile {p}: expected 0 < p <= 100")
        n = self.count
        if n == 0:
            return 0.0
        threshold = p / 100.0 * n
        cumulative = 0
        keys = sorted(self.bins)
        for k in keys:
            cumulative += self.bins[k]
            if cumulative >= threshold:
                return float(k)
        return float(keys[-1])
