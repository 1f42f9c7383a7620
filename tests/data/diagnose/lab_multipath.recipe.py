"""How tests/data/diagnose/lab_multipath_{spread,one_path}.* were made: `blockfit diagnose` in the lab guest.

One emulated volume (qemu throttle-group 1,200 IOPS) reached through two paths: two virtio-blk devices,
each on its own 300-IOPS throttle node over the same image (blockfit.lab.qemu, Disk.paths). In the guest
dm-multipath is set up by hand with dmsetup, as multipathd would, once per case:

- spread:   one path group holding both paths, round-robin  → I/O alternates over both paths;
- one_path: two path groups of one path each (the failover grouping multipath-tools uses unless told
            otherwise) → only the active group's path carries I/O.

fio randread 8k iodepth 16 drives the map (started first: python starts slowly under TCG, so fio runs until
diagnose is done); `blockfit diagnose --duration 12s --record` samples it.
Run from the worktree root with its own venv: `.venv/bin/python tests/data/diagnose/lab_multipath.recipe.py`.
"""

import shutil
import sys
import time
from pathlib import Path

from blockfit.lab.disks import Disk, Throttle, create, remove
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel

BLOCKFIT = str(Path(sys.executable).parent / "blockfit")
OUT = Path(__file__).parent
work = Path.home() / ".cache" / "blockfit" / "lab" / "runs" / "diagnose-multipath"
work.mkdir(parents=True, exist_ok=True)
disks = [Disk(serial="mp", path=work / "mp.raw", size_bytes=256 * 1024 * 1024,
              throttle=Throttle(name="vol_mp", iops=1200, bps=None), paths=2,
              path_throttle=Throttle(name="path_mp", iops=300, bps=None))]
script = r"""#!/bin/bash
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DM_DISABLE_UDEV=1
W=__WORK__
progress() { echo "$*" >> "$W/progress"; }
modprobe dm_multipath; modprobe dm_round_robin
declare -A DEV
for b in /sys/block/vd*; do DEV[$(cat "$b/serial")]=/dev/${b##*/}; done
P1=${DEV[mp-p1]}; P2=${DEV[mp-p2]}
SZ=$(blockdev --getsz "$P1")
echo "paths $P1 $P2" > "$W/paths.txt"
record() {  # CASE TABLE
  dmsetup create bfmp --uuid "mpath-blockfit-lab-$1" --table "0 $SZ multipath $2" \
    || { progress "dmsetup $1 failed"; exit 1; }
  dmsetup table bfmp >> "$W/paths.txt"; dmsetup status bfmp >> "$W/paths.txt"
  fio --name=s --filename=/dev/mapper/bfmp --rw=randread --bs=8k --direct=1 --ioengine=libaio --iodepth=16 \
      --runtime=240 --time_based --output-format=json > "$W/fio-$1.json" 2> "$W/fio-$1.err" &
  FIO=$!
  sleep 4
  progress "diagnose $1"
  __BLOCKFIT__ diagnose --duration 12s --json --record "$W/$1.jsonl" > "$W/$1.json" 2> "$W/$1.err"
  echo "$1 diagnose rc=$?" >> "$W/paths.txt"
  kill $FIO; wait $FIO
  dmsetup remove bfmp
}
record spread "0 0 1 1 round-robin 0 2 1 $P1 1 $P2 1"
record one_path "0 0 2 1 round-robin 0 1 1 $P1 1 round-robin 0 1 1 $P2 1"
progress "done"
""".replace("__WORK__", str(work)).replace("__BLOCKFIT__", BLOCKFIT)
create(disks)
try:
    t0 = time.time()
    out = run_script(ensure_kernel(print), work, script, disks, None, timeout_s=600,
                     progress=lambda s: print(f"[{time.time() - t0:5.0f}s] {s}", flush=True))
    print(out.exit_status, out.failure, round(out.elapsed_s), (work / "paths.txt").read_text(), sep="\n")
    if not out.ok:
        print(out.console_tail(30))
    for case in ("spread", "one_path"):
        shutil.copyfile(work / f"{case}.jsonl", OUT / f"lab_multipath_{case}.jsonl")
        shutil.copyfile(work / f"{case}.json", OUT / f"lab_multipath_{case}.live.json")
finally:
    remove(disks)
    shutil.rmtree(work, ignore_errors=True)
