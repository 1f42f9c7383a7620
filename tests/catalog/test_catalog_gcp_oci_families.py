"""Issue 27, GCP and OCI breadth: the machine series added to the shipped GCP catalog (C3D, M3, E2 with their
Persistent Disk caps; N4, C4, C4A, C4D, M4 Hyperdisk only) and the OCI shapes of the same generations. Each figure
checked here is quoted with the page of the provider that publishes it."""

import os
import subprocess
import sys

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.model.instance import instance_caps, machine_type, series_vcpus
from blockfit.schema import Instance, Workload
from blockfit.specs import parse_instance, parse_layout

GP = "https://cloud.google.com/compute/docs/general-purpose-machines"
MO = "https://cloud.google.com/compute/docs/memory-optimized-machines"
PD = "https://cloud.google.com/compute/docs/disks/performance"
MIB = 1.048576   # MB/s per MiB/s

# The predefined sizes (vCPUs) each series comes in, as Google's machine-type tables list them (GP, MO).
SIZES = {
    "c3d": [4, 8, 16, 30, 60, 90, 180, 360],
    "m3": [32, 64, 128],
    "e2": [2, 4, 8, 16, 32],
    "n4": [2, 4, 8, 16, 32, 48, 64, 80],
    "c4": [2, 4, 8, 16, 24, 32, 48, 96, 144, 192, 288],
    "c4a": [1, 2, 4, 8, 16, 32, 48, 64, 72],
    "c4d": [2, 4, 8, 16, 32, 48, 64, 96, 192, 384],
    "m4": [16, 28, 32, 56, 64, 112, 224],
}


@pytest.mark.parametrize("series", sorted(SIZES))
def test_each_added_series_is_listed_with_its_sizes(series):
    shape = load_catalog("gcp").shapes[series]
    assert shape.kind == "vcpu_tiers" and shape.series == series
    assert series_vcpus(shape) == SIZES[series]


# Machine type -> (vCPUs, memory GB) from Google's tables: names whose memory is not a round ratio of vCPUs.
@pytest.mark.parametrize("name,vcpus,memory", [
    ("c3d-highcpu-30", 30, 59),        # GP, C3D highcpu
    ("c3d-highmem-360", 360, 2880),    # GP, C3D highmem
    ("c4-standard-2", 2, 7),           # GP, C4 standard (3.75 GB/vCPU elsewhere)
    ("c4-highmem-288", 288, 2232),     # GP, C4 highmem
    ("c4d-highcpu-4", 4, 7),           # GP, C4D highcpu
    ("c4d-standard-384", 384, 1488),   # GP, C4D standard
    ("c4a-highmem-72", 72, 576),       # GP, C4A highmem
    ("n4-highmem-80", 80, 640),        # GP, N4 highmem
    ("e2-highcpu-32", 32, 32),         # GP, E2 high-cpu
    ("m3-megamem-64", 64, 976),        # MO, M3
    ("m3-ultramem-128", 128, 3904),    # MO, M3
    ("m4-megamem-28", 28, 372),        # MO, M4
    ("m4-ultramem-224", 224, 5952),    # MO, M4
    ("m4-hypermem-64", 64, 992),       # MO, M4
])
def test_machine_types_carry_googles_vcpus_and_memory(name, vcpus, memory):
    mt = machine_type(load_catalog("gcp"), name)
    assert mt is not None and mt.vcpus == vcpus and mt.memory_gb == memory


def test_a_size_google_does_not_sell_is_refused():
    with pytest.raises(InputError, match="comes with 2, 4, 8, 16, 24, 32, 48, 96, 144, 192, 288 vCPUs"):
        machine_type(load_catalog("gcp"), "c4-standard-64")
    with pytest.raises(InputError, match="no predefined family 'highcpu'"):
        machine_type(load_catalog("gcp"), "m4-highcpu-16")


