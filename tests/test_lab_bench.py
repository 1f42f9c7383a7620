"""`blockfit lab --bench`: two layouts in one guest, PostgreSQL on each, the model's ratio beside the database's."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from blockfit.lab.bench import LabBenchRequest, sides
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.run import LabRequest, resolve
from lab_helpers import BLOCKFIT, assert_nothing_left, interrupt_lab_when, lab_env, run_lab_cli
from report_helpers import check_self_contained, kinds_in_order, section_html

OCI = ("--cloud", "oci", "--instance", "VM.Standard.E3.Flex:12")
# 4 x 1000 GB balanced: each member at OCI's per-volume cap of 25,000 IOPS, so the 4,000 GB single volume (also
# at that cap) has a quarter of the stripe's aggregate caps at the same total size.
FOUR = ("--layout", "4x1000G@balanced")


@pytest.mark.parametrize(("args", "needle"), [
    (("--bench", "oltp,fast"), "fast"),
    (("--bench", "oltp", "--repeat", "0"), "--repeat"),
    (("--bench", "oltp", "--bench-vs", "zfs"), "--bench-vs"),
    (("--bench", "oltp", "--bench-vs", "lvm"), "--bench-vs lvm"),  # lvm is already --manager
    (("--bench", "oltp", "--profile", "huge"), "--profile"),
    (("--bench-vs", "mdadm"), "--bench"),  # bench options without --bench
])
def test_bad_bench_input_is_one_line_exit_2_and_creates_nothing(tmp_path: Path, args: tuple[str, ...],
                                                                  needle: str) -> None:
    runs = tmp_path / "runs"
    proc = subprocess.run([BLOCKFIT, "lab", *OCI, *FOUR, *args], capture_output=True, text=True,
                          env=lab_env(runs), stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not runs.exists() or not list(runs.iterdir())


def test_sides_single_against_stripe_and_manager_against_manager() -> None:
    lab = LabRequest(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12")
    subject = resolve(lab)
    base, other = sides(LabBenchRequest(lab=lab, versus="single"), subject)
    assert (base.members, base.manager, base.size_gb) == (1, "none", 4000)
    assert (other.members, other.manager, other.size_gb) == (4, "lvm", 1000)
    assert other.iops == pytest.approx(4 * base.iops)  # over the rate caps the lab emulates
    base, other = sides(LabBenchRequest(lab=LabRequest(**{**lab.__dict__, "manager": "mdadm"}), versus="lvm"),
                        subject)
    assert (base.label, base.manager, other.label, other.manager) == ("mdadm", "mdadm", "lvm", "lvm")
    assert base.members == other.members == 4
    assert base.names != other.names  # the two build script sets name their VG / array apart


@pytest.mark.slow
@pytest.mark.lab
def test_stripe_beats_single_volume_on_select_only_oltp_quick_profile(tmp_path: Path) -> None:
    """Single volume vs a 4-way stripe with 4x its aggregate caps, select-only OLTP, quick profile: the stripe wins
    with a CI above 1, the model's ratio beside it, its members balanced. Only select-only runs (`--bench
    oltp-select`): TPC-B, DSS and load, and LVM vs mdadm, are not asserted yet (on this 2-core host DSS came out
    CPU-bound, 0/6 runs I/O-bound; see issue 12's notes), and measuring TPC-B unasserted cost CI minutes."""
    runs = tmp_path / "runs"
    started = time.monotonic()
    report = tmp_path / "lab-bench.html"
    r = run_lab_cli(runs, *OCI, *FOUR, "--bench", "oltp-select", "--report", str(report),
                    timeout=1800)
    print(f"lab bench quick, single vs 4-way stripe, select-only: {time.monotonic() - started:.0f} s wall")
    assert r["kind"] == "lab-bench"
    assert r["cap_changes"] == ["lift ok", "apply ok"]  # loaded uncapped, measured capped
    ratios = {x["measure"]: x for x in r["ratios"]}
    x = ratios["oltp-select"]
    assert x["verdict"] == "faster", x  # the stripe (the other layout) wins, its CI excluding "no difference"
    assert x["ci_low"] > 1.0, x
    assert x["predicted_ratio"] == pytest.approx(4.0, rel=0.01)  # the model's ratio beside the measured one
    # 8 KiB random reads reach all 4 members: least / most by I/O counts. Measured 0.68 in CI (2026-11-23), where
    # uniform random reads would give ~0.95: the skew is real and not yet explained (issue 12, open), so this holds
    # the stripe to "no member left idle", not to "balanced".
    assert r["other"]["member_balance"]["oltp-select"] >= 0.5, r["other"]
    html = report.read_text()  # --report wrote the lab-bench section beside the printed JSON
    check_self_contained(html)
    assert kinds_in_order(html) == ["lab-bench"]
    assert "lab-bench-ratios" in section_html(html, "lab-bench")
    assert_nothing_left(runs)


@pytest.mark.slow
@pytest.mark.lab
@pytest.mark.parametrize("phase", ["building"])
def test_interrupt_at_any_phase_leaves_nothing(tmp_path: Path, phase: str) -> None:
    """Ctrl-C while the layouts are built: no qemu, socket, disk file or work dir left."""
    ensure_kernel()
    qmp_before = set(Path("/tmp").glob("blockfit-qmp-*"))
    runs = tmp_path / "runs"
    code, err = interrupt_lab_when(runs, [*OCI, "--layout", "2x500G@balanced", "--bench", "oltp", "--json"],
                                   phase, 900)
    assert code == 130, err
    assert_nothing_left(runs)
    assert set(Path("/tmp").glob("blockfit-qmp-*")) <= qmp_before, "a QMP socket dir outlived the run"
