"""fio integration: JSON with preambles, client_stats, missing fio, killing the process group."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from blockfit.errors import EnvironmentProblem
from blockfit.measure.fio_run import FioFailed, fio_version, parse_fio_json, run_fio
from blockfit.measure.results import job_stats

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")


def test_parse_skips_preamble_and_trailing_noise() -> None:
    doc = {"fio version": "fio-3.33", "jobs": [{"jobname": "x"}]}
    text = "fio: some warning { not json\nnote: {\"x\": 1}\n" + json.dumps(doc, indent=2) + "\nfio: trailing\n"
    assert parse_fio_json(text) == doc


def test_parse_rejects_text_without_fio_json() -> None:
    with pytest.raises(ValueError):
        parse_fio_json('{"a": 1}\nno jobs here\n')


def test_client_stats_drop_the_all_clients_aggregate() -> None:
    entry = {"read": {"total_ios": 10, "iops": 5.0, "bw_bytes": 100.0, "lat_ns": {"bins": {"1000": 10}, "mean": 1e3}}}
    data = {"client_stats": [{"jobname": "h0-small0", "hostname": "a", **entry},
                             {"jobname": "h1-small0", "hostname": "b", **entry},
                             {"jobname": "All clients", "hostname": "a", **entry}]}
    stats = job_stats(data)
    assert [s.name for s in stats] == ["h0-small0", "h1-small0"]
    assert sum(s.iops for s in stats) == 10.0


def test_missing_fio_is_an_environment_problem() -> None:
    with pytest.raises(EnvironmentProblem, match="fio-that-does-not-exist not found on PATH"):
        fio_version("fio-that-does-not-exist")


def test_cli_missing_fio_exits_4_with_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", "calibrate", str(tmp_path)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 4
    assert out.stderr.strip().count("\n") == 0 and "fio not found" in out.stderr
    assert not list(tmp_path.iterdir())


@needs_fio
@pytest.mark.slow
def test_fio_error_is_reported_with_its_message(tmp_path: Path) -> None:
    with pytest.raises(FioFailed, match="fio failed"):
        run_fio(["--name=x", f"--filename={tmp_path / 'f'}", "--rw=read", "--size=1m", "--ioengine=no-such-engine"],
                tmp_path)


@needs_fio
@pytest.mark.slow
def test_exception_kills_the_whole_fio_process_group(tmp_path: Path) -> None:
    """A timeout (like Ctrl-C, any exception) while fio runs leaves no fio process of that group."""
    args = ["--name=a", "--name=b", f"--filename={tmp_path / 'f'}", "--size=4m", "--rw=randread", "--bs=4k",
            "--time_based", "--runtime=60", "--ioengine=psync", "--numjobs=2"]
    seen: list[int] = []
    real_popen = subprocess.Popen

    def spy(*a: object, **kw: object) -> subprocess.Popen[bytes]:
        proc = real_popen(*a, **kw)  # type: ignore[call-overload]
        seen.append(proc.pid)
        return proc  # type: ignore[no-any-return]

    subprocess.Popen = spy  # type: ignore[misc]
    try:
        with pytest.raises(FioFailed, match="did not finish"):
            run_fio(args, tmp_path, timeout=2)
    finally:
        subprocess.Popen = real_popen  # type: ignore[misc]
    (pgid,) = seen
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)
