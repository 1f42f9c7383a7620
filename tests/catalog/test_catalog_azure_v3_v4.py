"""Azure v3/v4 sizes still in service (Dasv4, Dsv4, Dsv3, Easv4, Esv4, Esv3) with their uncached disk caps and burst,
and the split caps of sizes that publish Premium SSD and Premium SSD v2 / Ultra limits apart: the cap that holds is
the one of the volume's family."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from blockfit.catalog import load_catalog
from blockfit.catalog.names import azure_series
from blockfit.model import predict
from blockfit.schema import Prediction, Workload
from blockfit.specs import parse_instance, parse_layout

CAT = load_catalog("azure")
FAMILIES = {"Dasv4": ("general-purpose/dasv4-series", 8), "Dsv4": ("general-purpose/dsv4-series", 7),
            "Dsv3": ("general-purpose/dsv3-series", 7), "Easv4": ("memory-optimized/easv4-series", 9),
            "Esv4": ("memory-optimized/esv4-series", 9), "Esv3": ("memory-optimized/ev3-esv3-series", 9)}


def azure(spec: str, vm: str, **wl: int) -> Prediction:
    return predict(parse_layout(spec, "azure", CAT), parse_instance(vm, "azure", CAT), Workload(**wl), CAT,
                   with_curve=False)


@pytest.mark.parametrize("series", list(FAMILIES))
def test_every_size_of_the_family_with_its_cited_caps(series: str) -> None:
    page, count = FAMILIES[series]
    sizes = [s for s in CAT.shapes.values() if s.series == series]
    assert len(sizes) == count
    for s in sizes:
        assert azure_series(s.name) == series                  # the name says the series the catalog files it in
        assert s.iops and s.mbps and s.iops_burst and s.mbps_burst and s.attach_max and s.vcpus and s.memory_gb
        assert s.iops_burst >= s.iops and s.mbps_burst >= s.mbps
        assert CAT.cite(s, "iops").url == f"https://learn.microsoft.com/azure/virtual-machines/sizes/{page}"
        assert not s.caps and not s.unknown                    # one uncached cap for every disk type
    by_vcpus = sorted(sizes, key=lambda s: (s.vcpus or 0, s.name))
    assert all(a.iops <= b.iops and a.mbps <= b.mbps for a, b in zip(by_vcpus, by_vcpus[1:], strict=False)
               if a.iops and b.iops and a.mbps and b.mbps)   # caps grow with the size


def test_every_size_is_priced_in_east_us_from_the_cited_copy() -> None:
    """The karpenter copy's eastus rows: Standard_D16as_v4 $0.768/h, Standard_E16s_v4 $1.008/h (the Esv5 figure)."""
    sizes = [s for s in CAT.shapes.values() if s.series in FAMILIES]
    for s in sizes:
        price = CAT.compute_prices[s.name]
        assert price.region == "eastus" and CAT.cite(price, "per_hour").id == "AZ-VM-PRICE-KARPENTER-2026-06-18"
    assert CAT.compute_prices["Standard_D16as_v4"].per_hour == pytest.approx(0.768)
    assert CAT.compute_prices["Standard_E16s_v4"].per_hour == pytest.approx(CAT.compute_prices["Standard_E16s_v5"]
                                                                         .per_hour)
    p = azure("1x1T@premium-v1", "Standard_D16as_v4")
    assert p.cost.compute == pytest.approx(0.768 * 730, abs=0.01)


def test_previous_generation_sizes_are_not_current() -> None:
    assert all(not s.current for s in CAT.shapes.values() if s.series in ("Dsv3", "Esv3"))
    assert all(s.current for s in CAT.shapes.values() if s.series in ("Dasv4", "Dsv4", "Easv4", "Esv4"))


def test_d16as_v4_caps_a_premium_stripe_and_bursts() -> None:
    """Four P30 (5,000 IOPS / 200 MB/s each) on Standard_D16as_v4 (25,600 / 384, burst 32,000 / 800): the volumes
    bind the IOPS, the VM binds the MB/s; its 30-minute burst lifts the MB/s to the volumes' 800."""
    p = azure("4x1T@premium-v1", "Standard_D16as_v4")
    assert p.max_iops == 20_000 and p.iops_limited_by == "volume_iops_cap"
    assert p.max_mbps == pytest.approx(384) and p.mbps_limited_by == "instance_mbps"
    assert p.burst is not None and p.burst.max_mbps == pytest.approx(800)
    vm = [b for b in p.burst.buckets if b.mechanism == "azure_vm" and b.limit == "instance_mbps"]
    assert vm and vm[0].burst_mbps == 800 and vm[0].source.id == "AZ-BURSTING"


@pytest.mark.parametrize(("vtype", "level", "iops", "mbps"), [
    ("premium-v1", "premium-v1", 120_000, 4000),
    ("premium-v2", "premium-v2:80000:1200", 160_800, 6500),
    ("ultra", "ultra:80000:1200", 160_800, 6500),
    ("standard-ssd", "standard-ssd", 120_000, 4000),
])
def test_split_caps_follow_the_volume_family(vtype: str, level: str, iops: int, mbps: int) -> None:
    """Standard_E64bs_v5 over SCSI publishes 120,000 IOPS / 4,000 MB/s for Premium SSD and 160,800 / 6,500 for Premium
    SSD v2 and Ultra; Standard SSD takes the Premium SSD column."""
    p = azure(f"8x4T@{level}", "Standard_E64bs_v5")
    assert (p.instance_iops_cap, p.instance_mbps_cap) == (iops, mbps)
    row = next(r for r in p.limits if r.name == "instance_mbps")
    assert row.sources[0].id == "AZ-EBV5"


def test_split_caps_on_nvme_too() -> None:
    """Over NVMe the same size gives 220,000 / 6,000 (Premium SSD) and 294,800 / 7,800 (v2 / Ultra)."""
    v1 = azure("8x4T@premium-v1", "Standard_E64bs_v5/nvme")
    v2 = azure("8x4T@premium-v2:80000:1200", "Standard_E64bs_v5/nvme")
    assert (v1.instance_iops_cap, v1.instance_mbps_cap) == (220_000, 6000)
    assert (v2.instance_iops_cap, v2.instance_mbps_cap) == (294_800, 7800)


def test_cli_instance_standard_d16as_v4() -> None:
    out = subprocess.run([sys.executable, "-m", "blockfit", "model", "--cloud", "azure", "--layout",
                          "1x1T@premium-v2:20000:400", "--instance", "Standard_D16as_v4", "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["instance_iops_cap"] == 25_600 and data["instance_mbps_cap"] == 384
    assert data["max_mbps"] == pytest.approx(384) and data["mbps_limited_by"] == "instance_mbps"
