"""Every fio job file blockfit writes, each rendered from a typed spec (one jinja2 environment, measure/templates/),
and the short command lines calibrate runs before them (the engine probe, the test file's layout).

- `JobSpec` → `render_job`: one calibrate data point (below);
- `LabJob` → `render_lab_job`: one measurement window in a lab guest, its device named by $BLOCKFIT_TARGET;
- `probe_args`, `layout_args`: calibrate's probe of an engine and the writing of its test file.

One data point = a fixed total of outstanding I/Os, split over as few job sections as the CPUs need
(a job is one fio process; its ``iodepth`` is its share of the total). All jobs address every target file,
fio picking a member per I/O at random — a simulated stripe with allocation units at least the I/O size,
like ASM (and ORION's raid0 simulation) — so imbalance between members shows in their shares.

Options on top of the workload, and why:
- ``norandommap=1``: offsets are drawn independently, repeats allowed, as a database's reads are (AWS's EBS fio
  recipe does the same). fio's default map costs one bit per block per job and file (256 MiB per job for a
  16 TiB volume at 8 KiB), and as it fills, offsets cluster next to blocks already read.
- ``randrepeat=0``: a fresh seed per run, so repeated points do not replay the same offsets into a cache.
- ``lat_percentiles=1``: json+ bins for total latency (submission + completion), the latency a database sees.
- ``iopsavgtime``/``bwavgtime``: ~8 IOPS samples per point, for the steady-state check.
``bench/calibrate_vs_sweep.py`` (parts 2 and 3) measures this job against bare fio and each option's cost.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import jinja2

# One environment for every fio job blockfit writes (measure/templates/): calibrate's data points, the lab's windows.
_ENV = jinja2.Environment(loader=jinja2.PackageLoader("blockfit.measure", "templates"),
                          undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                          keep_trailing_newline=True)


@dataclass
class JobSpec:
    """Everything one fio run of a data point needs."""

    phase: str  # "small" or "large"
    files: list[str]
    io_size: int
    outstanding: int
    engine: str = "io_uring"
    direct: bool = True
    ramp_s: float = 1.0
    runtime_s: float = 3.0
    write_pct: int = 0
    file_size: int | None = None
    name_prefix: str = ""  # e.g. "h1-": marks each job section with the host that runs it
    max_jobs: int = field(default_factory=lambda: os.cpu_count() or 1)

    @property
    def rw(self) -> str:
        return "randrw" if self.write_pct else "randread"

    @property
    def sample_ms(self) -> int:
        """IOPS sampling period for the steady-state check: ~8 samples per point, at least 250 ms."""
        return max(250, int(self.runtime_s * 1000 / 8))


def split_outstanding(total: int, parts: int) -> list[int]:
    """Split ``total`` outstanding I/Os into at most ``parts`` positive shares differing by at most one."""
    parts = max(1, min(parts, total))
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def job_depths(outstanding: int, max_jobs: int, per_job: int = 32) -> list[int]:
    """Depth of each job section: one job per ``per_job`` outstanding I/Os, at most ``max_jobs`` jobs."""
    return split_outstanding(outstanding, min(max_jobs, math.ceil(outstanding / per_job)))


def escape_filename(path: str) -> str:
    """fio separates files in ``filename`` with ':'; a literal colon is written '\\:'."""
    return path.replace(":", "\\:")


def render_job(spec: JobSpec) -> str:
    if spec.outstanding < 1:
        raise ValueError("outstanding must be at least 1")
    return _ENV.get_template("calibrate.job.j2").render(
        spec=spec, filenames=":".join(escape_filename(f) for f in spec.files),
        depths=job_depths(spec.outstanding, spec.max_jobs))


@dataclass(frozen=True)
class LabJob:
    """One measurement window in a lab guest: fio drives the load until the guest stops it (runtime_s is a safety
    net); libaio, direct, and I/Os submitted and reaped in batches (fewer system calls per I/O: what costs under
    TCG). The device is the guest's $BLOCKFIT_TARGET, set by the script that runs the job."""

    name: str
    io_size: int
    iodepth: int
    runtime_s: int
    rw: str = "randread"


def render_lab_job(job: LabJob) -> str:
    if job.iodepth < 1:
        raise ValueError("iodepth must be at least 1")
    return _ENV.get_template("lab.job.j2").render(name=job.name, bs=job.io_size, iodepth=job.iodepth,
                                                  runtime_s=job.runtime_s, rw=job.rw)


def probe_args(path: str, engine: str, io_size: int, direct: bool) -> list[str]:
    """fio's command line for a tiny read-only read of PATH with ENGINE: does the engine work on this target?"""
    return ["--name=probe", f"--filename={escape_filename(path)}", f"--ioengine={engine}", "--rw=randread",
            f"--bs={io_size}", "--size=1m", "--io_size=64k", f"--direct={int(direct)}", "--readonly"]


def layout_args(path: str, size: int, direct: bool) -> list[str]:
    """fio's command line that writes calibrate's own test file whole (holes would read as zeros, without I/O).
    PATH's colons escaped, as in a job file: in a directory named `/tmp/z:/d` fio wrote /tmp/z (any file or device
    a symlink there names) beside /d/FILE."""
    return ["--name=layout", f"--filename={escape_filename(path)}", f"--size={size}", "--rw=write", "--bs=1m",
            "--ioengine=psync", f"--direct={int(direct)}", "--end_fsync=1"]