def model(spec: str, vm: str):
    cat = load_catalog("gcp")
    return predict(parse_layout(spec, "gcp", cat), parse_instance(vm, "gcp", cat),
                   Workload(small_io=8192, large_io=1 << 20), cat, with_curve=False)


# Google's per-VM Persistent Disk limits (PD page, via Google's gcpdiag copy of its tables), throughput in MiB/s.
# Each layout is larger than the cap, so the VM's limit binds.
@pytest.mark.parametrize("spec,vm,iops,mib", [
    ("1x4T@pd-ssd", "c3d-standard-60", 80_000, 1_200),      # PD: C3D 60 vCPU pd-ssd 80,000 IOPS / 1,200 MiB/s
    ("1x8T@pd-ssd", "c3d-highmem-180", 80_000, 2_200),      # PD: C3D 180 vCPU pd-ssd 80,000 IOPS / 2,200 MiB/s
    ("1x4T@pd-ssd", "m3-megamem-64", 40_000, 1_200),        # PD: m3-megamem-64 pd-ssd 40,000 IOPS / 1,200 MiB/s
    ("1x16T@pd-balanced", "m3-ultramem-128", 80_000, 1_200),  # PD: m3-ultramem-128 pd-balanced 80,000 / 1,200
    ("1x4T@pd-ssd", "e2-standard-32", 60_000, 1_000),       # PD: E2 32+ vCPU pd-ssd 60,000 IOPS, 1,000 MiB/s write
    ("1x4T@pd-balanced", "e2-highcpu-4", 15_000, 240),      # PD: E2 2-7 vCPU pd-balanced 15,000 IOPS / 240 MiB/s
])
def test_published_per_vm_persistent_disk_limits_within_1_percent(spec, vm, iops, mib):
    p = model(spec, vm)
    assert p.max_iops == pytest.approx(iops, rel=0.01) and p.iops_limited_by == "instance_iops"
    assert p.max_mbps == pytest.approx(mib * MIB, rel=0.01) and p.mbps_limited_by == "instance_mbps"


def test_the_cap_grows_with_the_size_as_google_publishes():
    """PD page, C3D pd-balanced: 15,000 IOPS at 4 vCPUs, 25,000 at 8, 50,000 at 30."""
    caps = [model("1x4T@pd-balanced", f"c3d-standard-{n}").instance_iops_cap for n in (4, 8, 30)]
    assert caps == [15_000, 25_000, 50_000]


# Google's machine-series pages: the number of Hyperdisk volumes per VM, by size.
@pytest.mark.parametrize("vm,most", [
    ("c4-standard-2", 8), ("c4-highmem-96", 128),           # GP, C4 storage limits
    ("c4d-highcpu-2", 4), ("c4d-standard-192", 64),         # GP, C4D storage limits
    ("c4a-standard-16", 32), ("n4-highcpu-8", 16),          # GP, C4A and N4 storage limits
    ("m4-hypermem-16", 16), ("m4-ultramem-112", 64),        # MO, M4 storage limits
])
def test_hyperdisk_volume_count_per_vm_is_checked(vm, most):
    cat = load_catalog("gcp")
    caps = instance_caps(cat, parse_instance(vm, "gcp", cat), "hyperdisk-balanced")
    assert caps.attach_max == most and caps.attach_cite is not None and caps.attach_cite.url in (GP, MO)
    model(f"{most}x100G@hyperdisk-balanced", vm)
    with pytest.raises(InputError, match=f"attaches at most {most} volumes"):
        model(f"{most + 1}x100G@hyperdisk-balanced", vm)


@pytest.mark.parametrize("vm", ["n4-standard-32", "c4-standard-48", "c4a-highmem-64",
                                "m4-megamem-56"])
def test_hyperdisk_only_series_have_no_guessed_per_vm_limit(vm):
    """Google's hyperdisk-perf-limits rows were in no copy read: not applied, and the user is told."""
    p = model("1x1T@hyperdisk-balanced:20000:500", vm)
    assert p.instance_iops_cap is None and p.instance_mbps_cap is None
    assert any("per-VM disk limits were not found" in w for w in p.warnings)


