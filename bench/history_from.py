"""Benchmark: `plan --from` on a month of hourly AWR history of a 2-instance RAC (1,440 snapshot rows) and on a
1-hour, 1-second PostgreSQL recording (3,600 samples) each in <= 2 s on this machine (issue 23).

Measured side by side in one run, as bench/ does: the whole command (`blockfit plan --from ... --json`, a fresh
process, imports included) and the history part alone in-process (read + targets), against the 2 s budget and
against `plan` with the same targets typed in (`--target-iops/--target-mbps`): the ratio says what reading the
history costs on top of planning. The inputs are written here in the real formats: the spool of `blockfit sql
oracle` and a `blockfit record` recording (a steady 2,000 reads + 500 writes a second on one device).

    .venv/bin/python -m bench.history_from
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from blockfit.history import derive_targets

BLOCKFIT = [sys.executable, "-c", "from blockfit.cli import main; main()"]
PLAN = ["plan", "--cloud", "oci", "--capacity", "2T", "--instance", "VM.Standard.E4.Flex:16", "--json"]
BUDGET_S = 2.0
REPEATS = 3


def awr_spool(path: Path) -> None:
    """30 days of hourly snapshots, 2 instances: 1,442 BFIO rows (721 snapshots each, 1,440 intervals)."""
    start = datetime(2025, 1, 1)
    lines = ["BFIO-HEADER,1,awr,PROD,4242,2"]
    for inst in (1, 2):
        cum = [0.0] * 4
        for k in range(721):
            e = start + timedelta(hours=k)
            busy = 3 if 9 <= e.hour < 17 else 1
            r = 1500.0 * busy / inst
            cum = [cum[0] + r * 3600, cum[1] + r * 900, cum[2] + r * 3600 * 8192, cum[3] + r * 900 * 16384]
            lines.append(f"BFIO,{inst},{k + 1},{e - timedelta(hours=1):%Y-%m-%dT%H:%M:%S},{e:%Y-%m-%dT%H:%M:%S},"
                         f"2024-12-01T00:00:00,{cum[0]:.0f},{cum[1]:.0f},{cum[2]:.0f},{cum[3]:.0f},"
                         f"{r * 3:.1f},{r * 0.75:.1f},{r * 3 * 8192:.1f},{r * 0.75 * 16384:.1f}")
    path.write_text("\n".join(lines) + "\n")


def pg_recording(path: Path) -> None:
    """1 hour at 1 s: header + 3,601 samples of one device and the server's counters."""
    header = {"type": "header", "format": "blockfit-pg-recording", "version": 1, "host": "bench",
              "started": "2025-01-01T00:00:00.000000Z", "interval_s": 1.0, "server_version": 160004,
              "server_counters": "pg_stat_io", "block_size": 8192, "postmaster_start": "2025-01-01 00:00:00+00",
              "data_directory": "/var/lib/postgresql/16/main", "monotonic_t0": 0.0,
              "devices": [{"name": "nvme1n1", "major_minor": "259:1", "paths": ["/var/lib/postgresql/16/main"]}]}
    lines = [json.dumps(header)]
    for k in range(3601):
        r, w = 2000 * k, 500 * k
        disk = (f"259       1 nvme1n1 {r} 0 {r * 16} {r // 10} {w} 0 {w * 32} {w // 5} 0 {k * 900} {k * 1000} "
                "0 0 0 0 0 0")
        pg = {"reads": 2600.0 * k, "read_bytes": 2600.0 * 8192 * k, "writes": 900.0 * k,
              "write_bytes": 900.0 * 8192 * k, "extends": 10.0 * k, "reset": ""}
        lines.append(json.dumps({"type": "sample", "t": float(k), "time": f"2025-01-01T00:{k // 60 % 60:02d}:"
                                 f"{k % 60:02d}.000000Z", "pg": pg, "diskstats": [disk]}))
    path.write_text("\n".join(lines) + "\n")


def timed(argv: list[str]) -> tuple[float, float, dict[str, object]]:
    """Wall seconds, CPU seconds (user + system of the child: what a busy machine does not inflate) and output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, json.loads(out.stdout)


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        spool, rec = Path(work) / "io_history.csv", Path(work) / "rec.jsonl"
        awr_spool(spool)
        pg_recording(rec)
        print(f"{'history':<34} {'rows':>6} {'plan --from':>12} {'CPU':>7} {'budget':>7} {'history only':>12} "
              f"{'plan, typed':>12} {'CPU':>7} {'from/typed':>10}")
        for name, path, rows, intervals in (("AWR spool, 2-instance RAC, 30 d", spool, 1442, 720),
                                            ("PostgreSQL recording, 1 h at 1 s", rec, 3601, 3600)):
            cmd, cmd_cpu, inproc, typed, typed_cpu = [], [], [], [], []
            for _ in range(REPEATS):
                t, cpu, plan = timed([*BLOCKFIT, *PLAN, "--from", str(path), "--percentile", "p99"])
                cmd.append(t)
                cmd_cpu.append(cpu)
                req = plan["requirements"]  # type: ignore[index]
                t0 = time.perf_counter()
                derive_targets(path, percentile=99)
                inproc.append(time.perf_counter() - t0)
                t, cpu, _ = timed([*BLOCKFIT, *PLAN, "--target-iops", f"{req['target_iops']:.1f}",
                                   "--target-mbps", f"{req['target_mbps']:.2f}"])
                typed.append(t)
                typed_cpu.append(cpu)
            c, cc, i = statistics.median(cmd), statistics.median(cmd_cpu), statistics.median(inproc)
            ty, tyc = statistics.median(typed), statistics.median(typed_cpu)
            print(f"{name:<34} {rows:>6,} {c:>10.2f} s {cc:>5.2f} s {cc / BUDGET_S:>6.2f}x {i:>10.2f} s "
                  f"{ty:>10.2f} s {tyc:>5.2f} s {cc / tyc:>9.2f}x")
            assert req["history"]["samples"] == intervals, req["history"]["samples"]  # type: ignore[index]
        print(f"(medians of {REPEATS}; 'budget' is plan --from's CPU seconds over {BUDGET_S:g} s: at most 1.00x "
              "passes; wall seconds follow the machine's load)")


if __name__ == "__main__":
    main()
