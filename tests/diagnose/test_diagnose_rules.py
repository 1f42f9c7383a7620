"""Rules on captures built from counters (for layouts this host cannot build: it has no device-mapper or md).

The live reproductions are in test_diagnose_claremont/queue_depth/stack; these check the stripe rules,
the plateau fallback, the instance cap and geometry, whose real reproduction needs the lab guest.
"""

from __future__ import annotations

import pytest

from blockfit.devices.capture import Capture, CaptureHeader, Sample
from blockfit.devices.mountinfo import Mount
from blockfit.devices.sysfs import BlockDevice, QueueSettings
from blockfit.diagnose import rules, wording

MEMBERS = ["sdb", "sdc", "sdd", "sde"]


def _stack() -> dict[str, BlockDevice]:
    devs = {"dm-0": BlockDevice(name="dm-0", kind="dm", dev="253:0", slaves=MEMBERS, queue=QueueSettings())}
    for i, m in enumerate(MEMBERS):
        devs[m] = BlockDevice(name=m, kind="disk", dev=f"8:{16 * (i + 1)}", holders=["dm-0"],
                              queue=QueueSettings(nr_requests=64, device_queue_depth=32))
    return devs


def _capture(devices: dict[str, BlockDevice], per_second: dict[str, list[tuple[int, float, float]]],
             mounts: list[Mount] | None = None) -> Capture:
    """per_second[name][i] = (reads, read_ms, weighted_ms) in second i; counters accumulate."""
    header = CaptureHeader(hostname="t", kernel="6.18", started="now", interval_s=1.0, selected=sorted(devices),
                           devices=devices, mounts=mounts or [], geometry=[], caps=[])
    n = len(next(iter(per_second.values())))
    totals = {name: [0, 0.0, 0.0, 0.0] for name in per_second}
    samples = []
    for i in range(n + 1):
        lines = []
        for name, series in per_second.items():
            major, minor = devices[name].dev.split(":")  # type: ignore[union-attr]
            t = totals[name]
            r, ms, w, busy = int(t[0]), int(t[1]), int(t[2]), int(t[3])
            lines.append(f"{major} {minor} {name} {r} 0 {r * 8} {ms} 0 0 0 0 0 {busy} {w} 0 0 0 0 0 0")
            if i < n:
                reads, read_ms, weighted = series[i]
                t[0] += reads
                t[1] += read_ms
                t[2] += weighted
                t[3] += min(1000.0, weighted)
        samples.append(Sample(t=float(i), lines=lines))
    return Capture(header=header, samples=samples)


def test_slow_member_named() -> None:
    per = {m: [(1000, 1000.0, 1000.0)] * 6 for m in MEMBERS}          # 1 ms each
    per["sdd"] = [(1000, 8000.0, 8000.0)] * 6                          # 8 ms: the slow one
    per["dm-0"] = [(4000, 32000.0, 32000.0)] * 6
    d = rules.diagnose(_capture(_stack(), per))
    slow = [f for f in d.findings if f.kind == "stripe_slow_member"]
    assert [f.device for f in slow] == ["sdd"]
    assert "slow member of dm-0" in slow[0].summary
    assert not [f for f in d.findings if f.kind == "queue_depth_bound"]  # the member holds the stripe, not depth
    assert not [f for f in d.findings if f.kind == "stripe_imbalance"]  # a slow member is not a hot one


