"""The generated fleet the fleet tests share (issue 24, issue 39): per-host percentiles known by construction
(each host's IOPS per step is D times a shuffled series whose p99 is exactly 1), hosts built to be under, within
or over their current layout, 20 hosts of one job for the acceptance count, and the history written for both
engines (OpenMetrics for promtool, JSON lines for VictoriaMetrics' import)."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from blockfit.catalog import load_catalog
from blockfit.fleet.query import window
from blockfit.model import predict
from blockfit.model.instance import instance_at
from blockfit.plan import make_plan
from blockfit.plan.advice import workload
from blockfit.schema import Requirements
from blockfit.specs import parse_layout
from blockfit.testbed.promserver import (
    PROMETHEUS,
    PROMTOOL,
    VICTORIA_METRICS,
    SyntheticHost,
    write_json_lines,
    write_openmetrics,
)

# a server start each: slow (the marks ride on the fixture's params, so every test that reads a fleet has them)
ENGINES = [pytest.param(engine, marks=pytest.mark.slow) for engine in ("prometheus", "victoria-metrics")]
NEEDS = {"prometheus": (PROMETHEUS, PROMTOOL), "victoria-metrics": (VICTORIA_METRICS,)}
# a test of Prometheus's own flags (--query.max-samples, --query.timeout) or of a proxy in front of it
PROMETHEUS_ONLY = pytest.mark.parametrize("fleet", [ENGINES[0]], indirect=True)

STEP, RANGE, SCRAPE, P = 60, 86400, 30, 99.0
IO = 16384
SHAPE = "VM.Standard.E4.Flex"
INSTANCE = f"{SHAPE}:8"
CAT = load_catalog("oci")
BLOCKS_ONLY = shutil.ignore_patterns("wal", "chunks_head", "lock", "queries.active", "*.tmp*")  # a copy to serve


def unit_series(steps: int, seed: int) -> np.ndarray:
    """A shuffled ramp whose p99 (numpy's linear rule, PromQL's too) is exactly 1."""
    ramp = np.linspace(0.3, 1.0, steps)
    ramp /= np.percentile(ramp, P)
    np.random.default_rng(seed).shuffle(ramp)
    return ramp


def now_iops(layout: str) -> float:
    req = Requirements(cloud="oci", capacity_gb=1, instance_shape=SHAPE, instance_ocpus=8, read_pct=70)
    return predict(parse_layout(layout, "oci", CAT), instance_at(CAT, SHAPE, 8), workload(req), CAT,
                   with_curve=False).max_iops


def cheapest_layout(demand: float, capacity: float) -> str:
    req = Requirements(cloud="oci", capacity_gb=capacity, target_iops=demand, target_mbps=demand * IO / 1e6,
                       instance_shape=SHAPE, instance_ocpus=8, read_pct=70)
    return make_plan(req, CAT, keep=1, brief=True).candidates[0].layout


@dataclass
class History:
    """The generated fleet: the truth per host, the mapping file, the history in each engine's input form."""

    hosts: dict[str, SyntheticHost]
    demand: dict[str, float]            # p99 IOPS by construction
    expected: dict[str, str]            # status by construction
    mapping: Path
    end: int
    work: Path
    twenty: list[str]                   # the 20 hosts of job="twenty"
    aws: dict[str, np.ndarray] = field(default_factory=dict)   # job="aws": MB/s per step by host


@dataclass
class Fleet(History):
    """The generated fleet on a running server."""

    engine: str = ""
    url: str = ""
    data: Path | None = None            # Prometheus's data directory (a copy serves another server)


TWENTY = 20
# the burst hosts (issue 40): AWS, another job, large I/O so MB/s binds; one steady, one with a short peak
AWS_SHAPE, AWS_LAYOUT, AWS_IO = "m6i.large", "1x500G@gp3:3000:125", 262144
AWS_STEADY, AWS_PEAK = "db-aws-steady:9100", "db-aws-peak:9100"
AWS_BASE_MBPS, AWS_PEAK_MBPS, AWS_PEAK_STEPS = 50.0, 110.0, 10


