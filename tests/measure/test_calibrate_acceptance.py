"""Issue 5 acceptance on known-cap targets: loop devices throttled by cgroup-v1 blkio (made and removed here).

Caps are low (3,000 IOPS, 60 or 200 MB/s per device) so CPU contention on a shared machine does not distort them.
A loop device takes at most 512 KiB per request: 1 MiB reads are split, and io_uring's split reads are charged
twice by the bps throttle (30 instead of 60 MB/s at every depth), so calibrate reads them with libaio.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit.measure.calibrate import CalibrateOptions, calibrate, measure_point
from blockfit.measure.multihost import fio_server
from blockfit.testbed.loopdev import BLKIO_ROOT, ThrottledLoops, blkio_cgroup, loop_device, throttled_loops

pytestmark = [
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("fio") is None or not (BLKIO_ROOT / "cgroup.procs").exists(),
                       reason="needs root, fio and cgroup-v1 blkio"),
]

IOPS_CAP = 3000
BPS_CAP = 60_000_000
GiB = 1024**3


@pytest.fixture
def capped() -> Iterator[ThrottledLoops]:
    with throttled_loops(1, 4 * GiB, read_iops=IOPS_CAP, read_bps=BPS_CAP, name="calibrate-test") as tl:
        yield tl


def cli_argv(*args: str) -> list[str]:
    return [sys.executable, "-c", "from blockfit.cli import main; main()", "calibrate", *args]


def procs(tl: ThrottledLoops) -> list[int]:
    return [int(p) for p in tl.cgroup.procs_file.read_text().split()]


# Two cases, not the four of the cross: the split large I/O (1 MiB on a device whose largest request is 512 KiB,
# read through libaio) at the higher MB/s cap and an unsplit one at the lower: each cap and each large size is
# measured once (CI time: 27 s a case).
@pytest.mark.parametrize(("large_io", "bps_cap"), [("1m", 200_000_000), ("256k", 60_000_000)],
                         ids=["1m-200MBps", "256k-60MBps"])
def test_capped_loop_device_cli_json(bps_cap: int, large_io: str, tmp_path: Path) -> None:
    png = tmp_path / "curve.png"
    with throttled_loops(1, 4 * GiB, read_iops=IOPS_CAP, read_bps=bps_cap, name="calibrate-test") as capped:
        dev = capped.paths[0]
        out = subprocess.run(capped.cgroup.wrap(cli_argv(dev, "--json", "--duration", "40s", "--io-sizes",
                                                         f"8k,{large_io}",
                                                         "--max-latency", "20ms", "--percentile", "95",
                                                         "--plot", str(png))),
                             capture_output=True, text=True, timeout=600)  # a safety net
        left = procs(capped)
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    curve = [(p["phase"], p["outstanding"], round(p["iops"]), round(p["mbps"], 1), p["flat"]) for p in m["curve"]]
    print(f"\ncalibrate capped {bps_cap / 1e6:g} MB/s {large_io}: MB/s ratio {m['max_mbps'] * 1e6 / bps_cap:.3f}, "
          f"IOPS ratio {m['max_iops'] / IOPS_CAP:.3f}, {len(m['curve'])} points, {m['elapsed_s']:.0f} s")
    assert abs(m["max_iops"] / IOPS_CAP - 1) <= 0.05, (m["max_iops"], curve)
    assert abs(m["max_mbps"] * 1e6 / bps_cap - 1) <= 0.05, (m["max_mbps"], curve)
    # a capped device is saturated from the first doubling on: the sweeps record flat steps and go past them
    for phase in ("small", "large"):
        sweep = [p for p in m["curve"] if p["phase"] == phase and p["gain"] is not None]
        assert any(p["flat"] for p in sweep) and max(p["outstanding"] for p in sweep) >= 8, curve
    split = large_io == "1m"  # the loop device's largest request is 512 KiB
    assert m["large_engine"] == ("libaio" if split and m["engine"] == "io_uring" else None)
    assert m["bound_met"] and 0 < m["latency_ms"] <= 20
    assert m["avg_latency_ms"] > 0
    phases = {p["phase"] for p in m["curve"]}
    assert phases == {"small", "large"}
    assert all(p["p50_ms"] <= p["p95_ms"] <= p["p99_ms"] for p in m["curve"])
    assert m["fio_version"].startswith("fio-") and m["engine"] in ("io_uring", "libaio") and m["direct"]
    large_bytes = 1024 * 1024 if split else 256 * 1024
    assert "bs=8192" in m["job_files"]["max_iops"] and f"bs={large_bytes}" in m["job_files"]["max_mbps"]
    facts = m["device_facts"][0]
    assert facts["loop_direct_io"] is True and facts["size_bytes"] == 4 * GiB and facts["max_io_bytes"] == 512 * 1024
    assert not m["partial"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert left == []


def test_simulated_stripe_of_four_is_four_times_one_with_balance() -> None:
    with throttled_loops(4, 4 * GiB, read_iops=IOPS_CAP, read_bps=BPS_CAP, name="calibrate-test") as tl:
        m = calibrate(tl.paths, CalibrateOptions(duration_s=40, large_io=512 * 1024, launcher=tl.cgroup.launcher()))
    assert abs(m.max_iops / (4 * IOPS_CAP) - 1) <= 0.10, m.max_iops
    assert abs(m.max_mbps * 1e6 / (4 * BPS_CAP) - 1) <= 0.10, m.max_mbps
    assert m.latency_ms <= m.max_latency_ms
    assert set(m.member_share_at_max_iops) == set(tl.paths)
    assert all(abs(share - 0.25) <= 0.05 for share in m.member_share_at_max_iops.values())
    assert all(set(p.member_share) == set(tl.paths) for p in m.curve)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_fio_servers_merge_to_the_sum_of_their_parts(tmp_path: Path) -> None:
    """Two 'hosts' sharing one LUN: fio --server on two loopback ports, each seeing the relative path
    ``shared-lun`` as its own loop device over the same backing file (its own path to the storage), capped at
    2,000 and 1,000 IOPS. (Two throttled cgroups on one loop device lose ~10-20 % between them in blk-throttle,
    so each host gets its own device, as real nodes have their own HBA queue.)

    Parts: each host measured alone. The joint run must equal their sum, and the merged histogram's I/O count
    per second must equal the sum of the hosts' own IOPS.
    """
    caps = (2000, 1000)
    with loop_device(4 * GiB, name="calibrate-test") as la, \
            loop_device(0, name="calibrate-test", backing_file=la.backing_file) as lb, \
            blkio_cgroup("calibrate-test") as cg_a, blkio_cgroup("calibrate-test") as cg_b:
        servers = []
        for name, dev, cg, cap in (("a", la, cg_a, caps[0]), ("b", lb, cg_b, caps[1])):
            cg.limit(dev.major_minor, read_iops=cap)
            (tmp_path / name).mkdir()
            (tmp_path / name / "shared-lun").symlink_to(dev.path)
            servers.append((tmp_path / name, cg))
        with fio_server(_free_port(), launcher=servers[0][1].launcher(), cwd=servers[0][0]) as a, \
                fio_server(_free_port(), launcher=servers[1][1].launcher(), cwd=servers[1][0]) as b:
            def point(hosts: list[str], outstanding: int):  # type: ignore[no-untyped-def]
                return measure_point(["shared-lun"], CalibrateOptions(hosts=hosts), "small", outstanding, 1.0, 3.0)

            alone_a = point([a.label], 4)
            alone_b = point([b.label], 4)
            both = point([a.label, b.label], 8)
            assert abs(both.iops / (alone_a.iops + alone_b.iops) - 1) <= 0.05, (both.iops, alone_a.iops, alone_b.iops)
            assert abs(both.iops / sum(caps) - 1) <= 0.05
            for label, cap in ((a.label, caps[0]), (b.label, caps[1])):
                assert abs(both.host_iops[label] / cap - 1) <= 0.05, both.host_iops
            assert sum(both.host_iops.values()) == pytest.approx(both.iops)
            assert abs(both.ios / both.seconds / sum(both.host_iops.values()) - 1) <= 0.05  # merged bins = sum
            assert both.ios > max(alone_a.ios, alone_b.ios)

            m = calibrate(["shared-lun"], CalibrateOptions(hosts=[a.label, b.label], duration_s=15,
                                                           large_io=512 * 1024))
            assert m.hosts == [a.label, b.label] and set(m.host_iops_at_max_iops) == {a.label, b.label}
            assert abs(m.max_iops / sum(caps) - 1) <= 0.10, m.max_iops
            assert m.device_facts[0].kind == "remote"


def _depth(job_file: Path) -> str:
    """'small-2' of p003-small-2.fio: the phase and depth a calibrate point was measured at."""
    return job_file.stem.split("-", 1)[1]


def _run_and_disrupt(tl: ThrottledLoops, tmp_path: Path, disrupt: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen(tl.cgroup.wrap(cli_argv(tl.paths[0], "--json", "--duration", "120s")), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # A 120 s budget makes each point 10 s long (budget / 12, at most 10 s). Disrupt once the first point is on
    # the curve: calibrate writes the next point's job file (p002-small-2.fio …) only then (a point that is not
    # steady is measured once more at the same depth, p002-small-1: still the first point). Not a fixed sleep: on
    # a busy host the CLI alone took longer than 16 s to start, and the signal hit its imports.
    deadline = time.monotonic() + 300  # a safety net only
    while len({_depth(f) for f in tmpdir.glob("blockfit-calibrate-*/p*.fio")}) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "calibrate measured no point within 300 s"
        time.sleep(0.1)
    while disrupt != "interrupt" and not [p for p in procs(tl) if p != proc.pid]:  # the next point's fio runs
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "calibrate started no second point within 300 s"
        time.sleep(0.05)
    if disrupt == "interrupt":
        proc.send_signal(signal.SIGINT)
    else:  # crash: kill fio itself (every process in the cgroup but the CLI)
        for pid in procs(tl):
            if pid != proc.pid:
                os.kill(pid, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)  # a safety net: a busy host finishes late
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), tmpdir


def test_ctrl_c_leaves_nothing_behind_and_reports_partial_curve(capped: ThrottledLoops, tmp_path: Path) -> None:
    out, tmpdir = _run_and_disrupt(capped, tmp_path, "interrupt")
    assert out.returncode == 130, out.stderr
    m = json.loads(out.stdout)
    assert m["partial"] and m["stopped_by"] == "interrupted" and len(m["curve"]) >= 1
    assert m["max_iops"] > 0
    assert procs(capped) == []  # no fio (nor anything else) left in the test's cgroup
    assert list(tmpdir.iterdir()) == []


def test_fio_crash_leaves_nothing_behind_and_reports_partial_curve(capped: ThrottledLoops, tmp_path: Path) -> None:
    out, tmpdir = _run_and_disrupt(capped, tmp_path, "crash")
    assert out.returncode == 4, out.stderr
    m = json.loads(out.stdout)
    assert m["partial"] and m["stopped_by"].startswith("fio failed") and len(m["curve"]) >= 1
    assert "stopped early" in out.stderr
    assert procs(capped) == []
    assert list(tmpdir.iterdir()) == []


def test_directory_target_creates_and_removes_its_test_file(tmp_path: Path) -> None:
    m = calibrate([str(tmp_path)], CalibrateOptions(duration_s=8, size_bytes=256 * 1024**2, large_io=512 * 1024))
    assert m.device_facts[0].kind == "file" and m.device_facts[0].size_bytes == 256 * 1024**2
    assert m.max_iops > 0 and m.max_mbps > 0
    assert any("only 256 MiB" in w for w in m.warnings)
    assert list(tmp_path.iterdir()) == []


def test_write_test_on_a_block_device_with_allow_write() -> None:
    with throttled_loops(1, 1 * GiB, read_iops=IOPS_CAP, write_iops=IOPS_CAP, name="calibrate-test") as tl:
        m = calibrate(tl.paths, CalibrateOptions(duration_s=8, write_pct=30, allow_write=True,
                                                 large_io=512 * 1024, launcher=tl.cgroup.launcher()))
    assert m.write_pct == 30 and "rw=randrw" in m.job_files["max_iops"] and "rwmixwrite=30" in m.job_files["max_iops"]
    assert 0 < m.max_iops <= 2 * IOPS_CAP * 1.05


def test_page_cache_and_unmeetable_bound_are_warned_about() -> None:
    """A loop device without direct I/O reads through the host page cache; a 1 µs bound cannot be met."""
    with loop_device(1 * GiB, name="calibrate-test", direct_io=False) as dev:
        m = calibrate([dev.path], CalibrateOptions(duration_s=6, max_latency_ms=0.001, large_io=512 * 1024))
    assert not m.bound_met and m.outstanding_at_max_iops == 1 and m.max_iops > 0
    assert any(w.startswith("latency bound never met") for w in m.warnings)
    assert any(w.startswith("page cache in play") and dev.name in w for w in m.warnings)