def test_no_decision_depends_on_the_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reworded summaries leave the findings (kinds, devices, figures) as they were."""
    per = {m: [(1000, 1000.0, 1000.0)] * 6 for m in MEMBERS}
    per["sdd"] = [(1000, 8000.0, 8000.0)] * 6
    per["dm-0"] = [(4000, 32000.0, 32000.0)] * 6
    before = rules.diagnose(_capture(_stack(), per))
    for name in ("stripe_slow_member", "stripe_hot_member", "member_cap", "queue_depth_bound", "instance_cap"):
        monkeypatch.setattr(wording, name, lambda *args: "reworded")
    after = rules.diagnose(_capture(_stack(), per))
    assert [(f.kind, f.device, f.metric, f.measurements) for f in after.findings] == \
        [(f.kind, f.device, f.metric, f.measurements) for f in before.findings]


def test_hot_member_named_and_balanced_stripe_silent() -> None:
    per = {m: [(1000, 500.0, 500.0)] * 6 for m in MEMBERS}
    per["dm-0"] = [(4000, 2000.0, 2000.0)] * 6
    balanced = rules.diagnose(_capture(_stack(), per))
    assert not [f for f in balanced.findings if f.kind == "stripe_imbalance"]
    per["sdb"] = [(6000, 3000.0, 3000.0)] * 6
    hot = rules.diagnose(_capture(_stack(), per))
    assert [f.device for f in hot.findings if f.kind == "stripe_imbalance"] == ["sdb"]


def test_member_cap_from_catalog_and_instance_cap() -> None:
    per = {m: [(3000, 3000.0, 3000.0)] * 6 for m in MEMBERS}
    per["dm-0"] = [(12000, 12000.0, 12000.0)] * 6
    cap = _capture(_stack(), per)
    exp = rules.Expectation(source="test", member_iops=3000, member_mbps=480, instance_iops=12500, members=MEMBERS)
    d = rules.diagnose(cap, exp)
    assert sorted(f.device for f in d.findings if f.kind == "member_cap") == MEMBERS
    assert [f.device for f in d.findings if f.kind == "instance_cap"] == ["instance"]
    assert not [f for f in d.findings if f.kind == "queue_depth_bound"]
    loose = rules.Expectation(source="test", member_iops=10000, instance_iops=50000, members=MEMBERS)
    d2 = rules.diagnose(cap, loose)
    assert not [f for f in d2.findings if f.kind in ("member_cap", "instance_cap")]


def test_queue_depth_pinned_at_host_limit() -> None:
    # iSCSI-like: 32 in flight at 1.1 ms → ~28,000 IOPS; the catalog member cap is 50,000
    devs = {"sdb": BlockDevice(name="sdb", kind="disk", dev="8:16",
                               queue=QueueSettings(nr_requests=128, device_queue_depth=32))}
    per = {"sdb": [(28400, 28400 * 1.126, 32000.0)] * 6}
    exp = rules.Expectation(source="oci higher", member_iops=50000, members=["sdb"])
    d = rules.diagnose(_capture(devs, per), exp)
    qd = [f for f in d.findings if f.kind == "queue_depth_bound"]
    assert qd and "device/queue_depth = 32" in " ".join(qd[0].evidence)
    assert qd[0].measurements["needed_in_flight"] > 50
    assert "node.session.queue_depth" in qd[0].recommendation
    assert not [f for f in d.findings if f.kind == "member_cap"]


def test_plateau_without_a_known_cap() -> None:
    devs = {"sdb": BlockDevice(name="sdb", kind="disk", dev="8:16", queue=QueueSettings())}
    # IOPS flat at 2000 while in-flight climbs 4 → 32 and await with it: something below caps it
    per = {"sdb": [(2000, 2000 * q / 2, 1000.0 * q) for q in (4, 4, 8, 8, 16, 16, 32, 32)]}
    d = rules.diagnose(_capture(devs, per))
    assert [f.kind for f in d.findings if f.device == "sdb"] == ["member_cap"]
    flat_load = {"sdb": [(2000, 2000 * 4 / 2, 4000.0)] * 8}
    d2 = rules.diagnose(_capture(devs, flat_load))
    assert "member_cap" not in [f.kind for f in d2.findings]


def test_plateau_seen_through_the_intervals_in_which_the_load_changed() -> None:
    """A busy machine's 10 s capture (beside stress-ng): 4 in flight, then 16, at a 3,000 IOPS throttle. fio's
    start and its switch to the second job left two intervals partly idle (1,800 and 1,804 IOPS), and the
    throttle's slices alternate 2,700 / 3,300; the plateau is still the finding, and a device that gives twice
    the IOPS at 16 in flight still is not."""
    devs = {"loop1": BlockDevice(name="loop1", kind="disk", dev="7:1", queue=QueueSettings())}
    measured = [(1800, 2.0), (2700, 3.5), (3300, 4.3), (2704, 4.0), (3296, 3.9), (1804, 3.6), (3000, 15.8),
                (3000, 15.6), (3000, 15.8), (3000, 15.9)]
    per = {"loop1": [(n, aqu * 1000.0 * 0.9, aqu * 1000.0) for n, aqu in measured]}
    found = [f for f in rules.diagnose(_capture(devs, per)).findings if f.device == "loop1"]
    assert [f.kind for f in found] == ["member_cap"]
    assert found[0].measurements["aqu_high"] >= 1.5 * found[0].measurements["aqu_low"]
    # a device that is not capped: twice the IOPS at 16 in flight (latency rising 1.8x, as in the capped case)
    uncapped = {"loop1": [(6000 if aqu > 10 else n, aqu * 1000.0 * 0.9, aqu * 1000.0) for n, aqu in measured]}
    assert "member_cap" not in [f.kind for f in rules.diagnose(_capture(devs, uncapped)).findings]


def test_misaligned_partition() -> None:
    devs = {"sdb": BlockDevice(name="sdb", kind="disk", dev="8:16", queue=QueueSettings(optimal_io_size=1048576)),
            "sdb1": BlockDevice(name="sdb1", kind="partition", dev="8:17", disk="sdb", start_sector=63)}
    per = {"sdb": [(0, 0.0, 0.0)] * 3, "sdb1": [(0, 0.0, 0.0)] * 3}
    d = rules.diagnose(_capture(devs, per))
    assert [(f.kind, f.device) for f in d.findings] == [("misaligned_geometry", "sdb1")]
    devs["sdb1"].start_sector = 2048
    assert not rules.diagnose(_capture(devs, per)).findings


def test_rate_far_above_a_cap_is_not_held_by_it() -> None:
    """A cap 10x below the measured rate cannot be what holds it (a cgroup throttle governs only its own
    cgroup's processes); the same rate at the cap is held by it."""
    devs = {"sdb": BlockDevice(name="sdb", kind="disk", dev="8:16", queue=QueueSettings())}
    cap = _capture(devs, {"sdb": [(3000, 3000.0, 3000.0)] * 6})
    far = rules.Expectation(source="test", member_iops=300, members=["sdb"])
    assert "member_cap" not in [f.kind for f in rules.diagnose(cap, far).findings]
    at = rules.Expectation(source="test", member_iops=3000, members=["sdb"])
    assert "member_cap" in [f.kind for f in rules.diagnose(cap, at).findings]


def test_a_cap_is_cited_from_where_it_came() -> None:
    """The evidence names the cap's source in the caller's words: a cap the user gave (bench --cap) is not called
    a catalog figure, and the catalog's (diagnose --layout/--instance) says it is the catalog's."""
    devs = {"sdb": BlockDevice(name="sdb", kind="disk", dev="8:16", queue=QueueSettings())}
    cap = _capture(devs, {"sdb": [(3000, 3000.0, 3000.0)] * 6})
    for source in ("--cap / --instance-cap", "catalog: oci 1x50G@balanced on VM.Standard.E4.Flex:8"):
        found = next(f for f in rules.diagnose(cap, rules.Expectation(source=source, member_iops=3000,
                                                                       members=["sdb"])).findings
                     if f.kind == "member_cap")
        assert f"of the 3,000 IOPS cap (member IOPS cap ({source}))" in found.evidence[0], found.evidence
        assert found.evidence[0].count("catalog") == source.count("catalog")
