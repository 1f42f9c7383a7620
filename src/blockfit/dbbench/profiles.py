"""Bench profiles: how big and how long, sized so the data is several times the server's memory bound.

quick: fits a two-layout lab A/B of select-only OLTP, DSS and load (TCG, 2 vCPUs) in about 10 minutes with
boot and loading; scale 24 is ≈360 MB of
pgbench data against a 128 MiB memory cgroup (shared_buffers 16 MB): ≈3x. Its DSS table, 10,000 rows of
≈1.9 KB (≈20 MB), is small, but two sessions' sorts and hashes write ≈250 MB of temp files a run, most of it
through to the device (see dss.py). Load steps of 2,000 and 8,000 rows: enough for rows/s per step, WAL and
checkpoints.
standard: a real server's A/B: scale 100 (≈1.5 GB) against 256 MiB, a 250,000-row DSS table (≈500 MB),
minute-long runs, up to 12 rounds.

How long each part runs is decided by evidence, within budgets:
- warm-up: windows (OLTP; one warm-up query or load step for DSS and load) until the mean of the last
  ``steady_windows`` is within ``steady_pct`` of the mean of those before them, on both throughput and device
  I/Os per unit of work, or ``warmup_budget_s`` per layout and measure is spent (the result says which). An OLTP
  window lasts ``warmup_seconds`` the first time, then long enough for ``window_ios`` device I/Os at the rate
  the window before it ran, at most ``longest_window()``. A cold 128 MiB cache refills in
  about 65 s at 250 read IOPS (measured: steady after 51-57 s at 200-250 IOPS), so the quick budget holds it
  with room.
- measured runs: an OLTP run lasts long enough for ``run_ios`` device I/Os at the rate its layout's warm-up
  ended with, never less than ``run_seconds`` nor more than ``longest_run()``. Why I/Os, not seconds: the
  noise of a run is how well it averages its cache's state, which it does by the pages it reads. On
  caps 250 and 1,000 read IOPS, 12 s runs: both layouts at exactly their caps every run, shared-buffer misses
  flat (1.83-1.89 per transaction), but the slower layout's page-cache hit ratio 0.24-0.35 (one run 0.0) run
  to run, its device I/Os per transaction 1.12-1.51 and its TPS scattered by 8.5 % (CV) with no trend, while
  the faster one's, 12,000 I/Os a run against 3,000, held 0.31-0.33 and 1.0 %. Its first and last runs were
  then as far apart as the noise put them (+15, -6, +9, +7, -1 % in 5 benches). Runs of 10,000 I/Os (40 s at
  250 IOPS), measured the same way, 5 benches: its TPS CV 1.0-3.0 %, first to last -1, -7, -3, -3, -4 %,
  ratios 3.97-4.08 at ±2-7 % in 4 pairs, 498 s (median; 422 s with 12 s runs, ±8-9 % in 7-8 pairs).
- the budgets bound both: a run or window never lasts more than the share of its budget that leaves room for
  what the budget must hold (``longest_run``, ``longest_window``), so a layout too slow for its I/Os in that
  time runs shorter, and the result warns. Why: the lab's single volume runs select-only at 50 IOPS, where
  10,000 I/Os take 200 s; with runs of 60 s (5x, the first bound tried) two layouts' rounds spent the 300 s
  budget in 2 pairs and the lab's ratio came out 3.97 [0.31, 50.79], no verdict. Quick runs now last at most
  24 s: 6,000 I/Os at 250 IOPS, 1,200 in the lab, whose throttles deliver a steadier rate (its single
  volume's runs scattered 2 % at 600 I/Os). Measured at 24 s, 5 benches: the slower layout's TPS CV 1.2-2.3 %,
  first to last within 3 %, ratios 3.92-4.02 at ±3-6 % in 4 pairs, 426 s (median).
- measured rounds: from stats.MIN_PAIRS on, until the ratio's interval is within ±``precision_pct`` or
  ``repeat`` rounds or ``rounds_budget_s`` per measure are spent. With 2-5 % noise per pair the quick
  target (±10 %) takes 4-5 rounds (stats simulation); DSS in the lab, noisier, may end at the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024**2
# The part of a budget runs and windows may fill: the rest is for what is not the workload (evidence taken around
# each run, connecting) and for the rounds' stop rule, which ends when the next round would overrun.
SHARE = 0.8


@dataclass(frozen=True)
class Profile:
    name: str
    memory_limit_bytes: int
    shared_buffers: str
    oltp_scale: int
    oltp_clients: int
    run_seconds: float
    warmup_seconds: float        # one OLTP warm-up window
    dss_rows: int
    load_steps: tuple[int, ...]
    repeat: int                  # most measured rounds per measure
    prime_seconds: float = 8.0   # select-only before the caps apply (see runner)
    steady_windows: int = 2      # a block: the last 2 windows against the 2 before
    steady_pct: float = 5.0
    warmup_budget_s: float = 120.0
    precision_pct: float = 10.0
    rounds_budget_s: float = 300.0
    run_ios: int = 10_000        # an OLTP run lasts long enough for this many device I/Os (see above) ...
    window_ios: int = 3_000      # ... and a warm-up window for this many, within the budgets' shares:
    planned_pairs: int = 5       # the rounds budget holds this many rounds of every layout

    def longest_window(self) -> float:
        """An OLTP warm-up window's most seconds: the warm-up budget holds the 2 x steady_windows windows a
        steady verdict needs."""
        return max(self.warmup_seconds, SHARE * self.warmup_budget_s / (2 * self.steady_windows))

    def longest_run(self, layouts: int) -> float:
        """An OLTP measured run's most seconds: the rounds budget holds planned_pairs rounds of ``layouts``
        runs, the pairs a ±10 % target takes at 2-5 % noise per pair (see above)."""
        return max(self.run_seconds, SHARE * self.rounds_budget_s / (max(layouts, 1) * self.planned_pairs))

    def server_settings(self) -> dict[str, str]:
        """Server settings on the postgres command line (the rest are PostgreSQL's defaults)."""
        return {"shared_buffers": self.shared_buffers, "max_connections": str(self.oltp_clients + 10),
                "max_wal_size": "256MB", "min_wal_size": "64MB", "dynamic_shared_memory_type": "posix",
                "max_parallel_workers_per_gather": "0", "jit": "off", "log_min_messages": "warning"}


PROFILES: dict[str, Profile] = {
    "quick": Profile("quick", 128 * MiB, "16MB", oltp_scale=24, oltp_clients=8, run_seconds=12, warmup_seconds=6,
                     dss_rows=10_000, load_steps=(2_000, 8_000), repeat=10),
    "standard": Profile("standard", 256 * MiB, "32MB", oltp_scale=100, oltp_clients=16, run_seconds=60,
                        warmup_seconds=20, dss_rows=250_000, load_steps=(10_000, 100_000, 1_000_000), repeat=12,
                        prime_seconds=30, warmup_budget_s=900, rounds_budget_s=1800),
}
