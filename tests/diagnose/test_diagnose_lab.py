"""diagnose in the lab guest: a 4-member LVM stripe with one member capped lower is diagnosed naming that
member, and the capture recorded in the guest replays to the same Findings (issue 7, item 4).

The caps are set against the emulator's own speed measured in the same guest (issue 26, finding 12): the stripe
is read uncapped first, then the slow member is capped so the stripe (4 x its cap: random reads spread evenly)
runs at most at a quarter of that, the others at 4 x the slow one, as the 100 / 400 IOPS of the recorded capture
(tests/data/diagnose) when the host is idle. On a busy host TCG itself is slower, and a slow member that the
emulator never drives to its cap is not a slow member: the failure says which held the stripe."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blockfit.lab.caps import CapControl
from blockfit.lab.disks import Disk, Throttle, create, remove
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.windows import REFERENCE_PLAN, window_rate

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
snap() { local c; read -r -a c < "/sys/dev/block/$1/stat"; echo "${EPOCHREALTIME/,/.} ${c[0]} ${c[2]}"; }
LV=$(stat -L -c '%t %T' /dev/bfdiag/data | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
load() {  # NAME: fio reads the stripe until it is stopped (a busy host starts fio, and diagnose, late: no runtime
  # of fio's own may end the load before the measurement); returns once the first read completed
  local first i
  first=$(snap "$LV")
  fio --name="$1" --filename=/dev/bfdiag/data --rw=randread --bs=8k --direct=1 --ioengine=libaio --iodepth=32 \
    --readonly --runtime=900 --time_based --output-format=json > "$W/fio-$1.json" 2> "$W/fio-$1.err" &
  FIO=$!
  for ((i = 0; i < 600; i++)); do
    sleep 0.1
    [ "$(snap "$LV" | cut -d' ' -f2-)" = "${first#* }" ] || return 0
    kill -0 $FIO 2> /dev/null || { echo "fio $1 ended: $(cat "$W/fio-$1.err")" >&2; exit 5; }
  done
  echo "fio $1 did no I/O in 60 s" >&2; exit 5
}
# the reference: the emulator's own speed on this stripe, caps lifted
__CAPS__ lift > "$W/caps.log" 2>&1 || exit 3
load ref
sleep 1
snap "$LV" > "$W/rate-ref.txt"
for _ in $(seq __REF_SUB_WINDOWS__); do sleep __REF_SECONDS__; snap "$LV" >> "$W/rate-ref.txt"; done
kill -INT $FIO; wait $FIO
__CAPS__ fit >> "$W/caps.log" 2>&1 || exit 4
load s
sleep 4
__BLOCKFIT__ diagnose --duration 15s --json --record "$W/diag.jsonl" > "$W/diag.json" 2> "$W/diag.err"
RC=$?
kill -INT $FIO; wait $FIO
vgchange -q -an bfdiag > /dev/null 2>&1
exit $RC
"""


SLOW_AT_MOST, FAST_PER_SLOW = 100, 4  # the recorded capture's caps: 100 IOPS, and 400 for the others
STRIPE_SHARE = 0.25  # the capped stripe (4 x the slow member) runs at most at this share of the emulator's own speed


def caps_for(reference_iops: float) -> tuple[int, int]:
    """(slow, fast) member caps: the stripe at 4 x slow, at most a quarter of what the emulator did uncapped."""
    slow = max(10, min(SLOW_AT_MOST, int(reference_iops * STRIPE_SHARE / 4)))
    return slow, FAST_PER_SLOW * slow


def test_slow_stripe_member_named_in_guest_and_replay_agrees(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    disks = [Disk(serial=f"m{i + 1}", path=work / f"m{i + 1}.raw", size_bytes=256 * 1024 * 1024,
                  throttle=Throttle(name=f"vol_m{i + 1}", iops=SLOW_AT_MOST if i == 2 else SLOW_AT_MOST * 4, bps=None))
             for i in range(4)]
    caps = CapControl(work, [d.throttle for d in disks if d.throttle is not None])
    fitted: dict[str, float] = {}

    def fit() -> None:  # the host's answer to the guest's `lab-caps fit`
        reference = window_rate(work / "rate-ref.txt", "iops").value
        slow, fast = caps_for(reference)
        fitted.update(reference=reference, slow=slow, fast=fast)
        caps.groups = [Throttle(name=t.name, iops=slow if t.name == "vol_m3" else fast, bps=None) for t in caps.groups]
        caps.apply()

    caps.handlers["fit"] = fit
    create(disks)
    try:
        script = (SCRIPT.replace("__WORK__", str(work)).replace("__BLOCKFIT__", BLOCKFIT)
                  .replace("__CAPS__", str(caps.guest_command))
                  .replace("__REF_SUB_WINDOWS__", str(REFERENCE_PLAN.least))
                  .replace("__REF_SECONDS__", f"{REFERENCE_PLAN.seconds:g}"))
        out = run_script(ensure_kernel(lambda _msg: None), work, script, disks, None, timeout_s=900, caps=caps)
        assert out.ok, out.console_tail(30)
    finally:
        remove(disks)
    assert caps.log == ["lift ok", "fit ok"], caps.log
    slow = (work / "slow-member").read_text().strip()
    live = json.loads((work / "diag.json").read_text())
    stripe = next((d for d in live["devices"] if d["device"] == "dm-0"), {})
    print(f"emulator uncapped {fitted['reference']:.0f} IOPS on the stripe; caps {fitted['slow']:.0f} (slow) / "
          f"{fitted['fast']:.0f}; the stripe did {stripe.get('iops', 0):.0f} (4 x slow = {4 * fitted['slow']:.0f})")
    kinds = ("stripe_slow_member", "stripe_imbalance", "member_cap")
    named = {f["device"] for f in live["findings"] if f["kind"] in kinds}
    held = stripe.get("iops", 0) / (4 * fitted["slow"])  # 1.0: the slow member's cap held the stripe
    cause = (f"the stripe did {held:.2f} of 4 x the slow member's cap: "
             + ("the emulator, not the slow member, held it" if held < 0.9 else "the slow member's cap held it"))
    assert slow in named, (cause, live["findings"])
    assert not named - {slow, "dm-0"}, ("only the slow member (or the stripe it holds) may be named", cause,
                                        live["findings"])
    replay = subprocess.run([BLOCKFIT, "diagnose", "--replay", str(work / "diag.jsonl"), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    replayed = json.loads(replay.stdout)["findings"]
    key = sorted((f["kind"], f["device"]) for f in live["findings"])
    assert sorted((f["kind"], f["device"]) for f in replayed) == key
