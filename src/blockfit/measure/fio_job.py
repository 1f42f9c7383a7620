"""fio job files for one calibrate data point, rendered with jinja2.

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

_TEMPLATE = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                               keep_trailing_newline=True).from_string(
"""# blockfit calibrate: {{ spec.phase }} I/O, {{ spec.outstanding }} outstanding in total
[global]
ioengine={{ spec.engine }}
direct={{ 1 if spec.direct else 0 }}
rw={{ spec.rw }}
{% if spec.write_pct %}
rwmixwrite={{ spec.write_pct }}
{% endif %}
bs={{ spec.io_size }}
filename={{ filenames }}
file_service_type=random
{% if spec.file_size %}
size={{ spec.file_size }}
{% endif %}
time_based=1
ramp_time={{ (spec.ramp_s * 1000) | round | int }}ms
runtime={{ (spec.runtime_s * 1000) | round | int }}ms
norandommap=1
randrepeat=0
lat_percentiles=1
iopsavgtime={{ spec.sample_ms }}
bwavgtime={{ spec.sample_ms }}
{% for depth in depths %}

[{{ spec.name_prefix }}{{ spec.phase }}{{ loop.index0 }}]
iodepth={{ depth }}
{% endfor %}
""")


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
    return _TEMPLATE.render(spec=spec, filenames=":".join(escape_filename(f) for f in spec.files),
                            depths=job_depths(spec.outstanding, spec.max_jobs))
