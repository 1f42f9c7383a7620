"""diagnose in the lab guest: a 4-member LVM stripe with one member capped lower is diagnosed naming that
member, and the capture recorded in the guest replays to the same Findings (issue 7, item 4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blockfit.lab.disks import Disk, Throttle, create, remove
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel

pytestmark = [pytest.mark.slow, pytest.mark.lab]

BLOCKFIT = str(Path(sys.executable).parent / "blockfit")

SCRIPT = r"""#!/bin/bash
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DM_DISABLE_UDEV=1
W=__WORK__
modprobe dm_mod || true
declare -A DEV
for b in /sys/block/vd*; do DEV[$(cat "$b/serial")]=${b##*/}; done
M=(/dev/${DEV[m1]} /dev/${DEV[m2]} /dev/${DEV[m3]} /dev/${DEV[m4]})
echo "${DEV[m3]}" > "$W/slow-member"
rm -f /etc/lvm/devices/system.devices
pvcreate -q -y -ff "${M[@]}" > "$W/build.log" 2>&1 && vgcreate -q bfdiag "${M[@]}" >> "$W/build.log" 2>&1 \
  && lvcreate -q -y -i 4 -I 64k -l 100%FREE -n data bfdiag >> "$W/build.log" 2>&1 || exit 1
fio --name=s --filename=/dev/bfdiag/data --rw=randread --bs=8k --direct=1 --ioengine=libaio --iodepth=32 \
    --runtime=40 --time_based --output-format=json > "$W/fio.json" 2> "$W/fio.err" &
FIO=$!
sleep 4
__BLOCKFIT__ diagnose --duration 15s --json --record "$W/diag.jsonl" > "$W/diag.json" 2> "$W/diag.err"
RC=$?
kill $FIO; wait $FIO
vgchange -q -an bfdiag > /dev/null 2>&1
exit $RC
"""


def test_slow_stripe_member_named_in_guest_and_replay_agrees(tmp_path: Path) -> None:
    if Path(BLOCKFIT).resolve().is_relative_to("/tmp"):
        pytest.skip("the guest mounts a fresh tmpfs on /tmp, hiding a checkout under the host's /tmp")
    work = tmp_path / "work"
    work.mkdir()
    disks = [Disk(serial=f"m{i + 1}", path=work / f"m{i + 1}.raw", size_bytes=256 * 1024 * 1024,
                  throttle=Throttle(name=f"vol_m{i + 1}", iops=100 if i == 2 else 400, bps=None)) for i in range(4)]
    create(disks)
    try:
        script = SCRIPT.replace("__WORK__", str(work)).replace("__BLOCKFIT__", BLOCKFIT)
        out = run_script(ensure_kernel(lambda _msg: None), work, script, disks, None, timeout_s=300)
        assert out.ok, out.console_tail(30)
    finally:
        remove(disks)
    slow = (work / "slow-member").read_text().strip()
    live = json.loads((work / "diag.json").read_text())
    kinds = ("stripe_slow_member", "stripe_imbalance", "member_cap")
    named = {f["device"] for f in live["findings"] if f["kind"] in kinds}
    assert slow in named, live["findings"]
    assert not named - {slow, "dm-0"}, "only the slow member (or the stripe it holds) may be named"
    replay = subprocess.run([BLOCKFIT, "diagnose", "--replay", str(work / "diag.jsonl"), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    replayed = json.loads(replay.stdout)["findings"]
    key = sorted((f["kind"], f["device"]) for f in live["findings"])
    assert sorted((f["kind"], f["device"]) for f in replayed) == key
