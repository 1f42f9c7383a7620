"""How tests/data/diagnose/lab_stripe_slow_member.* were made: `blockfit diagnose` inside the lab guest.

Run with the lab worktree's Python (needs blockfit.lab.run_script from the lab branch); the guest sees the
host root read-only, so it runs the diagnose worktree's own venv.
"""

import time
from pathlib import Path

from blockfit.lab.disks import Disk, Throttle, create, remove
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel

BLOCKFIT = "/work/wt/diagnose/.venv/bin/blockfit"
work = Path("/tmp/blockfit-diagnose-lab/work")
work.mkdir(parents=True, exist_ok=True)
disks = []
for i in range(4):
    iops = 100 if i == 2 else 400  # m3 capped lower than the others
    disks.append(Disk(serial=f"m{i + 1}", path=work / f"m{i + 1}.raw", size_bytes=256 * 1024 * 1024,
                      throttle=Throttle(name=f"vol_m{i + 1}", iops=iops, bps=None)))
script = r"""#!/bin/bash
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
W=__WORK__
export DM_DISABLE_UDEV=1
progress() { echo "$*" >> "$W/progress"; }
declare -A DEV
for b in /sys/block/vd*; do DEV[$(cat "$b/serial")]=/dev/${b##*/}; done
M=("${DEV[m1]}" "${DEV[m2]}" "${DEV[m3]}" "${DEV[m4]}")
echo "members ${M[*]}; m3=${DEV[m3]}" > "$W/members.txt"
progress "lvm"
pvcreate -q -y -ff "${M[@]}" > "$W/build.log" 2>&1 && vgcreate -q bfdiag "${M[@]}" >> "$W/build.log" 2>&1 \
  && lvcreate -q -y -i 4 -I 64k -l 100%FREE -n data bfdiag >> "$W/build.log" 2>&1 || { progress "lvm failed"; exit 1; }
progress "fio"
fio --name=s --filename=/dev/bfdiag/data --rw=randread --bs=8k --direct=1 --ioengine=libaio --iodepth=32 \
    --runtime=60 --time_based --output-format=json > "$W/fio.json" 2> "$W/fio.err" &
FIO=$!
sleep 5
progress "diagnose"
__BLOCKFIT__ diagnose --duration 20s --json --record "$W/diag.jsonl" > "$W/diag.json" 2> "$W/diag.err"
echo "diagnose rc=$?" >> "$W/members.txt"
kill $FIO; wait $FIO
progress "done"
""".replace("__WORK__", str(work)).replace("__BLOCKFIT__", BLOCKFIT)
create(disks)
try:
    t0 = time.time()
    out = run_script(ensure_kernel(print), work, script, disks, None, timeout_s=420,
                     progress=lambda s: print(f"[{time.time() - t0:5.0f}s] {s}", flush=True))
    print(out.exit_status, out.failure, out.elapsed_s)
    if not out.ok:
        print(out.console_tail(30))
finally:
    remove(disks)
