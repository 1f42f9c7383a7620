"""A real Prometheus for tests and benches: history generated with known percentiles, loaded with promtool, served
on 127.0.0.1 from a temporary data directory, and node_exporter for a live scrape of this machine.

Generated history: each host's total IOPS per step is given (so its percentile is known before Prometheus sees
it); the four node_exporter counters grow linearly within each step at that rate (split into reads and writes by
the host's read share, bytes by its I/O size), sampled every `scrape_s`. A rate over any step then equals the
step's given rate exactly, however the server places its window. Written as OpenMetrics and turned into TSDB
blocks by `promtool tsdb create-blocks-from openmetrics` (Debian's `prometheus` package).

Servers run in their own process group, die with their parent (PR_SET_PDEATHSIG) and are stopped, with their
temporary files, when the context exits: normally, on an error or on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np

from blockfit.errors import EnvironmentProblem
from blockfit.fleet.query import READ_BYTES, READS, WRITE_BYTES, WRITES
from blockfit.proc import kill_group, start

PROMETHEUS, PROMTOOL, NODE_EXPORTER = "prometheus", "promtool", "prometheus-node-exporter"


@dataclass
class SyntheticHost:
    """One host's generated history: total IOPS per step on its database devices (split evenly between them)."""

    instance: str
    iops: np.ndarray
    read_share: float = 0.7
    io_size: int = 16384
    devices: tuple[str, ...] = ("dm-3",)
    idle_devices: tuple[str, ...] = ("sda",)       # present, busy with something else, never selected
    reset_at: int | None = None                     # the counters restart from 0 in this step (a reboot)
    missing: frozenset[str] = frozenset()           # metrics this host does not export
    mounts: dict[str, str] = field(default_factory=dict)   # mount point → filesystem device (/dev/mapper/...)
    dm_names: dict[str, str] = field(default_factory=dict)  # dm-N → device-mapper name
    labels: dict[str, str] = field(default_factory=lambda: {"job": "node"})

    def mbps(self) -> np.ndarray:
        return self.iops * self.io_size / 1e6


def write_openmetrics(out: IO[str], hosts: Sequence[SyntheticHost], start: int, step_s: int, scrape_s: int) -> int:
    """Write every host's counters from START (the counters' first sample) over len(iops) steps; returns lines."""
    per_step = step_s // scrape_s
    if per_step * scrape_s != step_s:
        raise ValueError("scrape_s must divide step_s")
    lines = 0
    families = ((READS, "node_disk_reads_completed"), (WRITES, "node_disk_writes_completed"),
                (READ_BYTES, "node_disk_read_bytes"), (WRITE_BYTES, "node_disk_written_bytes"))
    for metric, family in families:
        out.write(f"# TYPE {family} counter\n")
        for h in hosts:
            if metric in h.missing:
                continue
            for dev in h.devices:
                lines += _series(out, metric, h, dev, _rates(metric, h) / len(h.devices), start, step_s, per_step)
            for dev in h.idle_devices:
                lines += _series(out, metric, h, dev, np.full(len(h.iops), 5.0), start, step_s, per_step)
    out.write("# TYPE node_filesystem_size_bytes gauge\n")
    for h in hosts:
        for mount, fs_dev in h.mounts.items():
            labels = _labels(h, device=fs_dev, mountpoint=mount, fstype="xfs")
            lines += _gauge(out, "node_filesystem_size_bytes", labels, 2.0**40, start, step_s, len(h.iops))
    out.write("# TYPE node_disk_device_mapper_info gauge\n")
    for h in hosts:
        for dev, name in h.dm_names.items():
            labels = _labels(h, device=dev, name=name)
            lines += _gauge(out, "node_disk_device_mapper_info", labels, 1.0, start, step_s, len(h.iops))
    out.write("# EOF\n")
    return lines


def _rates(metric: str, h: SyntheticHost) -> np.ndarray:
    share = h.read_share if metric in (READS, READ_BYTES) else 1 - h.read_share
    per_io = h.io_size if metric in (READ_BYTES, WRITE_BYTES) else 1
    return h.iops * share * per_io


def _labels(h: SyntheticHost, **extra: str) -> str:
    pairs = {**h.labels, "instance": h.instance, **extra}
    return ",".join(f'{k}="{v}"' for k, v in sorted(pairs.items()))


