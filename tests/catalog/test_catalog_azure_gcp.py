"""Azure managed disks and Google Cloud PD / Hyperdisk: the published table rows (facts §3, §4) come back out
of the catalog through blockfit.model.predict, provisioning rules refuse what the clouds refuse, and the CLI
answers for both clouds."""

import json
import subprocess
import sys
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog, versions
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.schema import Prediction, Workload
from blockfit.specs import parse_instance, parse_layout

MIB = 1.048576  # MB per MiB


def azure(spec: str, vm: str = "Standard_E104is_v5", as_of: date | None = None, **wl) -> Prediction:
    cat = load_catalog("azure", as_of)
    return predict(parse_layout(spec, "azure", cat), parse_instance(vm, "azure", cat), Workload(**wl), cat,
                   with_curve=False)


def gcp(spec: str, vm: str = "n2-standard-64", **wl) -> Prediction:
    cat = load_catalog("gcp")
    return predict(parse_layout(spec, "gcp", cat), parse_instance(vm, "gcp", cat), Workload(**wl), cat,
                   with_curve=False)


def limit(p: Prediction, name: str):
    return next(r for r in p.limits if r.name == name)


# ---------------------------------------------------------------- Azure

# AZ-PSSD: tier, size GiB, base IOPS, base MB/s
PREMIUM_V1 = [("P1", 4, 120, 25), ("P2", 8, 120, 25), ("P3", 16, 120, 25), ("P4", 32, 120, 25),
              ("P6", 64, 240, 50), ("P10", 128, 500, 100), ("P15", 256, 1100, 125), ("P20", 512, 2300, 150),
              ("P30", 1024, 5000, 200), ("P40", 2048, 7500, 250), ("P50", 4096, 7500, 250),
              ("P60", 8192, 16000, 500), ("P70", 16384, 18000, 750), ("P80", 32767, 20000, 900)]


def test_both_azure_versions_load_and_dates_pick_them():
    assert versions("azure") == [date(2022, 6, 17), date(2026, 9, 16), date(2026, 11, 25)]
    assert load_catalog("azure", date(2024, 1, 1)).version == date(2022, 6, 17)
    assert load_catalog("azure", date(2026, 10, 1)).version == date(2026, 9, 16)
    assert load_catalog("azure").version == date(2026, 11, 25)


@pytest.mark.parametrize("tier,size,iops,mbps", PREMIUM_V1)
def test_premium_v1_tier_rows(tier, size, iops, mbps):
    p = azure(f"1x{size}G@premium-v1")
    assert p.max_iops == iops and p.iops_limited_by == "volume_iops_cap"
    assert p.max_mbps == mbps and p.mbps_limited_by == "volume_mbps_cap"
    assert not any("performs and bills as" in w for w in p.warnings)


def test_p30_row_5000_iops_200_mbs():
    p = azure("1x1T@premium-v1")
    assert (p.max_iops, p.max_mbps) == (5000, 200)
    assert p.cost.storage == pytest.approx(135.17)


def test_premium_v1_size_rounds_up_to_the_tier_for_perf_and_price():
    p = azure("1x1000G@premium-v1")
    assert (p.max_iops, p.max_mbps) == (5000, 200)
    assert p.cost.items[0].item.startswith("P30") and p.cost.storage == pytest.approx(135.17)
    assert any("performs and bills as P30" in w for w in p.warnings)
    assert azure("1x513G@premium-v1").max_iops == 5000
    assert azure("1x512G@premium-v1").max_iops == 2300


# AZ-PRICE-API-COPY-2026-09-23 (the Azure Retail Prices API output of 2026-09-23, eastus, meter '<tier> LRS Disk'
# of Premium SSD Managed Disks): USD per disk-month
PREMIUM_V1_EASTUS = {"P1": 0.6, "P2": 1.2, "P3": 2.4, "P4": 5.2795, "P6": 10.207, "P10": 19.71, "P15": 38.012142,
                     "P20": 73.22, "P30": 135.17, "P40": 259.0457, "P50": 495.5657, "P60": 946.08, "P70": 1802.06,
                     "P80": 3604.11}


