"""measure.fio_job, the one writer of fio jobs: what the lab and calibrate's probe get, checked by fio itself; the
global controller's total outstanding I/Os is exactly what the job sections hold."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blockfit.measure.fio_job import (
    JobSpec,
    LabJob,
    escape_filename,
    job_depths,
    layout_args,
    probe_args,
    render_job,
    render_lab_job,
    split_outstanding,
)

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="needs fio")


def _fio_parses(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["fio", "--parse-only", *args], capture_output=True, text=True, timeout=60, cwd=cwd,
                          env={**os.environ, **(env or {})})


@needs_fio
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(1, 512), size=st.sampled_from([4096, 8192, 1 << 20]),
       rw=st.sampled_from(["randread", "randwrite", "write"]))
def test_a_lab_window_is_a_job_fio_accepts(depth: int, size: int, rw: str, tmp_path: Path) -> None:
    text = render_lab_job(LabJob(name="stripe-iops", io_size=size, iodepth=depth, runtime_s=900, rw=rw))
    job = tmp_path / "fio-stripe-iops.job"
    job.write_text(text)
    run = _fio_parses([str(job)], tmp_path, {"BLOCKFIT_TARGET": "/dev/null"})
    assert run.returncode == 0, run.stderr
    values = dict(re.findall(r"^(\w+)=(.*)$", text, flags=re.M))
    assert values["filename"] == "${BLOCKFIT_TARGET}" and values["rw"] == rw and values["bs"] == str(size)
    assert values["iodepth"] == str(depth) and values["runtime"] == "900"
    batch = int(values["iodepth_batch_submit"])
    assert batch == int(values["iodepth_batch_complete_max"]) and 1 <= batch <= max(1, depth // 4)
    assert "[stripe-iops]" in text and values["ioengine"] == "libaio" and values["direct"] == "1"


def test_a_lab_window_needs_one_io_in_flight() -> None:
    with pytest.raises(ValueError):
        render_lab_job(LabJob(name="x", io_size=4096, iodepth=0, runtime_s=5))


@needs_fio
def test_calibrate_probe_and_layout_are_command_lines_fio_accepts(tmp_path: Path) -> None:
    target = str(tmp_path / "a:file")
    for args in (probe_args(target, "libaio", 8192, True), layout_args(target, 1 << 20, False)):
        run = _fio_parses(args, tmp_path)
        assert run.returncode == 0, (args, run.stderr)
    assert "--readonly" in probe_args(target, "io_uring", 8192, False)
    assert f"--filename={escape_filename(target)}" in layout_args(target, 4096, True)


@needs_fio
def test_calibrate_writes_its_test_file_only_in_a_folder_named_with_a_colon(tmp_path: Path) -> None:
    """A directory target `DIR/z:/d`: fio's --filename splits at ':', so the layout wrote DIR/z (a file, or whatever
    a symlink there names, as root) beside d/FILE. Escaped, fio writes the one test file calibrate asked for."""
    (tmp_path / "z:" / "d").mkdir(parents=True)
    (tmp_path / "z").write_text("sentinel")
    test_file = tmp_path / "z:" / "d" / "t.dat"
    run = subprocess.run(["fio", *layout_args(str(test_file), 1 << 20, False)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "z").read_text() == "sentinel"
    assert test_file.stat().st_size == 1 << 20


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
