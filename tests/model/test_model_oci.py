"""OCI: the catalog reproduces OCI's published tables, and the model reproduces the field reports."""

from datetime import date

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

KERNEL_DEPTH = 32   # open-iscsi's node.session.queue_depth, what OCI's images ship
BIG_VM = "VM.Standard.E5.Flex:40"   # 4,800 MB/s / 600,000 IOPS: never the binding limit for one volume


def one_volume(spec: str, small_io: int = 4096, large_io: int = 1024 * 1024, cloud: str = "oci", vm: str = BIG_VM,
               as_of: date | None = None, paths: int | None = None, attachment: str | None = None, **wl):
    """The seeds' hosts ran the kernel's node.session.queue_depth (32), not the 128 build sets (model's default)."""
    cat = load_catalog(cloud, as_of)
    if cloud == "oci":
        wl.setdefault("host_queue_depth", KERNEL_DEPTH)
    layout = parse_layout(spec, cloud, cat).model_copy(update={"paths": paths, "attachment": attachment})
    return predict(layout, parse_instance(vm, cloud, cat), Workload(small_io=small_io, large_io=large_io, **wl), cat)


# The volume's own caps, with enough iSCSI paths and queue depth that neither binds: UHP needs up to 6 paths,
# and --paths refuses more than the fastest level needs.
VOLUME_ONLY = dict(paths=6, host_queue_depth=128)
KIB = 1.024   # OCI's tables compute "KB/s per GB" x GB / 1000; volumes move KiB/s (BV4DB-S1: 24.74 MB/s at 50 GB)


# OCI-PERF "Volume Performance Units" table: VPU, IOPS/GB, max IOPS, KB/s per GB, max MB/s
LEVEL_TABLE = [
    (0, 2, 3_000, 240, 480), (10, 60, 25_000, 480, 480), (20, 75, 50_000, 600, 680),
    (30, 90, 75_000, 720, 880), (40, 105, 100_000, 840, 1_080), (50, 120, 125_000, 960, 1_280),
    (60, 135, 150_000, 1_080, 1_480), (70, 150, 175_000, 1_200, 1_680), (80, 165, 200_000, 1_320, 1_880),
    (90, 180, 225_000, 1_440, 2_080), (100, 195, 250_000, 1_560, 2_280), (110, 210, 275_000, 1_680, 2_480),
    (120, 225, 300_000, 1_800, 2_680),
]


def test_level_table_matches_published_table():
    levels = {lv.vpu: lv for lv in load_catalog("oci").volume_types["block"].levels}
    assert sorted(levels) == [row[0] for row in LEVEL_TABLE]
    for vpu, iops_gb, max_iops, kbps_gb, max_mbps in LEVEL_TABLE:
        lv = levels[vpu]
        assert (lv.iops_per_gb, lv.max_iops, lv.kbps_per_gb, lv.max_mbps) == (iops_gb, max_iops, kbps_gb, max_mbps)


def test_formula_holds_from_10_vpu_and_not_for_lower_cost():
    """OCI-PERF's formula is valid from 10 VPU/GB; Lower Cost comes from the table (documented)."""
    for lv in load_catalog("oci").volume_types["block"].levels:
        formula = (1.5 * lv.vpu + 45, 2_500 * lv.vpu, 12 * lv.vpu + 360, 20 * lv.vpu + 280)
        matches = formula == (lv.iops_per_gb, lv.max_iops, lv.kbps_per_gb, lv.max_mbps)
        assert matches == (lv.vpu >= 10), lv.vpu


# Per-size rows as published: (level, GB, MB/s at 1 MB, IOPS at 4 KB)
SIZE_ROWS = [
    ("balanced", 50, 24, 3_000), ("balanced", 100, 48, 6_000), ("balanced", 200, 96, 12_000),
    ("balanced", 400, 192, 24_000), ("balanced", 500, 240, 25_000), ("balanced", 750, 360, 25_000),
    ("balanced", 1024, 480, 25_000), ("balanced", 32768, 480, 25_000),
    ("higher", 50, 30, 3_750), ("higher", 100, 60, 7_500), ("higher", 200, 120, 15_000),
    ("higher", 400, 240, 30_000), ("higher", 600, 360, 45_000), ("higher", 800, 480, 50_000),
    ("higher", 1024, 614.4, 50_000), ("higher", 1200, 680, 50_000),
    ("lower-cost", 50, 12, 100), ("lower-cost", 100, 24, 200), ("lower-cost", 500, 120, 1_000),
    ("lower-cost", 750, 180, 1_500), ("lower-cost", 1000, 240, 2_000), ("lower-cost", 2000, 480, 3_000),
    ("120vpu", 100, 180, 22_500), ("120vpu", 400, 720, 90_000), ("120vpu", 800, 1_440, 180_000),
    ("120vpu", 1200, 2_160, 270_000), ("120vpu", 1536, 2_680, 300_000),
]