@pytest.mark.parametrize("tier,size,iops,mbps", PREMIUM_V1)
def test_premium_v1_every_tier_is_priced_in_east_us(tier, size, iops, mbps):
    """Issue 22: P1-P6 and P50-P80 had no price (cost unknown); every tier now bills its East US list price."""
    p = azure(f"3x{size}G@premium-v1")
    item = p.cost.items[0]
    assert item.item.startswith(f"{tier} disk") and item.unit_price == PREMIUM_V1_EASTUS[tier]
    assert p.cost.storage == pytest.approx(3 * PREMIUM_V1_EASTUS[tier], abs=0.005)   # cents
    assert item.source is not None and item.source.id == "AZ-PRICE-API-COPY-2026-09-23"
    assert item.source.url == "https://prices.azure.com/api/retail/prices" and item.source.date == "2026-09-23"
    assert p.cost.region == "eastus" and not any("storage cost is unknown" in w for w in p.warnings)


def test_premium_v1_unknown_tier_price_leaves_cost_unknown():
    """The 2026-09-16 version has no P50 price: its cost stays unknown, said, not guessed."""
    p = azure("2x4T@premium-v1", vm="Standard_E16s_v5", as_of=date(2026, 10, 1))
    assert p.cost.storage is None and p.cost.items[0].unit_price is None and p.cost.total is None
    assert any("storage cost is unknown" in w for w in p.warnings)


def test_premium_v1_counts_ios_above_256k_as_several():
    """A 1 MiB I/O is four 256 KiB I/Os against the tier's IOPS (AZ-TYPES-2026)."""
    p = azure("1x1T@premium-v1", large_io=1024 * 1024)
    assert limit(p, "volume_iops_cap").mbps == pytest.approx(5000 / 4 * MIB, abs=0.1)
    assert p.member_io_accounting_bytes == 256 * 1024


def test_premium_v1_burst_is_warned_not_modelled():
    small = azure("1x128G@premium-v1")
    assert small.max_iops == 500 and any("3,500 IOPS" in w and "credits" in w for w in small.warnings)
    large = azure("1x2T@premium-v1")
    assert large.max_iops == 7500 and any("on-demand bursting" in w for w in large.warnings)


def test_premium_v1_takes_no_provisioning():
    with pytest.raises(InputError, match="no provisioned"):
        azure("1x1T@premium-v1:8000")
    with pytest.raises(InputError, match="32767"):
        azure("1x32T@premium-v1")


def test_premium_v2_at_160_gib_can_provision_80000_iops():
    p = azure("1x160G@premium-v2:80000:2000")
    assert p.max_iops == 80_000 and p.max_mbps == 2000
    with pytest.raises(InputError, match="79,500"):
        azure("1x159G@premium-v2:80000")


def test_premium_v2_free_baseline_and_500_iops_per_gib_after_6():
    base = azure("1x6G@pv2")
    assert base.layout == "1x6G@premium-v2:3000:125" and base.max_iops == 3000
    assert azure("1x10G@pv2:5000").max_iops == 5000
    with pytest.raises(InputError, match="3,000 to 5,000"):
        azure("1x10G@pv2:5001")
    with pytest.raises(InputError, match="3,000 to"):
        azure("1x100G@pv2:2999")


def test_premium_v2_2000_mbs_needs_8000_iops_and_was_1200_in_2022():
    assert azure("1x100G@pv2:8000:2000").max_mbps == 2000
    with pytest.raises(InputError, match="MB/s per IOPS"):
        azure("1x100G@pv2:7999:2000")
    with pytest.raises(InputError, match="max 1200"):
        azure("1x160G@pv2:80000:2000", vm="Standard_E96s_v5", as_of=date(2022, 12, 31))
    assert azure("1x160G@pv2:80000:1200", vm="Standard_E96s_v5", as_of=date(2022, 12, 31)).max_mbps == 1200