def generate(work: Path) -> History:
    """The fleet's history, written once into WORK in both engines' input forms."""
    w = window(time.time(), RANGE, STEP)
    steps = w.steps
    layouts: dict[str, str | None] = {}
    demand: dict[str, float] = {}
    expected: dict[str, str] = {}
    for i, (layout, factor) in enumerate((("1x500G@balanced", 1.5), ("2x1000G@balanced", 1.3))):
        host = f"db-under-{i}:9100"
        layouts[host], demand[host], expected[host] = layout, factor * now_iops(layout), "under"
    for i, d in enumerate((2500.0, 9000.0, 21000.0)):
        host = f"db-within-{i}:9100"
        layouts[host], demand[host], expected[host] = cheapest_layout(1.02 * d, 1000), d, "within"  # 2 % spare
    for i, d in enumerate((1500.0, 3000.0, 6000.0)):
        host = f"db-over-{i}:9100"
        layouts[host], demand[host], expected[host] = "8x1000G@higher", d, "over"
    layouts["db-unmapped:9100"], demand["db-unmapped:9100"], expected["db-unmapped:9100"] = None, 4000.0, "unknown"
    layouts["db-reset:9100"], demand["db-reset:9100"] = "2x1000G@balanced", 12000.0
    hosts = {h: SyntheticHost(h, demand[h] * unit_series(steps, k), io_size=IO,
                              reset_at=steps // 3 if h == "db-reset:9100" else None)
             for k, h in enumerate(demand)}
    hosts["db-missing:9100"] = SyntheticHost("db-missing:9100", 800 * unit_series(steps, 99), io_size=IO,
                                             missing=frozenset({"node_disk_written_bytes_total"}))
    # the mount-point hosts: another job, their database on an LVM volume under /u01
    for k in range(2):
        h = f"db-mount-{k}:9100"
        demand[h] = 3000.0 * (k + 1)
        hosts[h] = SyntheticHost(h, demand[h] * unit_series(steps, 50 + k), io_size=IO, devices=("dm-7",),
                                 mounts={"/u01": "/dev/mapper/vg-u01"}, dm_names={"dm-7": "vg-u01"},
                                 labels={"job": "mount", "blockfit_layout": "2x1000G@balanced",
                                         "blockfit_instance": INSTANCE})
    hosts["db-mount-nodm:9100"] = SyntheticHost("db-mount-nodm:9100", 1000 * unit_series(steps, 60), io_size=IO,
                                                devices=("dm-7",), mounts={"/u01": "/dev/mapper/vg-u01"},
                                                labels={"job": "mount"})
    # the acceptance fleet: 20 hosts of one device each, another job
    twenty = [f"db-{k:02d}.twenty:9100" for k in range(TWENTY)]
    for k, h in enumerate(twenty):
        demand[h] = 1000.0 + 977.0 * k
        hosts[h] = SyntheticHost(h, demand[h] * unit_series(steps, 200 + k), io_size=IO, idle_devices=(),
                                 labels={"job": "twenty"})
    # the burst hosts: a steady day below m6i.large's sustained MB/s, and the same day with a short peak above it
    aws_labels = {"job": "aws", "blockfit_layout": AWS_LAYOUT, "blockfit_instance": AWS_SHAPE}
    aws = {AWS_STEADY: AWS_BASE_MBPS * unit_series(steps, 300), AWS_PEAK: AWS_BASE_MBPS * unit_series(steps, 301)}
    aws[AWS_PEAK][steps // 2:steps // 2 + AWS_PEAK_STEPS] = AWS_PEAK_MBPS
    for h, mbps in aws.items():
        hosts[h] = SyntheticHost(h, mbps * 1e6 / AWS_IO, io_size=AWS_IO, idle_devices=(), labels=dict(aws_labels))
    # a host whose history ends an hour before the range: in the index, no sample in the window
    stale = SyntheticHost("db-stale:9100", np.full(120, 500.0), io_size=IO)
    for name, write in (("om", write_openmetrics), ("jsonl", write_json_lines)):
        with open(work / f"history.{name}", "w") as fh:
            write(fh, list(hosts.values()), w.start, STEP, SCRAPE)
        with open(work / f"stale.{name}", "w") as fh:
            write(fh, [stale], w.start - 3 * 3600, STEP, SCRAPE)
    with open(work / "history.jsonl", "a") as fh, open(work / "stale.jsonl") as stale_lines:
        fh.write(stale_lines.read())
    mapping = work / "hosts.toml"
    mapping.write_text(f'[defaults]\ninstance = "{INSTANCE}"\n\n'
                       + "".join(f'[hosts."{h}"]\nlayout = "{lay}"\n\n' for h, lay in layouts.items() if lay)
                       + '[hosts."db-gone"]\nlayout = "1x100G@balanced"\n')
    return History(hosts, demand, expected, mapping, w.end, work, twenty, aws)


def fleet_args(fleet: Fleet, *extra: str) -> list[str]:
    return ["fleet", "--from", fleet.url, "--match", 'job="node"', "--range", "1d", "--step", "1m",
            "--until", str(fleet.end), "--percentile", "99", "--hosts", str(fleet.mapping), "--capacity", "1T", *extra]
