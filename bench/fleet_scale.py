"""Benchmark: `blockfit fleet --from prometheus+…` on a fleet of 500 hosts × 30 days at 1-minute steps, and how its
time and memory grow from 50 to 500 hosts, side by side in one run.

History: node_exporter's four diskstats counters per host, one sample a minute (the step; Prometheus 2.x range
selectors include both ends, so a 1 m rate sees two samples), 86.4 million samples in all, generated once into a
TSDB block (promtool) in the cache directory and reused (`--regenerate` to rebuild). Each host's demand is a
daily cycle with noise around a level drawn from a log-normal; its p99 (the truth) is computed from the integer
counters written. A mapping file gives every host one of a few standard layouts.

Each fleet size is a separate `blockfit fleet` process against one Prometheus on 127.0.0.1; its wall time, the
peak memory of blockfit (the sum of the PSS of the CLI and its planner processes, sampled every 0.1 s) and the
Prometheus server's RSS are printed, with every host's targets checked against the truth (within 1 %).

    .venv/bin/python -m bench.fleet_scale [--hosts 500] [--days 30] [--sizes 50,100,200,500]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from blockfit.fleet.query import READ_BYTES, READS, WRITE_BYTES, WRITES
from blockfit.testbed.promserver import block_hours, create_blocks, prometheus_server

STEP = 60
IO = 16384
LAYOUTS = [("2x1000G@balanced", "VM.Standard.E4.Flex:8"), ("4x1000G@balanced", "VM.Standard.E4.Flex:8"),
           ("1x2000G@higher", "VM.Standard.E4.Flex:8"), ("8x500G@higher", "VM.Standard.E4.Flex:16"),
           ("4x2000G@lower-cost", "VM.Standard.E4.Flex:16")]
# the first N hosts, by instance name (db-000:9100 ...)
SUBSETS = {50: "db-0[0-4][0-9]:9100", 100: "db-0[0-9][0-9]:9100", 200: "db-[01][0-9][0-9]:9100"}


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "blockfit" / "bench-fleet"


def host_increments(i: int, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integer increments per step of reads, writes, read bytes and written bytes for host I."""
    rng = np.random.default_rng(1000 + i)
    level = float(np.clip(rng.lognormal(np.log(6000), 1.0), 150, 120_000))
    t = np.arange(steps) * STEP
    cycle = 0.55 + 0.45 * np.sin(2 * np.pi * (t / 86400.0 + rng.uniform()))
    iops = level * np.clip(cycle + rng.normal(0, 0.12, steps), 0.02, None)
    share = rng.uniform(0.5, 0.9)
    reads = np.round(iops * share * STEP).astype(np.int64)
    writes = np.round(iops * (1 - share) * STEP).astype(np.int64)
    return reads, writes, reads * IO, writes * IO


