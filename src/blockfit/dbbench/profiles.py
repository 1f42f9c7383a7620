"""Bench profiles: how big and how long, sized so the data is several times the server's memory bound.

quick: fits a two-layout lab A/B of select-only OLTP, DSS and load (TCG, 2 vCPUs) in under 10 minutes with
boot and loading; scale 24 is ≈360 MB of
pgbench data against a 128 MiB memory cgroup (shared_buffers 16 MB): ≈3x. Its DSS table, 10,000 rows of
≈1.9 KB (≈20 MB), is small, but two sessions' sorts and hashes write ≈250 MB of temp files a run, most of it
through to the device (see dss.py). Load steps of 2,000 and 8,000 rows: enough for rows/s per step, WAL and
checkpoints; load is fsync-bound in the lab and has no winner to find, so it always runs to --repeat.
standard: a real server's A/B: scale 100 (≈1.5 GB) against 256 MiB, a 250,000-row DSS table (≈500 MB),
minute-long runs, up to 10 repeats.
"""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024**2


@dataclass(frozen=True)
class Profile:
    name: str
    memory_limit_bytes: int
    shared_buffers: str
    oltp_scale: int
    oltp_clients: int
    run_seconds: float
    warmup_seconds: float
    dss_rows: int
    load_steps: tuple[int, ...]
    repeat: int

    def server_settings(self) -> dict[str, str]:
        """Server settings on the postgres command line (the rest are PostgreSQL's defaults)."""
        return {"shared_buffers": self.shared_buffers, "max_connections": str(self.oltp_clients + 10),
                "max_wal_size": "256MB", "min_wal_size": "64MB", "dynamic_shared_memory_type": "posix",
                "max_parallel_workers_per_gather": "0", "jit": "off", "log_min_messages": "warning"}


PROFILES: dict[str, Profile] = {
    "quick": Profile("quick", 128 * MiB, "16MB", oltp_scale=24, oltp_clients=8, run_seconds=12, warmup_seconds=8,
                     dss_rows=10_000, load_steps=(2_000, 8_000), repeat=5),
    "standard": Profile("standard", 256 * MiB, "32MB", oltp_scale=100, oltp_clients=16, run_seconds=60,
                        warmup_seconds=30, dss_rows=250_000, load_steps=(10_000, 100_000, 1_000_000), repeat=10),
}
