"""A 4-way stripe at low concurrency, in the lab guest: an mdadm RAID0 of four rate-capped disks read at 1, 4, 16
and 64 outstanding 4k I/Os, against the model's prediction at each depth.

Under TCG the guest's own CPU time per I/O (fio, md, virtio) is a latency floor that grows with depth; it is
measured in the same run on the same stripe of four uncapped disks at each depth (the reference) and is the
prediction's time per I/O there (the lab's host latency); the members' caps are the qemu throttle groups'. Each
cap (150 IOPS: 6.7 ms between I/Os) is slower than one I/O, so it paces rather than serves (queueing.network_for):
the stripe gets the reference's pace until the four caps together bind, from depth 1 on here.

Each cap banks one second of its rate, as a cap stated per second does: with qemu's own bucket (a tenth of a
second, 15 I/Os) random I/O over four members loses credit (one member's bucket is full while another's I/O
waits), and the stripe measured 555 IOPS at depth 1 of the 600 the four caps give, 8 % of the 10 % bound. The
ramp (2 s) spends what each group banked between runs before the window opens. Deep queues wait on the
throttle's timers, which a loaded host fires late (the stripe measured 547 at depth 64 in two runs): one disk
capped at the four caps' sum, read at each depth in the same run, is what the emulator's throttle delivers
there, and its quarter is the members' cap the prediction takes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from blockfit.lab.disks import Disk, Throttle, create
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from blockfit.model import queueing
from support.lab import processes_mentioning

DEPTHS = (1, 4, 16, 64)
MEMBERS = 4
CAP_IOPS = 150          # each member's throttle group
WINDOW_S = 4


def _script(work: Path) -> str:
    jobs = " ".join(str(d) for d in DEPTHS)
    return f"""
W={work}
export PATH=$PATH:/usr/sbin:/sbin
dev() {{ for b in /sys/block/vd*; do [ "$(cat $b/serial)" = "$1" ] && echo /dev/$(basename $b); done; }}
mdadm --create /dev/md0 --level=0 --raid-devices={MEMBERS} --chunk=64 --metadata=1.2 --run --force \\
    $(dev m1) $(dev m2) $(dev m3) $(dev m4) > $W/mdadm.log 2>&1 || exit 3
mdadm --create /dev/md1 --level=0 --raid-devices={MEMBERS} --chunk=64 --metadata=1.2 --run --force \\
    $(dev r1) $(dev r2) $(dev r3) $(dev r4) >> $W/mdadm.log 2>&1 || exit 3
fio --version > /dev/null  # the first start reads fio over 9p: not inside a measured window
run() {{ fio --name=$1 --filename=$2 --readonly --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=$3 \\
    --norandommap --randrepeat=0 --ramp_time=2 --runtime={WINDOW_S} --time_based --output-format=json \\
    --output=$W/$1-$3.json > /dev/null 2>&1 || exit 4; }}
for qd in {jobs}; do run ref /dev/md1 $qd; run cap $(dev c1) $qd; run md /dev/md0 $qd; done
mdadm --stop /dev/md0 /dev/md1 >> $W/mdadm.log 2>&1
"""


def _iops(path: Path) -> tuple[float, float]:
    """(IOPS, mean latency ms) of one fio run's read side."""
    read = json.loads(path.read_text())["jobs"][0]["read"]
    return float(read["iops"]), float(read["lat_ns"]["mean"]) / 1e6


def predicted(depth: int, ref_ms: float, member_iops: float = CAP_IOPS) -> float:
    """The model at DEPTH: MEMBERS members at MEMBER_IOPS each behind the reference's time per I/O at that depth."""
    net = queueing.network_for(ref_ms / 1000, member_iops, MEMBERS, None)
    return queueing.throughput(net, depth, None)


@pytest.mark.slow
@pytest.mark.lab
def test_a_four_way_stripe_delivers_what_the_model_predicts_at_each_depth(tmp_path: Path) -> None:
    if shutil.which("qemu-system-x86_64") is None:
        pytest.skip("needs qemu")
    kernel = ensure_kernel()
    work = tmp_path / "work"
    work.mkdir()
    disks = [Disk(f"m{i}", work / f"m{i}.raw", 256 << 20, Throttle(f"vol_m{i}", CAP_IOPS, None, bucket_s=1))
             for i in range(1, MEMBERS + 1)]
    disks += [Disk(f"r{i}", work / f"r{i}.raw", 256 << 20, None) for i in range(1, MEMBERS + 1)]
    disks.append(Disk("c1", work / "c1.raw", 256 << 20, Throttle("vol_c1", MEMBERS * CAP_IOPS, None, bucket_s=1)))
    create(disks)
    outcome = run_script(kernel, work, _script(work), disks, None, timeout_s=600, idle_s=240)
    log = (work / "mdadm.log").read_text() if (work / "mdadm.log").exists() else ""
    assert outcome.ok, f"{outcome.failure}\n{log}\n{outcome.console_tail()}"
    rows = []
    for depth in DEPTHS:
        ref_iops, ref_ms = _iops(work / f"ref-{depth}.json")
        md_iops, md_ms = _iops(work / f"md-{depth}.json")
        cap_iops = min(_iops(work / f"cap-{depth}.json")[0], MEMBERS * CAP_IOPS)
        pred = predicted(depth, depth / ref_iops * 1000, cap_iops / MEMBERS)
        rows.append((depth, ref_iops, ref_ms, cap_iops, md_iops, md_ms, pred, pred / md_iops - 1))
    table = "\n".join(f"depth {d:>2}: reference {ri:,.0f} IOPS ({rm:.3f} ms), one disk at the caps' sum {ci:,.0f}, "
                      f"stripe {mi:,.0f} IOPS ({mm:.3f} ms), predicted {p:,.0f} ({100 * e:+.1f} %)"
                      for d, ri, rm, ci, mi, mm, p, e in rows)
    print(table)
    assert processes_mentioning(str(work)) == []
    for *_figures, err in rows:
        assert abs(err) <= 0.10, table