def test_an_unknown_volume_count_is_warned():
    """MO lists m4-ultramem-224 at 128 Hyperdisk volumes but not m4-megamem-224: at 224 vCPUs it is unknown."""
    p = model("1x1T@hyperdisk-balanced", "m4-megamem-224")
    assert any("attachment limit was not found" in w for w in p.warnings)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("vm,url", [("n4-standard-16", GP), ("c4-standard-8", GP), ("c4a-standard-4", GP),
                                    ("c4d-highmem-8", GP), ("m4-megamem-28", MO)])
def test_hyperdisk_only_series_refuse_persistent_disk_exit_2(vm, url):
    """GP/MO: N4, C4, C4A, C4D and M4 don't support Persistent Disk."""
    out = cli("model", "--cloud", "gcp", "--layout", "2x1T@pd-balanced", "--instance", vm)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "cannot attach pd-balanced" in out.stderr and url in out.stderr


def test_n4_takes_no_hyperdisk_extreme_and_e2_no_hyperdisk():
    """GP: N4 takes Hyperdisk Balanced, Balanced HA and Throughput; E2 takes Persistent Disk only."""
    with pytest.raises(InputError, match="n4 cannot attach hyperdisk-extreme"):
        model("1x1T@hyperdisk-extreme:10000", "n4-standard-80")
    with pytest.raises(InputError, match="e2 cannot attach hyperdisk-balanced"):
        model("1x1T@hyperdisk-balanced", "e2-standard-16")


def test_c3d_and_m3_take_hyperdisk_without_a_guessed_cap():
    for vm in ("c3d-standard-60", "m3-megamem-64"):
        p = model("1x1T@hyperdisk-balanced:20000:500", vm)
        assert p.instance_iops_cap is None and any("not in the catalog" in w for w in p.warnings)


# ---------------------------------------------------------------- OCI

OCI_BV = "https://docs.oracle.com/en-us/iaas/Content/Block/Concepts/blockvolumeperformance.htm"


@pytest.mark.parametrize("spec,ocpus,iops,mbps", [
    ("VM.DenseIO.E4.Flex:8", 8, 160_000, 960),       # 8 Gbps x 20,000 IOPS and x 120 MB/s (OCI_BV's VM table row)
    ("VM.DenseIO.E4.Flex:32", 32, 600_000, 3_840),   # 32 Gbps: 640,000 held to the rule's 600,000 IOPS maximum
])
def test_oci_flex_shapes_follow_the_per_gbps_rule(spec, ocpus, iops, mbps):
    cat = load_catalog("oci")
    inst = parse_instance(spec, "oci", cat)
    caps = instance_caps(cat, inst, "block")
    assert inst.ocpus == ocpus
    assert caps.iops == pytest.approx(iops, rel=0.01) and caps.mbps == pytest.approx(mbps, rel=0.01)
    assert caps.iops_cite is not None and caps.iops_cite.url == OCI_BV


@pytest.mark.parametrize("spec", ["VM.DenseIO.E5.Flex:24", "VM.Standard.A2.Flex:40", "VM.Standard.E6.Flex:8"])
def test_vm_shapes_the_block_volume_table_does_not_list_have_unknown_caps(spec):
    """OCI_BV's VM table gives each listed shape the per-Gbps rule; it lists no DenseIO E5, A2 or E6, so their caps
    are stated unknowns with a warning, never the rule extrapolated."""
    cat = load_catalog("oci")
    caps = instance_caps(cat, parse_instance(spec, "oci", cat), "block")
    assert caps.iops is None and caps.mbps is None
    assert any("not found" in w for w in caps.warnings)


def test_bm_densio_e5_caps_are_unknown_not_guessed():
    cat = load_catalog("oci")
    caps = instance_caps(cat, Instance(cloud="oci", shape="BM.DenseIO.E5.128"), "block")
    assert caps.iops is None and caps.mbps is None
    assert any("not found" in w for w in caps.warnings)


