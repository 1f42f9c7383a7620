"""Issue 16's rules, one test each with a hand-checked figure and its source."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.plan import make_plan
from blockfit.schema import Requirements, Workload
from blockfit.specs import parse_instance, parse_layout

OCI = load_catalog("oci")


def model(spec: str, vm: str = "VM.Standard.E5.Flex:40", as_of: date | None = None, paths: int | None = None,
          attachment: str | None = None, **wl):
    """Over iSCSI at the kernel's node.session.queue_depth 32 (the measured hosts'), unless the test names a depth
    (a paravirtualized attachment, a boot volume's default, has no session)."""
    if attachment != "paravirtualized" and "@boot" not in spec:
        wl.setdefault("host_queue_depth", 32)
    cat = load_catalog("oci", as_of)
    layout = parse_layout(spec, "oci", cat).model_copy(update={"paths": paths, "attachment": attachment})
    return predict(layout, parse_instance(vm, "oci", cat), Workload(**wl), cat)


# ---- 1. KiB: OCI's "KB/s per GB" is KiB/s (BV4DB-S1: 50 GB Balanced moved 24.74 MB/s, 480 KiB x 50 = 24.58) ----

def test_per_gb_throughput_counts_kib_in_every_catalog_version():
    for as_of in (None, date(2020, 12, 31)):
        p = model("1x200G@balanced", vm="VM.Standard.E3.Flex:16", as_of=as_of, small_io=1024 * 1024,
                  large_io=1024 * 1024, host_queue_depth=128)
        assert p.max_mbps == pytest.approx(480 * 1024 * 200 / 1e6, abs=0.05)        # 98.3 MB/s, not 96.0
        assert p.mbps_limited_by == "volume_mbps_per_gb"


def test_at_8_kib_the_iops_and_throughput_caps_tie_and_iops_is_named():
    """60 IOPS/GB x 8 KiB = 480 KiB/s per GB: at 8k both per-GB limits give 12,000 IOPS for 200 GB."""
    p = model("1x200G@balanced", small_io=8192, host_queue_depth=128)
    rows = {r.name: r.iops for r in p.limits}
    assert rows["volume_iops_per_gb"] == rows["volume_mbps_per_gb"] == 12_000
    assert p.iops_limited_by == "volume_iops_per_gb"
    uhp = model("1x1T@120vpu", small_io=8192, paths=6, host_queue_depth=128)   # 225 x 8 = 1,800 KiB/s per GB
    assert uhp.iops_limited_by == "volume_iops_per_gb" and uhp.max_iops == 225 * 1024


# ---- 2. paths: one iSCSI path carries at most the Higher Performance maxima (OCI-PR: 50,000 IOPS, 680 MB/s) ----

def test_one_iscsi_path_binds_uhp_and_more_paths_lift_it():
    assert model("1x1500G@120vpu", small_io=4096, host_queue_depth=128).paths == 6   # multipath by default
    one = model("1x1500G@120vpu", small_io=4096, host_queue_depth=128, paths=1)
    assert one.paths == 1 and one.attachment == "iscsi" and one.iops_limited_by == "iscsi_path"
    assert (one.max_iops, one.max_mbps) == (50_000, 680)
    assert "one iSCSI path" in next(r.description for r in one.limits if r.name == "iscsi_path")
    assert one.paths_needed == 6                       # 300,000 / 50,000 and 2,680 / 680 -> 6 and 4
    assert any("needs 6 iSCSI paths" in w for w in one.warnings)
    six = model("1x1500G@120vpu", small_io=4096, host_queue_depth=128, paths=6)
    assert (six.max_iops, six.max_mbps) == (300_000, 2_680)
    assert not any("iSCSI paths" in w for w in six.warnings)
    assert (six.path_iops_cap, six.path_mbps_cap, six.session_depth) == (50_000, 680, 128)


def test_several_paths_say_the_model_assumes_one_path_group():
    """With I/O on several paths the model says it assumes them in one multibus group (failover grouping: one path
    carries I/O, BV4DB sprints 22-23), not which selector: round-robin and queue-length both spread 5 paths evenly
    (BV4DB sprint 23 / 20 fio disk_util, in_queue / runtime per path: 23.4 and 23.7 in flight)."""
    five = model("1x1500G@120vpu", vm="VM.Standard.E5.Flex:16", small_io=4096, paths=5, outstanding=128)
    caveat = [w for w in five.warnings if "multibus" in w]
    assert len(caveat) == 1 and "--paths 1" in caveat[0] and "failover" in caveat[0]
    one = model("1x1500G@120vpu", vm="VM.Standard.E5.Flex:16", small_io=4096, paths=1, outstanding=128)
    assert not any("multibus" in w for w in one.warnings)  # one path: nothing to group
    pv = model("1x1500G@120vpu", vm="VM.Standard.E5.Flex:16", attachment="paravirtualized")
    assert not any("multibus" in w for w in pv.warnings)


def test_paravirtualized_has_no_iscsi_path_but_caps_uhp_at_150000():
    """OCI-UHP (2026 crawl): 300,000 IOPS per UHP volume, 150,000 for paravirtualized attachments."""
    pv = model("1x1500G@120vpu", small_io=4096, attachment="paravirtualized")
    assert pv.attachment == "paravirtualized" and pv.session_depth is None and pv.path_iops_cap is None
    assert pv.iops_limited_by == "volume_iops_paravirtualized" and pv.max_iops == 150_000


def test_default_paths_per_attachment_type_from_the_catalog():
    assert OCI.volume_types["block"].default_paths == {"iscsi": 1, "paravirtualized": 1}
    assert model("1x1T@balanced").paths == 1


# ---- 3. outstanding I/Os bounded by the session depth (open-iscsi node.session.queue_depth = 32; OCI-HP) ----

def test_outstanding_beyond_the_session_depth_waits_in_the_host():
    """E5 per-I/O time on a path at 4k: 0.657 ms + 4096 B / 520 MB/s = 0.665 ms. 32 in flight on one UHP path:
    48,066 IOPS (BV4DB-S2 measured 48,066 with 128 outstanding; the host's own 0.050 ms per I/O overlaps with the
    96 waiting). 16 outstanding all run, so each round trip is 0.665 + 0.050 ms: 16 / 0.715 ms = 22,380."""
    p = model("1x1500G@120vpu", small_io=4096, outstanding=128, paths=1)
    assert p.iops_limited_by == "session_depth" and p.max_iops == pytest.approx(48_066, rel=0.005)
    row = next(r for r in p.limits if r.name == "session_depth")
    assert "at most 32 run" in row.description and "wait in the host" in row.description
    few = model("1x1500G@120vpu", small_io=4096, outstanding=16, paths=1)
    assert few.iops_limited_by == "outstanding_ios"   # a path is a delay, not a queue
    assert 0.99 * 16 / 0.715e-3 <= few.max_iops < 16 / 0.715e-3
    row = next(r for r in few.limits if r.name == "outstanding_ios")
    assert "+ 0.05 ms in the host" in row.description and "BV4DB-S20" in {c.id for c in row.sources}
    two = model("1x1500G@120vpu", small_io=4096, outstanding=128, paths=2)
    assert two.max_iops > 1.8 * p.max_iops           # 64 run at once


def test_large_ios_take_longer_each():
    """1 MiB at depth 1 on E5: 0.050 ms host + 0.657 ms + 1,048,576 B / 520 MB/s = 2.723 ms -> 367 I/Os per s
    (BV4DB-S2: 367);
    before the transfer term the model gave 1 / 1.13 ms = 885 (2.4x over)."""
    p = model("1x1500G@120vpu", small_io=1024 * 1024, outstanding=1)
    assert p.max_iops == pytest.approx(367, rel=0.005) and p.iops_limited_by == "outstanding_ios"


def test_curve_flattens_at_the_session_depth_and_latency_grows_by_littles_law():
    """At exactly 32 outstanding the path is not always full (each I/O also spends 0.050 ms in the host): 32 /
    0.715 ms = 44,750; from 64 on I/Os wait for a slot and the path runs 32 all the time: 48,066."""
    p = model("1x1500G@120vpu", small_io=4096, paths=1)
    at32, at64, at256 = (next(c for c in p.curve if c.outstanding == n) for n in (32, 64, 256))
    assert at32.iops == pytest.approx(32 / 0.715e-3, rel=0.01) and at32.latency_ms == pytest.approx(0.715, abs=0.002)
    assert at256.iops == at64.iops == pytest.approx(48_066, rel=0.005)
    assert at256.latency_ms == pytest.approx(256 / at64.iops * 1000, rel=0.001)


def test_host_time_counts_only_while_every_outstanding_io_runs():
    """BV4DB-S20 (E5.Flex:16, 5 paths, 4k 70 % reads, 128 outstanding < 5 x 32 slots): fio's latency 0.687 /
    0.742 ms against the paths' device time 0.641 / 0.680 ms, 0.050 ms a round trip in the host; measured 181,834
    IOPS = 128 / 0.704 ms. The model: 128 / (0.665 + 0.050) ms = 179,000. Over one path the same 128 outstanding
    leave 96 waiting, the host's time overlaps with theirs, and the path's 32 / 0.665 ms holds."""
    five = model("1x1500G@120vpu", vm="VM.Standard.E5.Flex:16", small_io=4096, paths=5, outstanding=128,
                 read_pct=70)
    assert five.iops_limited_by == "outstanding_ios"
    assert five.max_iops == pytest.approx(128 / 0.715e-3, rel=0.01) == pytest.approx(181_834, rel=0.03)
    one = model("1x1500G@120vpu", vm="VM.Standard.E5.Flex:16", small_io=4096, paths=1, outstanding=128,
                read_pct=70)
    assert one.max_iops == pytest.approx(48_066, rel=0.005)
    fig = next(f for f in OCI.volume_types["block"].latencies if "E5" in f.families)
    assert fig.host_ms == 0.050 and OCI.cite(fig, "host_ms").id == "BV4DB-S20"
    e3 = next(f for f in OCI.volume_types["block"].latencies if "E3" in f.families)
    assert e3.host_ms == 0.0   # E3's figure was fitted where the host's time hides behind the session queue


# ---- 4. base latency per shape family and attachment (DERIVED: SEED-PART1 for E3, BV4DB-S2 for E4/E5) ----

def test_base_latency_by_shape_generation():
    e3 = model("1x1T@balanced", vm="VM.Standard.E3.Flex:16")
    e4 = model("1x1T@balanced", vm="VM.Standard.E4.Flex:16")
    e5 = model("1x1T@balanced", vm="VM.Standard.E5.Flex:16")
    assert (e3.base_latency_ms, e4.base_latency_ms, e5.base_latency_ms) == (1.087, 0.657, 0.657)
    for fig in OCI.volume_types["block"].latencies:
        assert fig.note and "DERIVED" in fig.note and OCI.cite(fig, "base_ms").id == fig.source


# ---- 5. the instance network carries each direction up to its cap ----

def test_reads_and_writes_against_separate_direction_caps():
    """E3.Flex:12: 120 MB/s x 12 Gbps = 1,440 MB/s each way. 9 x 500 GB Balanced: 2,212 MB/s of volumes. All reads:
    the network binds at 1,440; half writes: 1,440 / 0.5 = 2,880 per direction pair, the volumes bind."""
    reads = model("9x500G@balanced", vm="VM.Standard.E3.Flex:12", host_queue_depth=128)
    assert reads.max_mbps == 1_440 and reads.mbps_limited_by == "instance_mbps"
    mixed = model("9x500G@balanced", vm="VM.Standard.E3.Flex:12", host_queue_depth=128, read_pct=50)
    assert mixed.mbps_limited_by == "volume_mbps_per_gb" and mixed.max_mbps == pytest.approx(2_211.8, abs=0.1)
    seventy = model("9x500G@balanced", vm="VM.Standard.E3.Flex:12", host_queue_depth=128, read_pct=70)
    assert seventy.max_mbps == pytest.approx(1_440 / 0.7, abs=0.1)


# ---- 6. the 16-OCPU rule: multipath-enabled attachments on VMs (OCI-PERF 2024-07-19), not UHP itself ----

def test_uhp_that_fits_one_path_on_a_4_ocpu_vm_gets_no_warning():
    """200 GB at 120 VPU = 45,000 IOPS, under one path's 50,000: a 4-OCPU E5.Flex delivers it (issue 16)."""
    p = model("1x200G@120vpu", vm="VM.Standard.E5.Flex:4", small_io=4096, host_queue_depth=128)
    assert p.max_iops == 45_000 and p.iops_limited_by == "volume_iops_per_gb"
    assert not any("OCPU" in w or "paths" in w for w in p.warnings)


def test_below_16_ocpus_no_multipath_so_one_path():
    p = model("1x1500G@120vpu", vm="VM.Standard.E5.Flex:8", small_io=4096, host_queue_depth=128, paths=4)
    assert p.paths == 1 and p.iops_limited_by == "iscsi_path"
    assert any("multipath-enabled" in w and "16 OCPUs" in w for w in p.warnings)


def test_the_rule_is_dated_per_catalog_version():
    assert load_catalog("oci").shapes["VM.Standard.E5.Flex"].uhp_min_ocpus == 16
    old = load_catalog("oci", date(2020, 12, 31))
    assert old.shapes["VM.Standard.E3.Flex"].uhp_min_ocpus is None       # no UHP, no multipath in 2020
    assert not any(lv.vpu >= 30 for lv in old.volume_types["block"].levels)


# ---- 7. boot volumes (OCI-BOOT, OCI-UHP boot section) ----

def test_default_boot_volume():
    """46.6 GB Balanced: 60 x 46.6 = 2,796 IOPS, 480 KiB/s x 46.6 = 22.9 MB/s, paravirtualized, one path."""
    p = model("1x46.6G@boot", vm="VM.Standard.E4.Flex:2", small_io=4096)
    assert p.layout == "1x46.6G@boot" and p.layout_detail.volume.size_gb == 46.6
    assert p.max_iops == pytest.approx(2_796, abs=0.5)
    assert p.max_mbps == pytest.approx(480 * 1024 * 46.6 / 1e6, abs=0.05)
    assert (p.attachment, p.paths) == ("paravirtualized", 1)


def test_uhp_boot_volume_stops_at_50000_iops():
    """OCI-UHP: 223 GB x 225 = 50,175 -> 50,000 IOPS; VMs need >= 8 OCPUs for it."""
    p = model("1x223G@boot-120vpu", vm="VM.Standard.E5.Flex:8", small_io=4096)
    assert p.max_iops == 50_000 and p.layout == "1x223G@boot-120vpu"
    small = model("1x223G@boot-120vpu", vm="VM.Standard.E5.Flex:4", small_io=4096)
    assert any(">= 8 OCPUs" in w for w in small.warnings)


def test_boot_volume_refusals():
    with pytest.raises(InputError, match="0 VPU"):
        parse_layout("1x100G@boot-lower-cost", "oci", OCI)
    with pytest.raises(InputError, match="at most 1 path"):
        model("1x100G@boot", paths=2)
    with pytest.raises(InputError, match="expected 46.6"):
        parse_layout("1x20G@boot", "oci", OCI)


def test_boot_volumes_are_not_planned_unless_named():
    plan = make_plan(Requirements(cloud="oci", capacity_gb=100, target_iops=3_000,
                                  instance_shape="VM.Standard.E4.Flex", instance_ocpus=4), OCI)
    assert all(c.layout_detail.volume.type == "block" for c in plan.candidates + plan.pareto)


# ---- CLI ----

def run(*args):
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=120)


