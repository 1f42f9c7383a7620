"""A server that stops answering mid-run, and a recorder killed mid-run, on a real PostgreSQL.

`record --pg` had a deadline on connecting only: a backend stopped with SIGSTOP left it waiting for good (past
130 s in the probe), and its samples, kept in memory until the end, were never written. Now every call has a
deadline (a watchdog shuts the connection's socket: a stopped backend's kernel still acknowledges packets, so
neither TCP timeouts nor the server's statement_timeout can end the wait), and every sample is written and
flushed to `OUT.partial` as it is taken, renamed to OUT at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit.dbbench.cluster import Cluster, check_dir, initdb, start, throwaway_cluster
from blockfit.history.targets import read_histories
from support.postgres import has_postgres

pytestmark = [pytest.mark.slow, pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0 or not has_postgres(), reason="needs root and PostgreSQL")]

TIMEOUT_S = 2.0   # BLOCKFIT_PG_TIMEOUT for these runs: one call to the server may take this long


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with tempfile.TemporaryDirectory(prefix="blockfit-stall-") as work:
        os.chmod(work, 0o755)   # the server runs as postgres: its directories must be reachable
        base = Path(work) / "data"
        base.mkdir()
        with throwaway_cluster("stall", check_dir(base), Path(work), {"shared_buffers": "16MB"}) as c:
            initdb(c)
            start(c, None)
            yield c


def _recorder(cluster: Cluster, name: str, out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "BLOCKFIT_PG_TIMEOUT": str(TIMEOUT_S)}
    return subprocess.Popen(
        [sys.executable, "-c", "from blockfit.cli import main; main()", "record", "--pg",
         f"{cluster.conninfo} application_name={name}", "--interval", "0.2s", "--duration", "600s",
         "--out", str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _backend(cluster: Cluster, name: str, rec: subprocess.Popen[str]) -> int:
    """The recorder's backend pid, seen from another connection (a safety net of 120 s, never a timing)."""
    import psycopg

    deadline = time.monotonic() + 120
    with psycopg.connect(cluster.conninfo, autocommit=True) as conn:
        while True:
            row = conn.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s", [name]).fetchone()
            if row is not None:
                return int(row[0])
            assert rec.poll() is None and time.monotonic() < deadline, rec.communicate()
            time.sleep(0.1)


def _intervals_read(path: Path) -> int:
    """Intervals `plan --from` reads from a recording (one per pair of neighbouring samples)."""
    (series,) = read_histories(path)
    return len({s.key for s in series.samples})


def _samples_in(path: Path) -> int:
    """Complete sample lines in a recording (the header is the first line)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return 0
    return max(0, text.count("\n") - 1)


def _wait_for_samples(path: Path, n: int, rec: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + 120
    while (seen := _samples_in(path)) < n:
        assert rec.poll() is None, rec.communicate()
        assert time.monotonic() < deadline, f"{path}: {seen} samples written while recording, expected {n}"
        time.sleep(0.05)
    return seen


@contextlib.contextmanager
def _stopped(pid: int) -> Iterator[None]:
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def _end(rec: subprocess.Popen[str]) -> None:
    if rec.poll() is None:
        rec.kill()
    rec.communicate()


def test_a_backend_stopped_mid_run_ends_the_recording_within_its_deadline_and_keeps_the_samples(
        cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    partial = tmp_path / "rec.jsonl.partial"
    rec = _recorder(cluster, "stalled", out)
    try:
        pid = _backend(cluster, "stalled", rec)
        before = _wait_for_samples(partial, 3, rec)   # written as they come, not at the end
        with _stopped(pid):
            # the deadline is 2 s; 60 s is a safety net against a hang (the old code waited for good)
            stdout, stderr = rec.communicate(timeout=60)
    finally:
        _end(rec)
    assert rec.returncode == 4, stderr
    assert "Traceback" not in stderr and stderr.count("\n") == 1 and not stdout, stderr
    assert f"no answer within {TIMEOUT_S:g} s" in stderr and "stopped answering after" in stderr, stderr
    taken = _samples_in(out)
    assert taken >= before and f"its {taken} samples are in {out}" in stderr, (taken, before, stderr)
    assert not partial.exists()
    assert _intervals_read(out) == taken - 1   # the file is a recording plan --from reads


def test_a_recorder_killed_mid_run_leaves_what_it_measured_in_the_partial_file(cluster: Cluster,
                                                                               tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    partial = tmp_path / "rec.jsonl.partial"
    rec = _recorder(cluster, "killed", out)
    try:
        _backend(cluster, "killed", rec)
        _wait_for_samples(partial, 3, rec)
        rec.kill()
        rec.wait()
    finally:
        _end(rec)
    taken = _samples_in(partial)
    assert taken >= 3 and not out.exists()
    assert _intervals_read(partial) == taken - 1
    # the next run refuses to write over the samples a run cut short left, before it connects
    again = subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", "record", "--pg",
                            "host=/nonexistent dbname=x", "--out", str(out)], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 2 and again.stderr.count("\n") == 1, again.stderr
    assert "rec.jsonl.partial' exists" in again.stderr and _samples_in(partial) == taken