@pytest.mark.parametrize("level,gb,mbps,iops", SIZE_ROWS)
def test_per_size_rows(level, gb, mbps, iops):
    """Rows where the per-GB throughput binds come out 2.4 % above the printed MB/s: OCI prints KB x GB / 1000,
    but its "KB/s per GB" is KiB/s (issue 16 fix 1); rows at the per-volume MB/s cap are unchanged."""
    p = one_volume(f"1x{gb}G@{level}", **VOLUME_ONLY)
    per_gb = p.mbps_limited_by == "volume_mbps_per_gb"
    assert p.max_mbps == pytest.approx(mbps * KIB if per_gb else mbps, abs=0.05)
    assert p.max_iops == pytest.approx(iops, abs=0.5)


def test_inconsistency_a_uhp_uses_level_table_225_not_size_table_230():
    assert one_volume("1x50G@120vpu").max_iops == 11_250      # size table prints 11,500


def test_inconsistency_b_lower_cost_throughput_follows_formula():
    assert one_volume("1x1500G@lower-cost").max_mbps == pytest.approx(360 * KIB, abs=0.05)   # table prints 480
    assert one_volume("1x2000G@lower-cost").max_mbps == 480


def test_eight_kb_column_is_iops_cap_times_io_size():
    """The '8 KB block size' column: Balanced 500 GB shows 200 MB/s = 25,000 x 8 KB (decimal)."""
    p = one_volume("1x500G@balanced", large_io=8000)
    assert p.max_mbps == pytest.approx(200.0)
    assert p.mbps_limited_by == "volume_iops_cap"


def test_seed_single_3_5t_balanced_on_6_ocpu():
    """Part 1 measured 23,833 IOPS / 448 MB/s (CALIBRATE_IO) on one 3.5 TB Balanced volume at the default iSCSI
    depth 32: the session depth binds (32 in flight / 1.1 ms), not the 25,000 IOPS cap (was predicted: +4.9 %)."""
    p = one_volume("1x3.5T@balanced", small_io=8192, vm="VM.Standard.E3.Flex:6")
    assert p.iops_limited_by == "session_depth" and p.max_iops == pytest.approx(23_833, rel=0.01)
    assert p.max_mbps == 480 and p.mbps_limited_by == "volume_mbps_cap"
    deep = one_volume("1x3.5T@balanced", small_io=8192, vm="VM.Standard.E3.Flex:6", host_queue_depth=128)
    assert (deep.max_iops, deep.iops_limited_by) == (25_000, "volume_iops_cap")


def test_seed_part3_nine_balanced_on_12_ocpu_bound_by_instance_throughput():
    p = one_volume("9x500G@balanced", small_io=8192, vm="VM.Standard.E3.Flex:12")
    assert p.iops_limited_by == "instance_mbps" and p.mbps_limited_by == "instance_mbps"
    assert p.max_iops == pytest.approx(180_000, rel=0.03)     # article measured 178,571
    assert p.max_mbps == 1_440                                # article measured 1,409
    assert p.cost.storage == pytest.approx(4500 * (0.0255 + 10 * 0.0017))


def test_seed_part3_nine_balanced_on_20_ocpu_bound_by_volumes():
    """Part 3 at 20 OCPUs measured 213,391 IOPS and 2,115 MB/s. At depth 32 per session the model gives 5 % less
    (before: 225,000, 5 % more); MB/s is the per-GB rule in KiB, 9 x 480 KiB/s x 500 = 2,212 (was 2,160: the KiB
    fix moves it from +2.1 % to +4.6 % over the CALIBRATE_IO figure, which reads ~2 % under caps, cf. 12 OCPUs)."""
    p = one_volume("9x500G@balanced", small_io=8192, vm="VM.Standard.E3.Flex:20")
    assert p.iops_limited_by == "session_depth" and p.max_iops == pytest.approx(213_391, rel=0.06)
    assert p.max_mbps == pytest.approx(2_211.8, abs=0.1) and p.mbps_limited_by == "volume_mbps_per_gb"
    network = next(r for r in p.limits if r.name == "instance_mbps")
    assert network.mbps == 2_400
    deep = one_volume("9x500G@balanced", small_io=8192, vm="VM.Standard.E3.Flex:20", host_queue_depth=128)
    assert (deep.max_iops, deep.iops_limited_by) == (225_000, "volume_iops_cap")


@pytest.mark.parametrize("vpu,iops", [(0, 512), (50, 30_720), (120, 57_600)])
def test_seed_uhp_256g_at_vpu_levels(vpu, iops):
    """The UHP seed's per-GB rule (225 x 256 = 57,600 at 120 VPU) once two paths carry I/O; one path stops at
    50,000 IOPS (OCI-PR) and, at depth 32, at 32 in flight / 0.53 ms (fitted to BV4DB-S2)."""
    assert one_volume(f"1x256G@{vpu}vpu", small_io=4096, **VOLUME_ONLY).max_iops == iops
    one_path = one_volume(f"1x256G@{vpu}vpu", small_io=4096, host_queue_depth=128, paths=1)
    assert one_path.max_iops == min(iops, 50_000)
    # the seed attached with OCI's agent ("Multipath: Yes") on E4.Flex:16: by default I/O spreads over the paths
    # the volume needs (issue 22, finding 5: the model said 45,146 on one path against 57.5k measured)
    seed = one_volume(f"1x256G@{vpu}vpu", small_io=4096, vm="VM.Standard.E4.Flex:16", host_queue_depth=128)
    assert seed.max_iops == iops and seed.paths == (2 if iops > 50_000 else 1)