def test_premium_v2_default_throughput_limits_small_io():
    """80,000 IOPS with the free 125 MB/s: at 8 KiB the throughput binds (125e6 / 8192)."""
    p = azure("1x160G@pv2:80000")
    assert p.iops_limited_by == "volume_mbps_provisioned"
    assert p.max_iops == pytest.approx(125e6 / 8192, abs=0.1)


def test_ultra_400_gib_gives_400000_iops_now_and_120000_in_2022():
    p = azure("1x400G@ultra:400000:10000", vm="Standard_E104is_v5")
    assert limit(p, "volume_iops_provisioned").iops == 400_000
    assert p.max_iops == 120_000 and p.iops_limited_by == "instance_iops"
    with pytest.raises(InputError, match="400,000"):
        azure("1x401G@ultra:401000")
    with pytest.raises(InputError, match="120,000"):
        azure("1x400G@ultra:120001", vm="Standard_E96s_v5", as_of=date(2022, 12, 31))


def test_ultra_needs_iops_and_throughput_follows_the_ratio():
    with pytest.raises(InputError, match="expected provisioned IOPS"):
        azure("1x400G@ultra")
    with pytest.raises(InputError, match="MB/s per IOPS"):
        azure("1x400G@ultra:4000:1001")
    p = azure("1x400G@ultra:4000")
    assert p.layout == "1x400G@ultra:4000:1000"
    assert any("most the provisioned IOPS allow" in w for w in p.warnings)
    # East US since issue 38: every GiB, IOPS and MB/s billed (AZ-PRICE-API-COPY-2026-09-23, AZ-ULTRA-EASTUS-COPY)
    assert p.cost.storage == pytest.approx(400 * 0.11972 + 4000 * 0.04964 + 1000 * 0.34967, abs=0.01)


def test_e16s_v5_binds_a_four_member_premium_stripe():
    """4 x P40 = 30,000 IOPS on a VM with 25,600 uncached IOPS; 4 x P30 = 800 MB/s against 600."""
    p40 = azure("4x2T@premium-v1", vm="Standard_E16s_v5")
    assert p40.max_iops == 25_600 and p40.iops_limited_by == "instance_iops"
    p30 = azure("4x1T@premium-v1", vm="Standard_E16s_v5")
    assert p30.max_iops == 20_000 and p30.iops_limited_by == "volume_iops_cap"
    assert p30.max_mbps == 600 and p30.mbps_limited_by == "instance_mbps"
    assert any("40,000 IOPS" in w for w in p30.warnings)


def test_esv5_data_disk_limit_is_an_error():
    """Issue 22: more disks than the VM attaches is an input error in model as in plan, naming the source."""
    with pytest.raises(InputError, match=r"attaches at most 4 volumes \(AZ-ESV5"):
        azure("5x1T@premium-v1", vm="Standard_E2s_v5")
    assert not any("attach" in w for w in azure("4x1T@premium-v1", vm="Standard_E2s_v5").warnings)


def test_e104is_v5_is_not_in_the_2022_catalog():
    with pytest.raises(InputError, match="Standard_E104is_v5"):
        azure("1x1T@premium-v1", vm="Standard_E104is_v5", as_of=date(2022, 12, 31))


# ---------------------------------------------------------------- Google Cloud

def test_pd_ssd_per_vm_cap_on_n2_with_32_vcpus_is_60000():
    p = gcp("4x1T@pd-ssd", vm="n2-standard-32")
    assert p.max_iops == 60_000 and p.iops_limited_by == "instance_iops"
    assert p.instance_iops_cap == 60_000