OCI_SHAPES = "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm"


def test_e6_is_listed_with_the_compute_shapes_page_figures_and_its_unknowns():
    """Compute shapes page (copy read 2026-11-27): VM.Standard.E6.Flex '1 OCPU minimum, 126 OCPU maximum',
    '1 Gbps per OCPU, maximum 99 Gbps'; BM.Standard.E6.256 256 OCPU, 3072 GB, '1 x 200 Gbps'. The block-volume
    pages read have no E6 row: the instance IOPS and MB/s caps are stated unknowns."""
    cat = load_catalog("oci")
    vm, bm = cat.shapes["VM.Standard.E6.Flex"], cat.shapes["BM.Standard.E6.256"]
    assert (vm.ocpus_min, vm.ocpus_max, vm.gbps_per_ocpu, vm.gbps_max) == (1, 126, 1, 99)
    assert (bm.ocpus, bm.memory_gb, bm.gbps) == (256, 3072, 200)
    for shape in (vm, bm):
        src = cat.sources[shape.source_of("ocpus_max" if shape is vm else "ocpus")]
        assert src.url == OCI_SHAPES and src.date is not None
        assert {"iops", "mbps"} <= set(shape.unknown) and shape.iops is None and shape.mbps is None


@pytest.mark.parametrize("spec", ["VM.Standard.E6.Flex:8", "VM.Standard.E6.Flex:126", "BM.Standard.E6.256"])
def test_e6_instance_caps_are_warned_not_guessed(spec):
    """No rule of the block-volume pages is applied to E6: the prediction is bound by the volumes and paths alone
    and says that the instance caps were not found; the same layout on E5 at 8 OCPUs is bound by the VM rule."""
    cat = load_catalog("oci")
    caps = instance_caps(cat, parse_instance(spec, "oci", cat), "block")
    assert caps.iops is None and caps.mbps is None
    assert any("not found" in w and "not applied" in w for w in caps.warnings), caps.warnings
    layout = "16x2T@higher"
    e6 = predict(parse_layout(layout, "oci", cat), parse_instance(spec, "oci", cat), Workload(), cat, with_curve=False)
    assert not any(row.name.startswith("instance") for row in e6.limits)
    assert any("not found" in w for w in e6.warnings)
    e5 = predict(parse_layout(layout, "oci", cat), parse_instance("VM.Standard.E5.Flex:8", "oci", cat), Workload(),
                 cat, with_curve=False)
    assert e5.max_iops < e6.max_iops


def test_e6_ocpu_range_is_checked():
    cat = load_catalog("oci")
    with pytest.raises(InputError, match="OCPUs must be 1 to 126"):
        instance_caps(cat, parse_instance("VM.Standard.E6.Flex:127", "oci", cat), "block")


def test_cli_model_on_e6_answers_with_the_unknown_stated():
    out = cli("model", "--cloud", "oci", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E6.Flex:8")
    assert out.returncode == 0, out.stderr
    assert "VM.Standard.E6.Flex: its instance IOPS and MB/s caps were not found" in " ".join(out.stdout.split())


def test_catalog_show_prints_e6_caps_as_unknown_not_the_vm_rule():
    out = subprocess.run([sys.executable, "-m", "blockfit", "catalog", "show", "oci"], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "COLUMNS": "220"})
    assert out.returncode == 0, out.stderr
    rows: dict[str, str] = {}
    for line in out.stdout.splitlines():     # the shapes table comes before the compute prices table
        if line.count("│") > 8:
            rows.setdefault(line.split("│")[1].strip(), line)
    assert "unknown" in rows["VM.Standard.E6.Flex"] and "x Gbps" not in rows["VM.Standard.E6.Flex"]
    assert "x Gbps" in rows["VM.Standard.E5.Flex"]
