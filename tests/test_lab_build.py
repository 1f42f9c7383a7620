"""The `build` acceptance, run for real in the lab guest: the generated scripts on virtio disks with device-mapper.

One guest boot runs every scenario (the results come back as KEY=VALUE lines):
- offline migration: an ext4 filesystem on a single disk is copied onto a new 3-way LVM stripe by
  run-all.sh (20-lvm, 30-migrate-offline, 40-filesystem); the files' checksums match on the stripe;
  a second run-all.sh changes nothing;
- a disk carrying an ext4 signature is refused by 20-lvm.sh and left untouched;
- online migration: a mounted LV whose extent count is not divisible by 3 is moved onto a 3-way stripe
  with lvconvert (divisible-extents fix, mirror, sync, split, vgreduce, pvremove); checksums match.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from blockfit.lab.disks import Disk, create
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.run import LabRequest, guest_device_names, plan_for, resolve
from lab_helpers import BLOCKFIT, processes_mentioning

pytestmark = [pytest.mark.slow, pytest.mark.lab]

SERIALS = ["m1", "m2", "m3", "src", "sig", "old", "n1", "n2", "n3"]

GUEST = r'''
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin BLOCKFIT_SKIP_ATTACH_CHECK=1
export DM_DISABLE_UDEV=1  # no udevd in the guest: LVM creates the /dev nodes itself
W=$(cd "$(dirname "$0")" && pwd)
res() { echo "$1=$2" >> "$W/results.txt"; }
step() { echo "$*" >> "$W/progress"; }
files() {  # DIR: a few files of random data, checksums in $W/sums-NAME
  for i in 1 2 3; do dd if=/dev/urandom of="$1/f$i" bs=1M count=$((i * 3)) status=none; done
  (cd "$1" && sha256sum f1 f2 f3) > "$W/sums-$2"
}
i=0; for b in /sys/block/vd*; do res "serial_${b##*/}" "$(cat "$b/serial")"; done

step offline
mkfs.ext4 -q -F /dev/vdd && mkdir -p /mnt/src && mount /dev/vdd /mnt/src && files /mnt/src src && umount /mnt/src
bash "$W/off/run-all.sh" > "$W/off.log" 2>&1; res offline_rc $?
res offline_mounted "$(findmnt -n -o SOURCE,FSTYPE /mnt/off | tr ' ' ,)"
(cd /mnt/off && sha256sum --quiet -c "$W/sums-src") >> "$W/off.log" 2>&1; res offline_sums $?
res offline_lv "$(lvs --noheadings -o stripes,stripe_size --units k --nosuffix lab_off/blockfit_lv | xargs)"
before=$(lvs --noheadings -o lv_name,lv_size,stripes lab_off; blkid -p /dev/lab_off/blockfit_lv; cat /etc/fstab)
bash "$W/off/run-all.sh" > "$W/off-rerun.log" 2>&1; res offline_rerun_rc $?
after=$(lvs --noheadings -o lv_name,lv_size,stripes lab_off; blkid -p /dev/lab_off/blockfit_lv; cat /etc/fstab)
[ "$before" = "$after" ]; res offline_rerun_same $?
umount /mnt/off

step signature
bash "$W/sig/20-lvm.sh" > "$W/sig.log" 2>&1; res sig_rc $?
res sig_type "$(blkid -p -s TYPE -o value /dev/vde)"
res sig_pv "$(pvs --noheadings -o pv_name /dev/vde 2>/dev/null | xargs)"

step online
pvcreate -qq /dev/vdf && vgcreate -qq blockfit_vg /dev/vdf && lvcreate -qq -y -l 28 -n data blockfit_vg \
  && mkfs.ext4 -q -F /dev/blockfit_vg/data && mkdir -p /mnt/on && mount /dev/blockfit_vg/data /mnt/on \
  && files /mnt/on on
BLOCKFIT_SYNC_TIMEOUT=240 bash "$W/on/run-all.sh" > "$W/on.log" 2>&1; res online_rc $?
SEGS="lvs --noheadings --segments -o segtype,stripes,stripe_size --units k --nosuffix"
res online_segments "$($SEGS blockfit_vg/data | xargs)"
res online_pvs "$(pvs --noheadings -o pv_name -S vg_name=blockfit_vg | xargs)"
echo 3 > /proc/sys/vm/drop_caches
(cd /mnt/on && sha256sum --quiet -c "$W/sums-on") >> "$W/on.log" 2>&1; res online_sums $?
umount /mnt/on
step done
'''


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
    plan3.write_text(plan_for(resolve(LabRequest(cloud="oci", layout="3x50G@balanced",
                                                 instance="VM.Standard.E3.Flex:4"))).model_dump_json())
    plan1 = work / "plan1.json"
    plan1.write_text(plan_for(resolve(LabRequest(cloud="oci", layout="1x50G@balanced",
                                                 instance="VM.Standard.E3.Flex:4"))).model_dump_json())
    _build(plan3, work / "off", "--manager", "lvm", "--devices", ",".join(dev[s] for s in ("m1", "m2", "m3")),
           "--vg", "lab_off", "--fs", "ext4", "--mount", "/mnt/off", "--migrate-from", dev["src"],
           "--method", "offline")
    _build(plan1, work / "sig", "--manager", "lvm", "--devices", dev["sig"], "--vg", "lab_sig")
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