@pytest.mark.parametrize("vm,vtype,iops,mib", [
    ("n2-standard-2", "pd-balanced", 15000, 240), ("n2-highmem-8", "pd-balanced", 15000, 800),
    ("n2-standard-16", "pd-ssd", 25000, 1200), ("n2d-standard-64", "pd-ssd", 100000, 1200),
    ("n2-standard-80", "pd-balanced", 80000, 1200), ("c3-standard-22", "pd-ssd", 25000, 800),
    ("c3-highmem-44", "pd-balanced", 50000, 1200), ("c3-standard-176", "pd-ssd", 80000, 1200),
])
def test_pd_per_vm_caps_by_vcpu(vm, vtype, iops, mib):
    p = gcp(f"1x64T@{vtype}", vm=vm)
    assert p.instance_iops_cap == iops
    assert p.instance_mbps_cap == pytest.approx(mib * MIB)
    assert p.max_iops == iops and p.iops_limited_by == "instance_iops"


def test_c3_sizes_not_in_the_source_are_refused():
    with pytest.raises(InputError, match="vCPUs, not 16"):
        gcp("1x1T@pd-ssd", vm="c3-standard-16")
    with pytest.raises(InputError, match="SHAPE:COUNT"):
        gcp("1x1T@pd-ssd", vm="n2")


def test_pd_per_gib_plus_per_vm_baseline_in_mib():
    p = gcp("1x1000G@pd-balanced")
    assert p.max_iops == 6 * 1000 + 3000
    assert p.max_mbps == pytest.approx((0.28 * 1000 + 140) * MIB, abs=0.1)
    assert p.cost.storage == pytest.approx(1000 * 0.10)


@settings(max_examples=60, deadline=None)
@given(total=st.integers(40, 4000), members=st.integers(1, 16), vtype=st.sampled_from(["pd-balanced", "pd-ssd"]))
def test_pd_stripe_total_is_per_gib_times_total_size_plus_one_baseline(total, members, vtype):
    """Google shares PD performance per VM: splitting the same capacity over more members adds nothing."""
    size = total // members
    vt = load_catalog("gcp").volume_types[vtype]
    p = gcp(f"{members}x{size}G@{vtype}", vm="n2-standard-64")
    expected = vt.iops_per_gb * size * members + vt.iops_included
    assert limit(p, "volume_iops_per_gb").iops == pytest.approx(expected, abs=0.2)
    expected_mb = (vt.tput_per_gb * size * members + vt.tput_included) * MIB
    assert limit(p, "volume_mbps_per_gb").mbps == pytest.approx(expected_mb, abs=0.2)


def test_pd_takes_no_provisioning_and_prices_capacity():
    with pytest.raises(InputError, match="no provisioned"):
        gcp("1x1T@pd-ssd:20000")
    assert gcp("4x500G@pd-ssd").cost.storage == pytest.approx(4 * 500 * 0.17)


def test_hyperdisk_balanced_defaults_to_included_and_caps_at_160000():
    p = gcp("1x500G@hdb", vm="c3-standard-44")
    assert p.layout == "1x500G@hyperdisk-balanced:3000:140" and p.max_iops == 3000
    assert p.instance_iops_cap is None
    assert any("per-VM limits for hyperdisk-balanced are not in the catalog" in w for w in p.warnings)
    assert p.cost.storage == pytest.approx(500 * 0.08)   # capacity only: the included 3,000 IOPS and 140 MiB/s are free
    assert gcp("2x1T@hdb:160000:2400", vm="c3-standard-176").max_mbps == pytest.approx(2 * 2400 * MIB, abs=0.1)
    with pytest.raises(InputError, match="160,000"):
        gcp("1x1T@hdb:160001")
    with pytest.raises(InputError, match="2400 MiB/s"):
        gcp("1x1T@hdb:50000:2401")


