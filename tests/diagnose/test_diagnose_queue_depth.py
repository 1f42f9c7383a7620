"""The queue-depth case for real: one loop device under a cgroup-v1 blkio read-IOPS cap, driven by fio.

A loop device is CPU-bound here and its speed swings by 2-3x with the other load on the machine (beside
stress-ng: an uncapped iodepth-1 rate of 8,766 IOPS measured first, then 26,172 in the capped run), so:
- the device is filled first: reads of a sparse file's holes never reach the disk, so at iodepth 1 the device
  idled (aqu-sz 0.29, 25 % busy) while fio's own CPU time set the rate; written blocks are read from the disk,
  which keeps one I/O in flight most of the time (aqu-sz 0.7-0.9 measured beside stress-ng);
- fio runs at nice -20, as a database server's I/O is not starved of CPU by a batch job: at iodepth 1 a loop
  device is kept busy only as fast as fio submits, and at load 13 on this 2-core machine (stress-ng beside two
  test suites) fio at nice 0 held one I/O in flight 45 % of the time, with an in-flight that was not pinned;
- cap 20x the iodepth-1 rate measured uncapped, iodepth 1: far above anything one I/O at a time reaches, even
  3x faster than measured → queue_depth_bound, not member_cap;
- a 12 s capture: diagnose judges only the seconds within half to one-and-a-half times the median IOPS, and
  with the backing disk shared (two suites beside) iodepth 1 went 3,022, 1,864, 5,284, 105, 9,019, 10,057 IOPS
  in 6 s at 0.68-0.98 in flight: 2 seconds kept, fewer than the 3 a rule needs;
- cap 1/10 of that rate, iodepth 16: the cap binds → member_cap naming the throttle, not queue_depth_bound. (At
  1/2, the device at iodepth 16 once did only 0.9 of it: the rate measured first, 10,496, was the machine at a
  quieter moment.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.diagnose_testbed import (
    blkio_cgroup,
    diagnose_during,
    fio,
    kinds,
    loop_device,
    replay,
    skip_reason,
    workdir,
)

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.skipif(skip_reason() is not None,
                                                                     reason=skip_reason() or "")]

SECONDS = 12  # diagnose keeps the seconds within 0.5-1.5x the median IOPS: 6 once left 2 (see below)


def test_queue_depth_bound_versus_cap_bound(tmp_path: Path) -> None:
    with workdir() as d, loop_device(d, 256) as dev:
        base = ["--name=qd", f"--filename=/dev/{dev}", "--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio",
                "--nice=-20"]
        fio(["--name=fill", f"--filename=/dev/{dev}", "--rw=write", "--bs=1m", "--direct=1", "--ioengine=libaio",
             "--iodepth=4"])
        r1 = fio(base + ["--iodepth=1", "--runtime=3", "--time_based"])["jobs"][0]["read"]["iops"]
        caps = {1: int(20 * r1), 16: int(r1 / 10)}
        runs = {}
        for depth, cap in caps.items():
            with blkio_cgroup({"read_iops": cap}, dev) as cg:
                record = tmp_path / f"qd{depth}.jsonl"
                runs[depth] = diagnose_during(base + [f"--iodepth={depth}"], [dev], SECONDS, record=record, cgroup=cg)
    for depth, (diag, job) in runs.items():
        s = next(x for x in diag["devices"] if x["device"] == dev)
        print(f"uncapped QD1 {r1:.0f} IOPS; cap {caps[depth]}; QD{depth}: fio {job['jobs'][0]['read']['iops']:.0f}"
              f" IOPS, {dev} {s['iops']:.0f} IOPS aqu {s['aqu_sz']:.2f} util {s['util_pct']:.0f}% "
              f"await {s['r_await_ms']:.3f} ms; findings {sorted(kinds(diag, dev))}")

    low, _ = runs[1]
    assert "queue_depth_bound" in kinds(low, dev), low["findings"]
    assert "member_cap" not in kinds(low, dev)
    qd = next(f for f in low["findings"] if f["kind"] == "queue_depth_bound")
    assert qd["measurements"]["needed_in_flight"] > qd["measurements"]["in_flight"]
    assert any("blkio" in e for e in qd["evidence"])

    high, _ = runs[16]
    assert "member_cap" in kinds(high, dev), high["findings"]
    assert "queue_depth_bound" not in kinds(high, dev)
    cap_finding = next(f for f in high["findings"] if f["kind"] == "member_cap")
    assert cap_finding["measurements"]["cap"] == caps[16]
    assert any("throttle in cgroup" in e for e in cap_finding["evidence"])

    for depth, (diag, _job) in runs.items():
        assert replay(tmp_path / f"qd{depth}.jsonl")["findings"] == diag["findings"]
