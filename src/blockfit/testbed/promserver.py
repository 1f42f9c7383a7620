"""A real Prometheus (and a VictoriaMetrics) for tests and benches: history generated with known percentiles,
loaded with promtool (or VictoriaMetrics' import API), served on 127.0.0.1 from a temporary data directory, and
node_exporter for a live scrape of this machine.

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
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np

from blockfit.errors import EnvironmentProblem
from blockfit.fleet.query import DM_INFO, FILESYSTEM, READ_BYTES, READS, WRITE_BYTES, WRITES
from blockfit.proc import kill_group, start

PROMETHEUS, PROMTOOL, NODE_EXPORTER = "prometheus", "promtool", "prometheus-node-exporter"
VICTORIA_METRICS = "victoria-metrics"


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


Series = tuple[str, dict[str, str], np.ndarray, np.ndarray]   # metric, labels, values, times (s)


def fleet_series(hosts: Sequence[SyntheticHost], start: int, step_s: int, scrape_s: int) -> Iterator[Series]:
    """Every series of the generated fleet from START (the counters' first sample) over len(iops) steps: the four
    counters per device, then the filesystem and device-mapper gauges."""
    per_step = step_s // scrape_s
    if per_step * scrape_s != step_s:
        raise ValueError("scrape_s must divide step_s")
    for metric in (READS, WRITES, READ_BYTES, WRITE_BYTES):
        for h in hosts:
            if metric in h.missing:
                continue
            for dev in h.devices:
                yield metric, _labels(h, device=dev), *_counter(h, _rates(metric, h) / len(h.devices), start,
                                                                step_s, per_step)
            for dev in h.idle_devices:
                yield metric, _labels(h, device=dev), *_counter(h, np.full(len(h.iops), 5.0), start, step_s,
                                                                per_step)
    for h in hosts:
        for mount, fs_dev in h.mounts.items():
            yield FILESYSTEM, _labels(h, device=fs_dev, mountpoint=mount, fstype="xfs"), *_gauge(2.0**40, start,
                                                                                                 step_s, h)
    for h in hosts:
        for dev, name in h.dm_names.items():
            yield DM_INFO, _labels(h, device=dev, name=name), *_gauge(1.0, start, step_s, h)


def write_openmetrics(out: IO[str], hosts: Sequence[SyntheticHost], start: int, step_s: int, scrape_s: int) -> int:
    """The fleet as OpenMetrics text (promtool's input, times in seconds); returns the samples written."""
    lines = 0
    family = None
    for metric, labels, values, times in fleet_series(hosts, start, step_s, scrape_s):
        if metric != family:
            family = metric
            kind = "gauge" if metric in (FILESYSTEM, DM_INFO) else "counter"
            out.write(f"# TYPE {metric.removesuffix('_total')} {kind}\n")
        prefix = f"{metric}{{{_label_text(labels)}}} "
        out.write("".join(f"{prefix}{v!r} {t}\n" for v, t in zip(values.tolist(), times.tolist(), strict=True)))
        lines += len(values)
    out.write("# EOF\n")
    return lines


def write_json_lines(out: IO[str], hosts: Sequence[SyntheticHost], start: int, step_s: int, scrape_s: int) -> int:
    """The fleet as VictoriaMetrics' JSON line import (one series a line, times in milliseconds); returns the
    samples written."""
    samples = 0
    for metric, labels, values, times in fleet_series(hosts, start, step_s, scrape_s):
        out.write(json.dumps({"metric": {"__name__": metric, **labels}, "values": values.tolist(),
                              "timestamps": (times * 1000).tolist()}) + "\n")
        samples += len(values)
    return samples


def _rates(metric: str, h: SyntheticHost) -> np.ndarray:
    share = h.read_share if metric in (READS, READ_BYTES) else 1 - h.read_share
    per_io = h.io_size if metric in (READ_BYTES, WRITE_BYTES) else 1
    return h.iops * share * per_io


def _labels(h: SyntheticHost, **extra: str) -> dict[str, str]:
    return dict(sorted({**h.labels, "instance": h.instance, **extra}.items()))


def _label_text(labels: dict[str, str]) -> str:
    return ",".join(f'{k}="{v}"' for k, v in labels.items())


def _counter(h: SyntheticHost, rates: np.ndarray, start: int, step_s: int,
             per_step: int) -> tuple[np.ndarray, np.ndarray]:
    """Counter samples: linear within each step at that step's rate, a sample every step_s / per_step seconds."""
    inc = np.repeat(rates * step_s / per_step, per_step)            # increase between consecutive samples
    values = 1e6 + np.concatenate(([0.0], np.cumsum(inc)))
    if h.reset_at is not None:
        k = h.reset_at * per_step                                   # restart from 0 after the step's first sample
        values[k + 1:] -= values[k]
    times = start + np.arange(len(values)) * (step_s // per_step)
    return values, times


def _gauge(value: float, start: int, step_s: int, h: SyntheticHost) -> tuple[np.ndarray, np.ndarray]:
    steps = len(h.iops)
    return np.full(steps + 1, value), start + np.arange(steps + 1) * step_s


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


def _start_on_free_port(argv_for: Callable[[int], list[str]], log: Path, ready_path: str,
                        what: str) -> tuple[int, subprocess.Popen[bytes]]:
    """Start the server ARGV_FOR(port) on a free port, ready; another port when another process took the free one
    before the server bound it (three tries)."""
    for _ in range(2):
        port = free_port()
        try:
            return port, _start(argv_for(port), log, ready_path, port, what)
        except EnvironmentProblem as exc:
            if "address already in use" not in str(exc):
                raise
    port = free_port()
    return port, _start(argv_for(port), log, ready_path, port, what)


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
        port, proc = _start_on_free_port(
            lambda port: [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={data}",
                          f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=10y",
                          "--log.level=warn", *extra_args],
            work / "prometheus.log", "/-/ready", "prometheus")
        try:
            yield Server(f"prometheus+http://127.0.0.1:{port}", port, proc, work / "prometheus.log")
        finally:
            kill_group(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def victoria_metrics_server(history: Path | None = None) -> Iterator[Server]:
    """Single-node VictoriaMetrics (Debian's victoria-metrics: the same query API its cluster version serves) on
    127.0.0.1 (a free port) over a fresh temporary data directory, removed after; HISTORY (JSON lines, see
    write_json_lines) imported and flushed before it is yielded. Queries see samples up to now (no latency
    offset) and are never answered from VictoriaMetrics' cache."""
    if shutil.which(VICTORIA_METRICS) is None:
        raise EnvironmentProblem(f"{VICTORIA_METRICS} not found (install Debian's victoria-metrics package)")
    work = Path(tempfile.mkdtemp(prefix="blockfit-victoria-metrics-"))
    try:
        port, proc = _start_on_free_port(
            lambda port: [VICTORIA_METRICS, f"-storageDataPath={work / 'data'}", f"-httpListenAddr=127.0.0.1:{port}",
                          "-retentionPeriod=100y", "-search.latencyOffset=0s", "-search.disableCache",
                          "-loggerLevel=ERROR"],
            work / "victoria-metrics.log", "/health", "victoria-metrics")
        try:
            if history is not None:
                _post(f"http://127.0.0.1:{port}/api/v1/import", history)
                _post(f"http://127.0.0.1:{port}/internal/force_flush", None)
            yield Server(f"prometheus+http://127.0.0.1:{port}", port, proc, work / "victoria-metrics.log")
        finally:
            kill_group(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _post(url: str, body: Path | None) -> None:
    """POST BODY (a file, streamed) or nothing to a loopback URL; an answer other than 2xx is an error."""
    with contextlib.ExitStack() as stack:
        data = stack.enter_context(open(body, "rb")) if body is not None else None
        headers = {"Content-Length": str(body.stat().st_size)} if body is not None else {}
        req = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET",
                                     headers=headers)
        with urllib.request.urlopen(req, timeout=300) as resp:  # noqa: S310 - loopback http
            if not 200 <= resp.status < 300:
                raise EnvironmentProblem(f"{url}: answered {resp.status}")


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