def test_hyperdisk_extreme_throughput_follows_iops():
    p = gcp("1x1T@hdx:10000", vm="c3-standard-88")
    assert p.max_mbps == pytest.approx(2500 * MIB, abs=0.1)
    top = gcp("1x1T@hdx:350000", vm="c3-standard-176")
    assert top.max_iops == 350_000 and top.max_mbps == pytest.approx(5000 * MIB, abs=0.1)
    assert not any("needs" in w for w in top.warnings)   # c3-standard-176 qualifies: nothing to warn
    with pytest.raises(InputError, match="at least 88 vCPUs"):
        gcp("1x1T@hdx:10000", vm="c3-standard-44")
    with pytest.raises(InputError, match="throughput follows"):
        gcp("1x1T@hdx:10000:100")
    with pytest.raises(InputError, match="expected provisioned IOPS"):
        gcp("1x1T@hdx")
    with pytest.raises(InputError, match="128 to 350,000"):
        gcp("1x1T@hdx:100")
    with pytest.raises(InputError, match="64 to 65536"):
        gcp("1x63G@hdx:1000")


# ---------------------------------------------------------------- specs and CLI

@settings(max_examples=150, deadline=None)
@given(cloud=st.sampled_from(["azure", "gcp"]), count=st.integers(0, 40), size=st.integers(1, 70000),
       level=st.sampled_from(["premium-v1", "pv2", "ultra", "pd-balanced", "pd-ssd", "hdb", "hdx", "gp3"]),
       iops=st.one_of(st.none(), st.integers(0, 500000)), mbps=st.one_of(st.none(), st.integers(0, 12000)),
       vm=st.sampled_from(["Standard_E8s_v5", "Standard_E64s_v5", "n2-standard-8", "c3-standard-88", "n2:3"]))
def test_random_azure_gcp_specs_predict_or_explain(cloud, count, size, level, iops, mbps, vm):
    spec = f"{count}x{size}G@{level}" + (f":{iops}" if iops is not None else "")
    spec += f":{mbps}" if iops is not None and mbps is not None else ""
    cat = load_catalog(cloud)
    try:
        p = predict(parse_layout(spec, cloud, cat), parse_instance(vm, cloud, cat), None, cat, with_curve=False)
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert p.max_iops > 0 and p.max_mbps > 0
    names = {r.name for r in p.limits}
    assert p.iops_limited_by in names and p.mbps_limited_by in names
    assert all(r.iops >= p.max_iops - 0.1 for r in p.limits)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=60)


def test_cli_azure_premium_stripe_on_e16s_v5():
    args = ["model", "--cloud", "azure", "--layout", "4x1T@premium-v1", "--instance", "Standard_E16s_v5"]
    out = run(*args)
    assert out.returncode == 0, out.stderr
    assert "600.0" in out.stdout and "Standard_E16s_v5" in out.stdout and "$540.68" in out.stdout
    data = json.loads(run(*args, "--json").stdout)
    assert data["mbps_limited_by"] == "instance_mbps" and data["max_mbps"] == 600
    assert data["max_iops"] == 20_000


def test_cli_gcp_machine_type():
    out = run("model", "--cloud", "gcp", "--layout", "4x1T@pd-ssd", "--instance", "n2-standard-32", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["max_iops"] == 60_000 and data["iops_limited_by"] == "instance_iops"


@pytest.mark.parametrize("cloud,layout,instance,needle", [
    ("azure", "1x400G@ultra", "Standard_E16s_v5", "expected provisioned IOPS"),
    ("azure", "1x160G@pv2:90000", "Standard_E16s_v5", "80,000"),
    ("azure", "1x1T@premium-v1", "Standard_E17s_v5", "'Standard_E17s_v5'"),
    ("gcp", "1x1T@pd-ssd", "c3-standard-16", "vCPUs, not 16"),
    ("gcp", "1x1T@pd-platinum", "n2-standard-16", "'pd-platinum'"),
])
def test_cli_errors_are_one_line_exit_2(cloud, layout, instance, needle):
    out = run("model", "--cloud", cloud, "--layout", layout, "--instance", instance)
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
