"""The Claremont case for real: ext4 on a loop device, fsync after every write, barriers on versus off.

The loop device runs with direct I/O over a file on ext4 and reports write_cache 'write back', so the
flushes ext4's barriers issue reach it and show in the diskstats flush fields (kernel ≥ 5.5).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.diagnose_testbed import diagnose_during, kinds, loop_device, mounted, replay, run, skip_reason, workdir

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.skipif(skip_reason() is not None,
                                                                     reason=skip_reason() or "")]

SECONDS = 6


def _durable_write_ms(job: dict) -> float:  # type: ignore[type-arg]
    """fio sync engine with fsync=1: one durable write = the write call plus its fsync."""
    j = job["jobs"][0]
    return (j["write"]["lat_ns"]["mean"] + j["sync"]["lat_ns"]["mean"]) / 1e6


def test_flush_storm_with_barriers_and_gone_without(tmp_path: Path) -> None:
    results = {}
    with workdir() as d, loop_device(d, 256) as dev:
        assert Path(f"/sys/block/{dev}/queue/write_cache").read_text().strip() == "write back"
        run(["mkfs.ext4", "-q", "-F", f"/dev/{dev}"])
        for opts in ("barrier=1", "barrier=0"):
            with mounted(dev, d, opts) as mnt:
                args = ["--name=claremont", f"--directory={mnt}", "--rw=write", "--bs=4k", "--size=32m",
                        "--ioengine=sync", "--fsync=1"]
                diag, job = diagnose_during(args, [dev], SECONDS, record=tmp_path / f"{opts}.jsonl")
                results[opts] = (diag, job)

    on, off = results["barrier=1"], results["barrier=0"]
    for opts, (diag, job) in results.items():
        s = next(x for x in diag["devices"] if x["device"] == dev)
        print(f"{opts}: fio {job['jobs'][0]['write']['iops']:.0f} writes/s, "
              f"durable write {_durable_write_ms(job):.3f} ms; "
              f"{dev} w/s {s['write_iops']:.0f} flush/s {s['flushes_per_s']:.0f} w_await {s['w_await_ms']:.3f} ms "
              f"findings {sorted((f['kind'], f['device']) for f in diag['findings'])}")
    storm = [f for f in on[0]["findings"] if f["kind"] == "flush_storm" and f["device"] == dev]
    assert storm, (on[0]["findings"], on[0]["devices"])
    print("flush storm:", storm[0]["measurements"])
    assert storm[0]["measurements"]["flushes_per_write"] >= 0.25
    assert storm[0]["measurements"]["barrier_mounts"] == 1
    assert any("write barriers on" in e for e in storm[0]["evidence"])
    assert "barrier=0" in storm[0]["recommendation"]

    assert "flush_storm" not in kinds(off[0], dev), off[0]["findings"]
    dev_off = next(s for s in off[0]["devices"] if s["device"] == dev)
    assert (dev_off["flushes_per_s"] or 0) < 1

    # write latency drops: the application's durable write (write + fsync), which waits for the flushes. The
    # device's write await is not compared: it leaves the flushes out, and two runs' means of it differ by the
    # machine's load more than by the barriers (it flipped once on a busy machine)
    assert _durable_write_ms(off[1]) < _durable_write_ms(on[1])

    # the recordings replay to the same findings
    for opts, (diag, _job) in results.items():
        again = replay(tmp_path / f"{opts}.jsonl")
        assert again["findings"] == diag["findings"]
        assert again["devices"] == diag["devices"]


def test_a_flush_storm_under_other_load_is_found_in_its_window(tmp_path: Path) -> None:
    """Claremont ran heavy OLTP and a batch at once. Here a 4-second burst of fsync-per-write (the batch) runs in the
    middle of 16 seconds of direct random writes that never flush (the OLTP): over the whole capture the flushes
    are diluted below every threshold, which said "No findings"; within its own seconds the storm is critical.

    Both jobs are paced, so the dilution is set by the test, not by the machine's speed: unpaced, the batch ran
    4,527 fsyncs/s on a quiet machine and 134/s on a busy one, and on the quiet one the whole capture was a storm
    by itself. The loop device is buffered here, so a flush writes back what the writes left in the page cache
    and costs more than a write on any machine (with direct I/O the two cost alike, and the share of time the
    window shows depended on the machine too)."""
    with workdir() as d, loop_device(d, 256, direct_io=False) as dev:
        run(["mkfs.ext4", "-q", "-F", f"/dev/{dev}"])
        with mounted(dev, d, "barrier=1") as mnt:
            for name, size in (("oltp", "64m"), ("batch", "16m")):   # laid out first: overwrites flush data only
                run(["fio", "--name=prep", f"--directory={mnt}", f"--filename={name}", "--rw=write", "--bs=1m",
                     f"--size={size}", "--direct=1"])
            args = ["--name=oltp", f"--directory={mnt}", "--filename=oltp", "--rw=randwrite", "--bs=8k",
                    "--size=64m", "--direct=1", "--ioengine=psync", "--rate_iops=1000", "--runtime=16",
                    "--time_based",
                    "--name=batch", f"--directory={mnt}", "--filename=batch", "--rw=randwrite", "--bs=4k",
                    "--size=16m", "--ioengine=sync", "--fdatasync=1", "--rate_iops=200", "--startdelay=6",
                    "--runtime=4", "--time_based"]
            diag, job = diagnose_during(args, [dev], 18, record=tmp_path / "mixed.jsonl", timed=True)
    storm = [f for f in diag["findings"] if f["kind"] == "flush_storm" and f["device"] == dev]
    assert storm, (diag["findings"], diag["devices"])
    m = storm[0]["measurements"]
    print("mixed load:", {k: round(v, 3) for k, v in m.items()},
          {j["jobname"]: round(j["write"]["iops"]) for j in job["jobs"]})
    # the premise: over the whole capture this is no storm (the rule that judged only the whole missed it)
    assert m["capture_flushes_per_write"] < 0.25 or m["capture_flush_time_share"] < 0.10
    assert m["flushes_per_s"] >= 5 and m["flush_time_share"] >= 0.10
    assert 3 <= m["window_s"] <= 6 and 4 <= m["window_start_s"] <= 10
    assert any("other writes dilute it" in e for e in storm[0]["evidence"])
    assert replay(tmp_path / "mixed.jsonl")["findings"] == diag["findings"]
