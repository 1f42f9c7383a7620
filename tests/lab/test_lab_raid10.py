"""Mirroring checked against the lab (issue 14): an mdadm RAID10 built in the guest by the generated scripts,
measured for writes, against the model at read share 0 where every logical write costs two volume writes.

The hand-checked case: 4 x 50 GB OCI Balanced (60 IOPS/GB, 480 KiB/s per GB) on VM.Standard.E4.Flex:8. Each member
does 50 x 60 = 3,000 IOPS and 50 x 480 KiB/s = 24,000 KiB/s = 24.576 MB/s; striped (RAID0) the four write
12,000 IOPS and 98.304 MB/s, mirrored (RAID10) half: 6,000 IOPS and 49.152 MB/s. The instance (8 OCPUs: 8 Gbps,
960 MB/s; at RAID10 each direction carries writes x 2, 480 MB/s) is far above either.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from blockfit.lab.figures import emulated_limit
from blockfit.lab.run import fio_rw, resolve
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout
from support.lab import (
    assert_matches_model,
    assert_nothing_left,
    assert_valid_bash,
    lab_request,
    render_lab_script,
    run_lab_cli,
)

LAYOUT, INSTANCE = "4x50G@balanced", "VM.Standard.E4.Flex:8"
ARGS = ("--cloud", "oci", "--layout", LAYOUT, "--instance", INSTANCE, "--manager", "mdadm")


def test_raid10_write_prediction_is_half_of_raid0_when_volume_bound() -> None:
    layout = parse_layout(LAYOUT, "oci", manager="mdadm")
    instance = parse_instance(INSTANCE, "oci")
    writes = Workload(read_pct=0)
    raid0 = predict(layout, instance, writes)
    raid10 = predict(layout.model_copy(update={"redundancy": "raid10"}), instance, writes)
    assert (raid0.max_iops, raid0.max_mbps) == pytest.approx((12_000, 98.304), rel=1e-3)
    assert (raid10.max_iops, raid10.max_mbps) == pytest.approx((6_000, 49.152), rel=1e-3)
    assert raid0.iops_limited_by == raid10.iops_limited_by == "volume_iops_per_gb"
    assert raid0.mbps_limited_by == raid10.mbps_limited_by == "volume_mbps_per_gb"
    # the lab compares with the same figure: its emulated limits at read share 0, mirrored
    subject = resolve(lab_request(cloud="oci", layout=LAYOUT, instance=INSTANCE, manager="mdadm", redundancy="raid10"))
    assert subject.direction == "write" and subject.layout.redundancy == "raid10"
    assert subject.stripe.workload.read_pct == 0 and subject.stripe.write_amplification == 2
    assert emulated_limit(subject.stripe, "iops")[1] == pytest.approx(6_000, rel=1e-3)
    assert emulated_limit(subject.stripe, "mbps")[1] == pytest.approx(49.152, rel=1e-3)
    # the single volume (same raw size, 1 x 200 GB) cannot mirror: it writes at RAID0's figures
    assert subject.single is not None and subject.single.layout_detail.redundancy == "none"
    assert (subject.single.max_iops, subject.single.max_mbps) == pytest.approx((12_000, 98.304), rel=1e-3)


def test_without_redundancy_the_lab_still_measures_reads() -> None:
    subject = resolve(lab_request(cloud="oci", layout=LAYOUT, instance=INSTANCE, manager="mdadm"))
    assert subject.direction == "read" and subject.stripe.workload.read_pct == 100
    assert [fio_rw("read", small) for small in (True, False)] == ["randread", "randread"]
    assert [fio_rw("write", small) for small in (True, False)] == ["randwrite", "write"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "blockfit"), "lab", *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60)


@pytest.mark.parametrize(("args", "needle"), [
    (("--cloud", "oci", "--layout", LAYOUT, "--instance", INSTANCE, "--redundancy", "raid10"), "--manager mdadm"),
    ((*ARGS, "--redundancy", "normal"), "mdadm RAID10 only"),
    ((*ARGS, "--redundancy", "raid5"), "expected none or raid10"),
    (("--cloud", "oci", "--layout", "1x50G@balanced", "--instance", INSTANCE, "--manager", "mdadm",
      "--redundancy", "raid10"), "at least 2 members"),
    ((*ARGS, "--redundancy", "raid10", "--bench", "oltp"), "without --bench"),
])
def test_lab_redundancy_refusals_are_one_line_exit_2(args: tuple[str, ...], needle: str, tmp_path: Path) -> None:
    proc = _cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("use_build", [True, False], ids=["build-scripts", "plain"])
def test_rendered_raid10_guest_script_measures_writes(tmp_path: Path, use_build: bool) -> None:
    text = render_lab_script(
        tmp_path, use_build=use_build, rerun_check=use_build, members=4, member_serials=["m1", "m2", "m3", "m4"],
        expected_devices=["/dev/vda", "/dev/vdb", "/dev/vdc", "/dev/vdd"], manager="mdadm", writes=True,
        md_level="raid10")
    assert "${c[4]} ${c[6]}" in text and "--readonly" not in text and "modprobe raid10" in text
    assert '"raid10 4 4096"' in text
    assert ("BLOCKFIT_MDADM_ASSUME_CLEAN=1" if use_build else "--level=10 --layout=n2 --assume-clean") in text
    assert_valid_bash(tmp_path / "raid10.sh", text)


# ---------------------------------------------------------------- the guest
_result: dict[str, tuple[dict[str, Any], Path]] = {}


@pytest.fixture
def raid10_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """One guest run (the CLI, as a user runs it) serves every assertion below."""
    if "run" not in _result:
        runs = tmp_path_factory.mktemp("lab-runs-raid10")
        report = tmp_path_factory.mktemp("lab-report-raid10") / "raid10.html"
        r = run_lab_cli(runs, *ARGS, "--redundancy", "raid10", "--report", str(report))
        r["_report"] = report.read_text()
        for f in (r, r["single"] or r):  # the figures, for the log (pytest -s or -rA)
            print(f"{f['layout']} writes: {f['measured_iops']:,.1f} IOPS / model {f['predicted_iops']:,.1f} = "
                  f"{f['iops_ratio']:.3f}; {f['measured_mbps']:.2f} MB/s / model {f['predicted_mbps']:.2f} = "
                  f"{f['mbps_ratio']:.3f} (scale {r['scale']:g}, guest {r['guest_seconds']:g} s)")
        _result["run"] = (r, runs)
    return _result["run"]


@pytest.mark.slow
@pytest.mark.lab
def test_raid10_writes_within_10_percent_of_the_model(raid10_run: tuple[dict[str, Any], Path]) -> None:
    r, _ = raid10_run
    assert r["direction"] == "write" and r["redundancy"] == "raid10" and r["members"] == 4
    # the scaled model: 6,000 IOPS and 49.152 MB/s x scale (the hand-checked figures above)
    assert r["predicted_iops"] == pytest.approx(6_000 * r["scale"], rel=1e-3)
    assert r["predicted_mbps"] == pytest.approx(49.152 * r["scale"], rel=2e-3)
    assert_matches_model(r, "iops", 0.10)
    assert_matches_model(r, "mbps", 0.10)
    assert r["limited_by"] == r["predicted_limited_by"] == {"iops": "volume_iops_per_gb", "mbps": "volume_mbps_per_gb"}


@pytest.mark.slow
@pytest.mark.lab
def test_raid10_writes_half_what_the_same_raw_volume_writes(raid10_run: tuple[dict[str, Any], Path]) -> None:
    """The single volume (1 x 200 GB: the four members' caps, unmirrored) measured for writes in the same guest."""
    r, _ = raid10_run
    s = r["single"]
    assert s is not None and s["layout"].startswith("1x200G")
    assert_matches_model(s, "iops", 0.10)
    assert_matches_model(s, "mbps", 0.10)
    for kind in ("iops", "mbps"):  # measured side by side in one guest: the mirror's cost
        half = r[f"measured_{kind}"] / s[f"measured_{kind}"]
        print(f"RAID10 / single {kind}: {half:.3f} (model 0.5)")
        assert half == pytest.approx(0.5, rel=0.10), (kind, half, r[f"{kind}_spread"], s[f"{kind}_spread"])


@pytest.mark.slow
@pytest.mark.lab
def test_raid10_was_built_by_the_scripts_and_nothing_left(raid10_run: tuple[dict[str, Any], Path]) -> None:
    r, runs = raid10_run
    steps = {s["name"]: s for s in r["steps"]}
    assert all(s["ok"] for s in r["steps"]), r["steps"]
    assert "run-all.sh" in steps
    assert steps["mdadm raid10"]["detail"].startswith("md") and "raid10 4 4096" in steps["mdadm raid10"]["detail"]
    assert "layout n2, sync idle" in steps["mdadm raid10"]["detail"]
    assert "checksums match" in steps["xfs check"]["detail"]
    assert_nothing_left(runs)


@pytest.mark.slow
@pytest.mark.lab
def test_raid10_report_says_writes_were_measured(raid10_run: tuple[dict[str, Any], Path]) -> None:
    r, _ = raid10_run
    html = r["_report"]
    assert "measured for writes" in html and "Predicted against measured writes" in html
