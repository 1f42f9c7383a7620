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

    # write latency drops: the application's durable write and the device's write await
    assert _durable_write_ms(off[1]) < _durable_write_ms(on[1])
    dev_on = next(s for s in on[0]["devices"] if s["device"] == dev)
    assert dev_off["w_await_ms"] < dev_on["w_await_ms"]

    # the recordings replay to the same findings
    for opts, (diag, _job) in results.items():
        again = replay(tmp_path / f"{opts}.jsonl")
        assert again["findings"] == diag["findings"]
        assert again["devices"] == diag["devices"]