def test_seed_part1_queue_depth_32_binds_higher_performance():
    """Part 1: Higher Performance 3.5 TB measured 28,426 IOPS against a 50,000 cap at iSCSI depth 32."""
    p32 = one_volume("1x3.5T@higher", small_io=8192, vm="VM.Standard.E3.Flex:6", host_queue_depth=32)
    assert p32.iops_limited_by == "session_depth"
    assert p32.max_iops == pytest.approx(28_426, rel=0.01)   # the E3 base latency is fitted to this run
    assert any("queue_depth = 128" in w for w in p32.warnings)
    p128 = one_volume("1x3.5T@higher", small_io=8192, vm="VM.Standard.E3.Flex:6", host_queue_depth=128)
    assert p128.iops_limited_by == "volume_iops_cap" and p128.max_iops == 50_000
    # model's default is the host build makes (128); the kernel's 32 is a note beside it
    cat = load_catalog("oci")
    unset = predict(parse_layout("1x3.5T@higher", "oci", cat), parse_instance("VM.Standard.E3.Flex:6", "oci", cat),
                    Workload(small_io=8192), cat)
    assert (unset.max_iops, unset.session_depth) == (50_000, 128)
    assert any("queue depth 32" in n and f"{p32.max_iops:,.0f} IOPS" in n for n in unset.notes)


def test_catalog_of_december_2020_has_older_higher_performance_limits():
    p = one_volume("1x3.5T@higher", small_io=8192, vm="VM.Standard.E3.Flex:6", as_of=date(2020, 12, 31),
                   host_queue_depth=128)
    assert p.catalog_version == "2020-12-11"
    assert (p.max_iops, p.max_mbps) == (35_000, 480)
    assert one_volume("1x3.5T@higher", small_io=8192, vm="VM.Standard.E3.Flex:6", host_queue_depth=128,
                      paths=1).max_iops == 50_000
    at_32 = one_volume("1x3.5T@higher", small_io=8192, vm="VM.Standard.E3.Flex:6", as_of=date(2020, 12, 31))
    assert at_32.iops_limited_by == "session_depth" and at_32.max_iops == pytest.approx(28_426, rel=0.01)


def test_uhp_warnings_under_16_ocpus():
    """OCI-PERF: VMs get multipath-enabled attachments from 16 OCPUs. A UHP volume needing 3 paths warns either way
    (how many paths), and below 16 OCPUs says the paths cannot be had."""
    p = one_volume("2x1T@60vpu", vm="VM.Standard.E4.Flex:8")
    assert any(">= 16 OCPUs" in w for w in p.warnings)
    assert any("multipath" in w for w in p.warnings)
    big = one_volume("2x1T@60vpu", vm="VM.Standard.E4.Flex:16")
    assert not any(">= 16 OCPUs" in w for w in big.warnings)
    assert big.paths == 3 and not any("needs 3 iSCSI paths" in w for w in big.warnings)   # attached multipath
    assert any("one path group" in w for w in big.warnings)
    assert one_volume("2x1T@60vpu", vm="VM.Standard.E4.Flex:16", paths=1).paths == 1


def test_attachment_limits_are_errors():
    """Issue 22: an unattachable layout is an input error in model as in plan."""
    with pytest.raises(InputError, match="at most 16 volumes paravirtualized"):
        one_volume("20x100G@balanced", vm="VM.Standard.E3.Flex:8", attachment="paravirtualized")
    iscsi = one_volume("20x100G@balanced", vm="VM.Standard.E3.Flex:8", attachment="iscsi")
    assert not any("paravirtualized" in w for w in iscsi.warnings)
    with pytest.raises(InputError, match=r"attaches at most 32 volumes \(OCI-PERF"):
        one_volume("33x100G@balanced", vm="VM.Standard.E3.Flex:8")


def test_every_limit_cites_a_dated_source():
    p = one_volume("9x500G@balanced", vm="VM.Standard.E3.Flex:12")
    for row in p.limits:
        assert row.sources and all(c.date.startswith("20") and c.url and c.url.startswith("https://")
                                   for c in row.sources)
    assert all(c.source for c in p.cost.items)


def test_headroom_is_relative_to_binding_limit():
    p = one_volume("9x500G@balanced", small_io=8192, vm="VM.Standard.E3.Flex:12")
    for row in p.limits:
        assert row.iops_headroom_pct == pytest.approx(100 * (row.iops / p.max_iops - 1), abs=0.1)
        if row.name == p.iops_limited_by:
            assert row.iops_headroom_pct == 0 and row.iops == p.max_iops
        elif row.name != "session_depth":   # at its asymptote the session limit sits within 0.1 % of the cap
            assert row.iops_headroom_pct > 0
