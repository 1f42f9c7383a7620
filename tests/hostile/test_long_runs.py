"""Long-running commands hold bounded memory by design: a run that would keep more than it can is refused at its
start, in one line, before it samples (or connects), never after hours.

- `diagnose` kept every sample in memory for its diagnosis and recorded them all: `--duration 100000s
  --interval 1ms` sampled on until memory ran out, and a recording past 64 MiB could not be replayed. Now the
  first sample's size times the count is checked against what a recording holds.
- `record --pg` now streams its samples to the file (nothing kept in memory); a count past what `plan --from`
  reads of a recording (3,000,000 samples) is refused before connecting.

Fast: no server is started.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.fleet import run_cli


def _blockfit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # 60 s is a safety net: the old code sampled (or connected and sampled) for the whole duration
    return subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def _one_line(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 2, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1, run.stderr[-2000:]
    return run.stderr


def test_a_diagnose_run_larger_than_a_recording_is_refused_before_its_second_sample(tmp_path: Path) -> None:
    out = tmp_path / "cap.jsonl"
    run = _blockfit("diagnose", "--interval", "1ms", "--duration", "100000s", "--record", str(out), "--json",
                    cwd=tmp_path)
    line = _one_line(run)
    assert "--duration" in line and "100,000,001 samples" in line and "64 MiB" in line, line
    assert not run.stdout and list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())


def test_a_diagnose_run_that_fits_still_runs(tmp_path: Path) -> None:
    out = tmp_path / "cap.jsonl"
    run = _blockfit("diagnose", "--interval", "0.1s", "--duration", "0.3s", "--record", str(out), "--json",
                    cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(out.read_text().splitlines()) >= 3   # a header and its samples


def test_a_recording_past_what_plan_reads_is_refused_before_connecting(tmp_path: Path) -> None:
    run = _blockfit("record", "--pg", "host=/nonexistent dbname=x", "--interval", "1ms", "--duration", "1h",
                    "--out", str(tmp_path / "r.jsonl"), cwd=tmp_path)
    line = _one_line(run)
    assert "--duration" in line and "3,600,000 samples" in line and "3,000,000" in line, line
    assert list(tmp_path.iterdir()) == []


def test_pg_timeout_is_checked_at_the_edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("0", "nan", "x", "4000"):
        monkeypatch.setenv("BLOCKFIT_PG_TIMEOUT", bad)
        code, out, err = run_cli("record", "--pg", "host=/nonexistent dbname=x", "--out", str(tmp_path / "r.jsonl"))
        assert code == 2 and err.count("\n") == 1 and "BLOCKFIT_PG_TIMEOUT" in err, err
    assert list(tmp_path.iterdir()) == []
