"""fio job files: the global controller's total outstanding I/Os is exactly what the job sections hold."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from blockfit.measure.fio_job import JobSpec, escape_filename, job_depths, render_job, split_outstanding


@given(total=st.integers(1, 4096), parts=st.integers(1, 64))
def test_split_is_exact_and_even(total: int, parts: int) -> None:
    shares = split_outstanding(total, parts)
    assert sum(shares) == total and len(shares) <= parts and min(shares) >= 1
    assert max(shares) - min(shares) <= 1


@given(outstanding=st.integers(1, 1024), max_jobs=st.integers(1, 16), write=st.sampled_from([0, 30]))
def test_rendered_job_holds_the_total(outstanding: int, max_jobs: int, write: int) -> None:
    spec = JobSpec(phase="small", files=["/dev/a", "/dev/b:c"], io_size=8192, outstanding=outstanding,
                   max_jobs=max_jobs, write_pct=write, name_prefix="h1-")
    text = render_job(spec)
    depths = [int(d) for d in re.findall(r"^iodepth=(\d+)$", text, flags=re.M)]
    assert sum(depths) == outstanding and len(depths) <= max_jobs
    assert depths == job_depths(outstanding, max_jobs)
    assert len(re.findall(r"^\[h1-small\d+\]$", text, flags=re.M)) == len(depths)
    assert "[global]" in text and "filename=/dev/a:/dev/b\\:c" in text
    assert ("rw=randrw" in text and "rwmixwrite=30" in text) if write else ("rw=randread" in text)
    assert "lat_percentiles=1" in text and "direct=1" in text


def test_escape_filename() -> None:
    assert escape_filename("/a:b/c") == "/a\\:b/c"
