"""OLTP with pgbench: the TPC-B-like default script and select-only, latency percentiles from its log.

Why pgbench's per-transaction log (``-l``): pgbench prints only the mean latency; the log has one line per
transaction (``client_id transaction_no time_us script_no epoch epoch_us``), from which p50/p95/p99 are exact.
Throughput is pgbench's own "tps = … (without initial connection time)". pgbench runs outside the server's
memory cgroup, so its memory never squeezes the server's cache.
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path
from typing import Literal

from blockfit import proc
from blockfit.dbbench.cluster import Cluster
from blockfit.errors import EnvironmentProblem

Mode = Literal["select", "tpcb"]
_TPS = re.compile(r"^tps = ([0-9.]+) \(without initial connection time\)", re.M)


def _pgbench(cluster: Cluster, args: list[str], timeout: float) -> str:
    out = proc.run([str(cluster.bindir / "pgbench"), *args], env=cluster.env(), timeout=timeout)
    if out.returncode != 0:
        tail = " | ".join((out.stderr or out.stdout).strip().splitlines()[-3:])
        raise EnvironmentProblem(f"pgbench {' '.join(args[:3])} on {cluster.label} failed "
                                 f"(exit {out.returncode}): {tail}")
    return out.stdout


def init(cluster: Cluster, scale: int) -> float:
    """Create and fill the pgbench tables at ``scale`` (100,000 accounts each); returns seconds taken."""
    t0 = time.monotonic()
    _pgbench(cluster, ["-i", "-s", str(scale), "-q"], timeout=6 * 3600)
    return time.monotonic() - t0


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of an ascending list."""
    if not sorted_values:
        return 0.0
    rank = max(1, min(len(sorted_values), int(-(-p * len(sorted_values) // 100))))
    return sorted_values[rank - 1]


def read_latencies(prefix: Path) -> list[float]:
    """Latencies in ms from every per-thread log file pgbench wrote under ``prefix``."""
    out: list[float] = []
    for log in prefix.parent.glob(prefix.name + ".*"):
        for line in log.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[2].isdigit():
                out.append(int(parts[2]) / 1000.0)
        log.unlink()
    out.sort()
    return out


def run(cluster: Cluster, mode: Mode, clients: int, seconds: float, workdir: Path) -> dict[str, float]:
    """One timed pgbench run; figures: tps, transactions, latency mean/p50/p95/p99 in ms."""
    prefix = workdir / f"pgbench-{cluster.label}-{mode}"
    threads = max(1, min(clients, 4))
    args = ["-c", str(clients), "-j", str(threads), "-T", str(max(1, round(seconds))), "-l",
            f"--log-prefix={prefix}"]
    if mode == "select":
        args += ["-S", "-n"]
    out = _pgbench(cluster, args, timeout=seconds + 600)
    m = _TPS.search(out)
    if m is None:
        raise EnvironmentProblem(f"pgbench on {cluster.label}: no 'tps =' line in its output: {out[-200:]!r}")
    lat = read_latencies(prefix)
    return {"tps": float(m.group(1)), "transactions": float(len(lat)),
            "latency_mean_ms": statistics.fmean(lat) if lat else 0.0,
            "latency_p50_ms": percentile(lat, 50), "latency_p95_ms": percentile(lat, 95),
            "latency_p99_ms": percentile(lat, 99)}