def _series(out: IO[str], metric: str, h: SyntheticHost, device: str, rates: np.ndarray, start: int, step_s: int,
            per_step: int) -> int:
    """Counter samples: linear within each step at that step's rate, a sample every step_s / per_step seconds."""
    inc = np.repeat(rates * step_s / per_step, per_step)            # increase between consecutive samples
    values = 1e6 + np.concatenate(([0.0], np.cumsum(inc)))
    if h.reset_at is not None:
        k = h.reset_at * per_step                                   # restart from 0 after the step's first sample
        values[k + 1:] -= values[k]
    times = start + np.arange(len(values)) * (step_s // per_step)
    prefix = f"{metric}{{{_labels(h, device=device)}}} "
    out.write("".join(f"{prefix}{v!r} {t}\n" for v, t in zip(values.tolist(), times.tolist(), strict=True)))
    return len(values)


def _gauge(out: IO[str], metric: str, labels: str, value: float, start: int, step_s: int, steps: int) -> int:
    prefix = f"{metric}{{{labels}}} {value!r} "
    out.write("".join(f"{prefix}{start + k * step_s}\n" for k in range(steps + 1)))
    return steps + 1


def block_hours(range_s: int) -> int:
    """A block duration (a multiple of the 2 h base block) longer than the range."""
    hours = max(2, -(-range_s // 3600) + 2)
    return hours + hours % 2


def create_blocks(openmetrics: Path, data_dir: Path, range_s: int, hours: int | None = None) -> None:
    """promtool → TSDB blocks in DATA_DIR, blocks of HOURS (default: longer than the range). promtool parses the
    whole file once per block window its samples touch: history inside one window is parsed once."""
    if shutil.which(PROMTOOL) is None:
        raise EnvironmentProblem(f"{PROMTOOL} not found (install Debian's prometheus package)")
    hours = hours or block_hours(range_s)
    proc = subprocess.run([PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", "--quiet",
                           f"--max-block-duration={hours}h", str(openmetrics), str(data_dir)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise EnvironmentProblem(f"promtool create-blocks-from openmetrics failed: {proc.stderr.strip()[-500:]}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running server: its --from URL, port and process."""

    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path


def _start(argv: list[str], log: Path, ready_path: str, port: int, what: str,
           timeout_s: float = 60.0) -> subprocess.Popen[bytes]:
    """Start ARGV in its own process group and wait until GET READY_PATH answers 200; killed if it never does."""
    with open(log, "wb") as fh:
        proc = start(argv, stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                tail = log.read_text(errors="replace").strip().splitlines()[-3:]
                raise EnvironmentProblem(f"{what} exited with {proc.returncode}: {' | '.join(tail)}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{ready_path}", timeout=2) as resp:
                    if resp.status == 200:
                        return proc
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise EnvironmentProblem(f"{what} not ready on 127.0.0.1:{port} after {timeout_s:g} s")
            time.sleep(0.2)
    except BaseException:
        kill_group(proc)
        raise


@contextlib.contextmanager
def prometheus_server(data_dir: Path | None = None, scrape: Sequence[str] = (), scrape_interval_s: float = 1.0,
                      extra_args: Sequence[str] = ()) -> Iterator[Server]:
    """Prometheus on 127.0.0.1 (a free port) over DATA_DIR (a fresh temporary one when None, removed after),
    scraping SCRAPE targets (host:port) every scrape_interval_s; stopped on exit, error or Ctrl-C."""
    if shutil.which(PROMETHEUS) is None:
        raise EnvironmentProblem(f"{PROMETHEUS} not found (install Debian's prometheus package)")
    work = Path(tempfile.mkdtemp(prefix="blockfit-prometheus-"))
    try:
        data = data_dir or work / "data"
        config = work / "prometheus.yml"
        jobs = "" if not scrape else (
            "scrape_configs:\n  - job_name: node\n    static_configs:\n      - targets: ["
            + ", ".join(f"'{t}'" for t in scrape) + "]\n")
        config.write_text(f"global:\n  scrape_interval: {scrape_interval_s:g}s\n"
                          f"  evaluation_interval: 1m\n{jobs}")
        for attempt in range(3):   # another process may take the free port before the server binds it
            port = free_port()
            argv = [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={data}",
                    f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=10y",
                    "--log.level=warn", *extra_args]
            try:
                proc = _start(argv, work / "prometheus.log", "/-/ready", port, "prometheus")
                break
            except EnvironmentProblem as exc:
                if "address already in use" not in str(exc) or attempt == 2:
                    raise
        try:
            yield Server(f"prometheus+http://127.0.0.1:{port}", port, proc, work / "prometheus.log")
        finally:
            kill_group(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def node_exporter(device_include: str) -> Iterator[int]:
    """node_exporter on 127.0.0.1 (a free port) with only the diskstats collector, for DEVICE_INCLUDE (a regex:
    loop devices are excluded by default); yields its port."""
    if shutil.which(NODE_EXPORTER) is None:
        raise EnvironmentProblem(f"{NODE_EXPORTER} not found (install Debian's prometheus-node-exporter package)")
    work = Path(tempfile.mkdtemp(prefix="blockfit-node-exporter-"))
    try:
        port = free_port()
        argv = [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
                "--collector.diskstats", "--collector.diskstats.device-exclude=",
                f"--collector.diskstats.device-include={device_include}"]
        proc = _start(argv, work / "node_exporter.log", "/metrics", port, "node_exporter")
        try:
            yield port
        finally:
            kill_group(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