def test_cli_attachment_paths_read_pct():
    r = run("model", "--layout", "1x1500G@120vpu", "--instance", "VM.Standard.E5.Flex:40", "--paths", "6",
            "--attachment", "iscsi", "--read-pct", "70", "--queue-depth", "128", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["paths"], data["attachment"], data["workload"]["read_pct"]) == (6, "iscsi", 70)
    for bad, what in ((["--read-pct", "150"], "--read-pct"), (["--paths", "0"], "--paths"),
                      (["--attachment", "nvme"], "--attachment")):
        r = run("model", "--layout", "1x1T@balanced", "--instance", "VM.Standard.E5.Flex:4", *bad)
        assert r.returncode == 2 and what in r.stderr and "Traceback" not in r.stderr


def test_cli_plan_says_how_many_paths():
    r = run("plan", "--capacity", "1500G", "--target-iops", "300000", "--levels", "120vpu", "--max-volumes", "1",
            "--instance", "VM.Standard.E5.Flex:40", "--io-sizes", "4k,1m")
    assert r.returncode == 0, r.stderr
    assert "spread over 6 paths" in " ".join(r.stdout.split())
    r = run("plan", "--capacity", "1500G", "--target-iops", "300000", "--levels", "120vpu", "--max-volumes", "1",
            "--instance", "VM.Standard.E5.Flex:40", "--io-sizes", "4k,1m", "--json")
    cand = json.loads(r.stdout)["candidates"][0]
    assert (cand["prediction"]["attachment"], cand["prediction"]["paths"]) == ("iscsi", 6)


def test_plan_with_paravirtualized_attachment_uses_its_cap_and_one_path():
    """OCI-UHP: 150,000 IOPS per paravirtualized UHP volume: one 1,500 GB volume at 120 VPU cannot reach 200,000."""
    req = Requirements(cloud="oci", capacity_gb=1500, target_iops=200_000, small_io=4096, levels=["120vpu"],
                       instance_shape="VM.Standard.E5.Flex", instance_ocpus=40, attachment="paravirtualized")
    plan = make_plan(req, OCI)
    for c in plan.candidates:
        assert (c.prediction.attachment, c.prediction.paths) == ("paravirtualized", 1) and c.layout_detail.members >= 2
        assert c.max_iops >= 200_000


def test_attachment_flags_refused_where_the_catalog_has_no_attachments():
    r = run("model", "--cloud", "aws", "--layout", "1x1T@gp3", "--instance", "m5.12xlarge", "--paths", "2")
    assert r.returncode == 2 and "--attachment/--paths" in r.stderr and "Traceback" not in r.stderr
