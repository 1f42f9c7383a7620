"""The `build` acceptance, run for real in the lab guest: the generated scripts on virtio disks with device-mapper.

One guest boot runs every scenario (the results come back as KEY=VALUE lines):
- offline migration: an ext4 filesystem on a single disk is copied onto a new 3-way LVM stripe by
  run-all.sh (20-lvm, 30-migrate-offline, 40-filesystem); the files' checksums match on the stripe;
  a second run-all.sh changes nothing;
- a disk carrying an ext4 signature is refused by 20-lvm.sh and left untouched;
- online migration: a mounted LV whose extent count is not divisible by 3 is moved onto a 3-way stripe
  with lvconvert (divisible-extents fix, mirror, sync, split, vgreduce, pvremove); checksums match;
- mdadm RAID0 + ext4: a member carrying ext4 is refused by 20-mdadm.sh and left untouched, then forced with
  --force-device; the array has the plan's chunk, ext4 its stride; a second run-all.sh changes nothing.
The guest script is tests/lab/build_lab_guest.sh.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from blockfit.lab.buildscripts import guest_device_names, plan_for
from blockfit.lab.disks import Disk, create
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.run import resolve
from support.lab import BLOCKFIT, lab_request, processes_mentioning

pytestmark = [pytest.mark.slow, pytest.mark.lab]

SERIALS = ["m1", "m2", "m3", "src", "sig", "old", "n1", "n2", "n3", "r1", "r2"]

GUEST = (Path(__file__).parent / "build_lab_guest.sh").read_text()


def _build(plan: Path, out: Path, *args: str) -> None:
    proc = subprocess.run([BLOCKFIT, "build", "--plan", str(plan), "--out", str(out), *args],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def guest_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    kernel = ensure_kernel()
    work = tmp_path_factory.mktemp("lab-build")
    dev = dict(zip(SERIALS, guest_device_names(len(SERIALS)), strict=True))
    plan3 = work / "plan3.json"
    plan3.write_text(plan_for(resolve(lab_request(cloud="oci", layout="3x50G@balanced",
                                                 instance="VM.Standard.E3.Flex:4"))).model_dump_json())
    plan1 = work / "plan1.json"
    plan1.write_text(plan_for(resolve(lab_request(cloud="oci", layout="1x50G@balanced",
                                                 instance="VM.Standard.E3.Flex:4"))).model_dump_json())
    _build(plan3, work / "off", "--manager", "lvm", "--devices", ",".join(dev[s] for s in ("m1", "m2", "m3")),
           "--vg", "lab_off", "--fs", "ext4", "--mount", "/mnt/off", "--migrate-from", dev["src"],
           "--method", "offline")
    _build(plan1, work / "sig", "--manager", "lvm", "--devices", dev["sig"], "--vg", "lab_sig")
    plan2 = work / "plan2.json"
    plan2.write_text(plan_for(resolve(lab_request(cloud="oci", layout="2x50G@balanced",
                                                 instance="VM.Standard.E3.Flex:4"))).model_dump_json())
    _build(plan2, work / "md", "--manager", "mdadm", "--devices", f"{dev['r1']},{dev['r2']}", "--fs", "ext4",
           "--mount", "/mnt/md")
    _build(plan3, work / "on", "--manager", "lvm", "--devices", ",".join(dev[s] for s in ("n1", "n2", "n3")),
           "--migrate-from", "/dev/blockfit_vg/data", "--method", "online")
    sizes = {"src": 320}
    disks = [Disk(s, work / f"{s}.raw", sizes.get(s, 256) << 20, None) for s in SERIALS]
    create(disks)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(work / "sig.raw")], check=True, capture_output=True)
    outcome = run_script(kernel, work, GUEST, disks, None, timeout_s=600)
    logs = {p.name: p.read_text(errors="replace")[-1500:] for p in work.glob("*.log")}
    assert outcome.exit_status == 0, (outcome.failure, outcome.console_tail(), logs.get("script.log"))
    results = dict(line.split("=", 1) for line in (work / "results.txt").read_text().splitlines())
    assert processes_mentioning(str(work)) == []
    return results, work


def test_guest_names_disks_as_the_scripts_expect(guest_results: tuple[dict[str, str], Path]) -> None:
    results, _ = guest_results
    names = dict(zip(guest_device_names(len(SERIALS)), SERIALS, strict=True))
    for path, serial in names.items():
        assert results[f"serial_{path.removeprefix('/dev/')}"] == serial


def test_offline_migration_copies_the_filesystem_with_matching_checksums(
        guest_results: tuple[dict[str, str], Path]) -> None:
    r, work = guest_results
    assert r["offline_rc"] == "0", (work / "off.log").read_text()[-2000:]
    assert r["offline_lv"].split()[0] == "3"  # three stripes
    assert r["offline_mounted"].endswith(",ext4")
    assert r["offline_sums"] == "0"


def test_rerun_of_completed_scripts_changes_nothing(guest_results: tuple[dict[str, str], Path]) -> None:
    r, work = guest_results
    assert r["offline_rerun_rc"] == "0", (work / "off-rerun.log").read_text()[-2000:]
    assert r["offline_rerun_same"] == "0"


def test_disk_with_ext4_signature_is_refused_and_untouched(guest_results: tuple[dict[str, str], Path]) -> None:
    r, work = guest_results
    assert r["sig_rc"] != "0"
    assert "signature" in (work / "sig.log").read_text().lower() or "ext4" in (work / "sig.log").read_text()
    assert r["sig_type"] == "ext4" and r["sig_pv"] == ""


def test_online_lvconvert_migration_completes_with_divisible_extents(
        guest_results: tuple[dict[str, str], Path]) -> None:
    r, work = guest_results
    log = (work / "on.log").read_text()
    assert r["online_rc"] == "0", log[-3000:]
    assert "not divisible by 3" in log
    segtype, stripes, _size = r["online_segments"].split()[:3]
    assert (segtype, stripes) == ("striped", "3")
    assert "/dev/vdf" not in r["online_pvs"].split()  # the old PV left the VG
    assert r["online_sums"] == "0"


def test_mdadm_raid0_ext4_refuses_a_used_disk_then_builds_when_forced(
        guest_results: tuple[dict[str, str], Path]) -> None:
    r, work = guest_results
    assert r["md_unforced_rc"] != "0" and r["md_r1_type"] == "ext4", (work / "md-refused.log").read_text()[-2000:]
    assert r["md_rc"] == "0", (work / "md.log").read_text()[-3000:]
    chunk = json.loads((work / "plan2.json").read_text())["candidates"][0]["prediction"]["layout_detail"]["stripe_size"]
    assert r["md_array"].split() == ["raid0", "2", str(chunk)]
    assert r["md_mounted"] == "ext4"
    assert r["md_stride"] == str(chunk // 4096)  # ext4 stride in 4 KiB blocks = the chunk
    assert r["md_rerun_rc"] == "0" and r["md_rerun_runs"] == "0", (work / "md-rerun.log").read_text()[-2000:]
