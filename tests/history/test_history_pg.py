"""`blockfit record --pg` on a real PostgreSQL under pgbench, on a capped loop device (issue 23).

The recording's IOPS and MB/s must be within 10 % of the device's own counters, read by this test every 50 ms and
interpolated at the recording's first and last sample (both on CLOCK_MONOTONIC): the same window. The server's
block→I/O mapping must be stated with its measured ratio, and `plan --from` on the recording must propose a layout
that meets its targets. Cost: about 35 s (initdb, pgbench -i -s 2, 20 s of load).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from blockfit.cli import main
from blockfit.dbbench.cluster import check_dir, initdb, start, throwaway_cluster
from blockfit.devices import diskstats
from blockfit.errors import InputError
from blockfit.history import derive_targets
from blockfit.testbed.fsbed import ext4_bed
from support.postgres import has_postgres

pytestmark = [pytest.mark.slow, pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0 or not has_postgres() or not shutil.which("mkfs.ext4"),
                                 reason="needs root, PostgreSQL and mkfs.ext4")]


class DeviceWatch:
    """This test's own reading of one device's counters every 50 ms (CLOCK_MONOTONIC, the recorder's clock too)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.points: list[tuple[float, int, int]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            with open("/proc/diskstats") as fh:
                text = fh.read()
            t = time.monotonic()
            s = next(x for x in diskstats.parse(text, "/proc/diskstats") if x.name == self.name)
            self.points.append((t, s.reads + s.writes, (s.sectors_read + s.sectors_written) * 512))
            time.sleep(0.05)

    def at(self, t: float) -> tuple[float, float]:
        """(I/Os, bytes) at time t, interpolated between the two readings around it."""
        for (ta, ia, ba), (tb, ib, bb) in zip(self.points, self.points[1:], strict=False):
            if ta <= t <= tb:
                f = (t - ta) / (tb - ta)
                return ia + f * (ib - ia), ba + f * (bb - ba)
        raise AssertionError(f"no reading around t={t}")


def test_record_during_pgbench_matches_the_device_and_plans_for_it(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with ext4_bed(1, size=512 * 1024**2) as bed, tempfile.TemporaryDirectory() as work:
        dev = bed.devices[0]
        with throwaway_cluster("rec", check_dir(bed.mounts[0]), Path(work),
                               {"shared_buffers": "16MB", "max_wal_size": "64MB"}) as cluster:
            initdb(cluster)
            start(cluster, None)
            assert cluster.process is not None
            # the server's processes into the capped group: backends forked later inherit it
            with contextlib.suppress(OSError):
                for pid in os.listdir("/proc"):
                    if pid.isdigit() and os.getpgid(int(pid)) == cluster.process.pid:
                        bed.cgroup.procs_file.write_text(f"{pid}\n")
            pgbench = str(cluster.bindir / "pgbench")
            subprocess.run([pgbench, "-i", "-s", "2", "-q"], env=cluster.env(), check=True, capture_output=True)
            bed.cgroup.limit(dev.major_minor, read_iops=400, write_iops=400)
            load = subprocess.Popen([pgbench, "-c", "4", "-j", "2", "-T", "20", "-n"], env=cluster.env(),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                watch = DeviceWatch(dev.name)
                watch.thread.start()
                rec = subprocess.run(
                    [sys.executable, "-c", "from blockfit.cli import main; main()", "record", "--pg", cluster.conninfo,
                     "--interval", "1s", "--duration", "12s", "--out", str(tmp_path / "rec.jsonl"), "--json"],
                    capture_output=True, text=True, timeout=120)
            finally:
                load.wait(timeout=120)
                watch.stop.set()
                watch.thread.join()
            assert rec.returncode == 0, rec.stderr
            header = json.loads(rec.stdout)
            assert header["samples"] == 13 and [d["name"] for d in header["devices"]] == [dev.name]
    lines = (tmp_path / "rec.jsonl").read_text().splitlines()
    t0 = header["monotonic_t0"] + json.loads(lines[1])["t"]
    t1 = header["monotonic_t0"] + json.loads(lines[-1])["t"]
    (ios0, bytes0), (ios1, bytes1) = watch.at(t0), watch.at(t1)
    ref_iops, ref_mbps = (ios1 - ios0) / (t1 - t0), (bytes1 - bytes0) / (t1 - t0) / 1e6
    t = derive_targets(tmp_path / "rec.jsonl", percentile=50)
    pts = t.series
    seconds = sum(p.duration_s for p in pts)
    rec_iops = sum((p.read_iops + p.write_iops) * p.duration_s for p in pts) / seconds
    rec_mbps = sum((p.read_mbps + p.write_mbps) * p.duration_s for p in pts) / seconds
    with capsys.disabled():
        print(f"recording {rec_iops:,.1f} IOPS {rec_mbps:,.2f} MB/s; device over the same window {ref_iops:,.1f} IOPS "
              f"{ref_mbps:,.2f} MB/s; {t.notes[-1]}")
    assert ref_iops > 50, "pgbench did too little I/O to compare"
    assert rec_iops == pytest.approx(ref_iops, rel=0.10)
    assert rec_mbps == pytest.approx(ref_mbps, rel=0.10)
    assert t.sources[0].format == "pg-recording" and t.sources[0].members == [dev.name]
    assert t.samples == 12 and t.interval_s == pytest.approx(1.0, rel=0.2)
    assert any("device/server" in n for n in t.notes) and any("blocks read" in n for n in t.notes)
    capsys.readouterr()
    main(["plan", "--cloud", "aws", "--capacity", "100G", "--instance", "m6i.2xlarge", "--from",
          str(tmp_path / "rec.jsonl"), "--percentile", "p99", "--headroom", "20%", "--json"])
    p = json.loads(capsys.readouterr().out)
    req, best = p["requirements"], p["candidates"][0]
    assert req["history"]["percentile_name"] == "p99" and req["target_iops"] > rec_iops
    assert best["prediction"]["max_iops"] >= req["target_iops"] and best["prediction"]["max_mbps"] >= req["target_mbps"]


def test_a_recording_whose_time_runs_backwards_is_refused(tmp_path: Path) -> None:
    header = {"type": "header", "format": "blockfit-pg-recording", "version": 1, "started": "2025-01-01T00:00:00Z",
              "interval_s": 1, "server_version": 150000, "devices": []}
    s = [{"type": "sample", "t": t, "pg": {"reads": 1.0 * t, "writes": 0.0, "reset": ""}, "diskstats": []}
         for t in (0.0, 1.0, 0.5)]
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(x) for x in [header, *s]) + "\n")
    with pytest.raises(InputError, match="does not run forward"):
        derive_targets(tmp_path / "r.jsonl")


def test_a_server_that_goes_away_mid_recording_is_one_line_and_keeps_its_samples(tmp_path: Path) -> None:
    """The recorder's backend terminated mid-run (a restart, a DBA's pg_terminate_backend): psycopg's error went
    up as a traceback. Now one line, exit 4, the samples taken so far written (2 or more), never the string."""
    import psycopg

    out = tmp_path / "rec.jsonl"
    with ext4_bed(1, size=256 * 1024**2) as bed, tempfile.TemporaryDirectory() as work:
        with throwaway_cluster("gone", check_dir(bed.mounts[0]), Path(work), {"shared_buffers": "16MB"}) as cluster:
            initdb(cluster)
            start(cluster, None)
            rec = subprocess.Popen(
                [sys.executable, "-c", "from blockfit.cli import main; main()", "record", "--pg",
                 cluster.conninfo + " application_name=recorder", "--interval", "0.2s", "--duration", "120s",
                 "--out", str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                with psycopg.connect(cluster.conninfo, autocommit=True) as conn:
                    deadline = time.monotonic() + 120  # a safety net: the recorder connects, then samples
                    query = "SELECT pid FROM pg_stat_activity WHERE application_name = 'recorder'"
                    while conn.execute(query).fetchone() is None:
                        assert rec.poll() is None and time.monotonic() < deadline, rec.stderr
                        time.sleep(0.1)
                    time.sleep(2)  # ~10 samples at 0.2 s; fewer on a busy host, which the assertions allow
                    conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                 "WHERE application_name = 'recorder'")
                stdout, stderr = rec.communicate(timeout=120)
            finally:
                if rec.poll() is None:
                    rec.kill()
                    rec.wait()
    assert rec.returncode == 4, stderr
    assert "Traceback" not in stderr and stderr.count("\n") == 1 and not stdout, stderr
    assert "the server stopped answering after" in stderr and cluster.conninfo not in stderr, stderr
    if out.exists():   # 2 samples or more: kept, each a line after the header
        taken = len(out.read_text().splitlines()) - 1
        assert taken >= 2 and f"its {taken} samples are in {out}" in stderr, stderr
    else:
        assert "nothing was written" in stderr, stderr