def generate(dest: Path, hosts: int, days: int) -> dict:
    """The TSDB block, the mapping file and the truth (p99 per host) in DEST; returns the metadata."""
    steps = days * 86400 // STEP
    hours = block_hours(2 * steps * STEP)            # history inside one aligned block: promtool parses it once
    end = int(time.time() // (hours * 3600) * hours * 3600) - STEP
    start = end - steps * STEP
    work = Path(tempfile.mkdtemp(prefix="blockfit-bench-fleet-", dir=dest.parent))
    try:
        om = work / "history.om"
        truth: dict[str, dict[str, float]] = {}
        t0 = time.monotonic()
        times = (start + np.arange(steps + 1) * STEP).astype(str)
        with open(om, "w") as fh:
            for metric, k in ((READS, 0), (WRITES, 1), (READ_BYTES, 2), (WRITE_BYTES, 3)):
                fh.write(f"# TYPE {metric.removesuffix('_total')} counter\n")
                for i in range(hosts):
                    inc = host_increments(i, steps)
                    name = f"db-{i:03d}:9100"
                    if k == 0:
                        total = (inc[0] + inc[1]) / STEP
                        truth[name] = {"iops": float(np.percentile(total, 99)),
                                       "mbps": float(np.percentile((inc[2] + inc[3]) / STEP / 1e6, 99))}
                    values = np.concatenate(([10**6], 10**6 + np.cumsum(inc[k]))).astype(str)
                    prefix = f'{metric}{{device="dm-3",instance="{name}"}} '
                    fh.write("".join(np.char.add(np.char.add(np.char.add(prefix, values), " "),
                                                 np.char.add(times, "\n"))))
            fh.write("# EOF\n")
        size = om.stat().st_size
        print(f"generated {hosts} hosts x {days} d: {size / 1e9:.1f} GB of OpenMetrics in "
              f"{time.monotonic() - t0:.0f} s; promtool ...", flush=True)
        t0 = time.monotonic()
        create_blocks(om, work / "data", steps * STEP, hours)
        print(f"TSDB block written in {time.monotonic() - t0:.0f} s", flush=True)
        om.unlink()
        meta = {"hosts": hosts, "days": days, "start": start, "end": end, "truth": truth}
        (work / "meta.json").write_text(json.dumps(meta))
        if dest.exists():
            shutil.rmtree(dest)
        work.rename(dest)
        return meta
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tree_pss(pid: int) -> int:
    """Bytes of PSS of PID and its descendants (forked planners share pages: PSS counts them once)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        todo += [int(c) for c in children]
    return total


def rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of PID so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mapping(path: Path, hosts: int) -> Path:
    """The mapping file of the first HOSTS hosts: each one of a few standard layouts and instances."""
    path.write_text("".join(f'[hosts."db-{i:03d}:9100"]\nlayout = "{LAYOUTS[i % len(LAYOUTS)][0]}"\n'
                            f'instance = "{LAYOUTS[i % len(LAYOUTS)][1]}"\n\n' for i in range(hosts)))
    return path


def run(url: str, data: Path, meta: dict, match: str, out: Path, server_pid: int, hosts: int) -> dict:
    argv = [sys.executable, "-c", "from blockfit.cli import main; main()", "fleet", "--from", url, "--match", match,
            "--range", f"{meta['days']}d", "--step", "1m", "--until", str(meta["end"]), "--devices", "dm-3",
            "--percentile", "99", "--hosts", str(mapping(out.with_suffix(".toml"), hosts)), "--out", str(out),
            "--json"]
    peak = {"pss": 0, "server": 0}
    server_cpu, own = cpu_s(server_pid), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak["pss"] = max(peak["pss"], tree_pss(proc.pid))
            peak["server"] = max(peak["server"], rss(server_pid))
            time.sleep(0.1)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        _, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        done.set()
        sampler.join()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)   # the CLI and the planners it reaped
    cpu = after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime
    server_cpu = cpu_s(server_pid) - server_cpu
    if proc.returncode != 0:
        raise SystemExit(f"blockfit fleet exited {proc.returncode}: {err.decode()[-2000:]}")
    r = json.loads(out.read_text())
    worst = max(abs(h["targets"]["iops"] / meta["truth"][h["host"]]["iops"] - 1) for h in r["hosts"])
    worst_mb = max(abs(h["targets"]["mbps"] / meta["truth"][h["host"]]["mbps"] - 1) for h in r["hosts"])
    return {"hosts": len(r["hosts"]), "wall": wall, "pss": peak["pss"], "server": peak["server"], "cpu": cpu,
            "server_cpu": server_cpu,
            "queries": r["queries"], "worst": max(worst, worst_mb), "summary": r["summary"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=500)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--sizes", default="50,100,200,500")
    ap.add_argument("--regenerate", action="store_true")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    data = cache_root() / f"{args.hosts}x{args.days}d"
    data.parent.mkdir(parents=True, exist_ok=True)
    if args.regenerate or not (data / "meta.json").exists():
        meta = generate(data, args.hosts, args.days)
    else:
        meta = json.loads((data / "meta.json").read_text())
    print(f"history: {data} ({meta['hosts']} hosts x {meta['days']} d at 1 min; rm -r it to free the space)")
    sizes = [int(s) for s in args.sizes.split(",")]
    matches = {n: f'instance=~"{SUBSETS[n]}"' if n in SUBSETS else "" for n in sizes}
    if any(n not in SUBSETS and n != meta["hosts"] for n in sizes):
        raise SystemExit(f"--sizes: each one of {', '.join(map(str, SUBSETS))} or --hosts")
    load = os.getloadavg()[0]
    rows = []
    with prometheus_server(data / "data") as srv, tempfile.TemporaryDirectory(prefix="blockfit-bench-") as tmp:
        for n in sizes:
            row = run(srv.url, data, meta, matches[n], Path(tmp) / f"fleet-{n}.json", srv.proc.pid, n)
            rows.append(row)
            print(f"  {row['hosts']:4d} hosts: {row['wall']:6.1f} s, CPU blockfit {row['cpu']:.0f} s + server "
                  f"{row['server_cpu']:.0f} s, blockfit peak {row['pss'] / 2**20:.0f} MiB (PSS), server RSS "
                  f"{row['server'] / 2**20:.0f} MiB, {row['queries']} queries, worst target error "
                  f"{100 * row['worst']:.2g} %", flush=True)
    base = rows[0]
    print(f"\nload average at start {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{'hosts':>6} {'x hosts':>8} {'wall s':>8} {'x wall':>7} {'CPU s':>7} {'x CPU':>6} {'srv CPU s':>10} "
          f"{'x srv':>6} {'MiB':>6} {'x mem':>6}")
    for row in rows:
        print(f"{row['hosts']:>6} {row['hosts'] / base['hosts']:8.1f} {row['wall']:8.1f} "
              f"{row['wall'] / base['wall']:7.2f} {row['cpu']:7.1f} {row['cpu'] / base['cpu']:6.2f} "
              f"{row['server_cpu']:10.1f} {row['server_cpu'] / base['server_cpu']:6.2f} {row['pss'] / 2**20:6.0f} "
              f"{row['pss'] / base['pss']:6.2f}")
    last = rows[-1]
    s = last["summary"]
    print(f"\n{last['hosts']} hosts: {s['under']} under, {s['within']} within, {s['over']} over; now "
          f"${s['cost_now']['total']:,.2f} vs recommended ${s['cost_recommended']['total']:,.2f} a month")
    cpus = os.cpu_count() or 1
    used = last["cpu"] + last["server_cpu"]
    print(f"CPU: blockfit {last['cpu']:.0f} s + server {last['server_cpu']:.0f} s = {used:.0f} s in "
          f"{last['wall']:.0f} s wall: the run had {used / last['wall']:.2f} of the {cpus} CPUs on average (the "
          f"rest went to other work; load average {os.getloadavg()[0]:.1f} at the end); with them all to itself "
          f"(blockfit's planners and the server's queries both run one per CPU) about {used / cpus:.0f} s")
    print(f"acceptance: {last['hosts']} hosts in {last['wall']:.1f} s (<= 60: {last['wall'] <= 60}), peak "
          f"{last['pss'] / 2**30:.2f} GiB (<= 1: {last['pss'] <= 2**30}), targets within 1 %: {last['worst'] <= 0.01}")


if __name__ == "__main__":
    main()
