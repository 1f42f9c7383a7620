"""Issue 22, "one price region per result": the Azure catalog prices its disks and its VMs in one region, East US
since issue 38 (East US 2 before; East US is the one region whose Ultra Disk IOPS and MB/s meters were found).

The figures are those of AZ-PRICE-API-COPY-2026-09-23 (the Azure Retail Prices API output of 2026-09-23, eastus,
pay-as-you-go Linux): Standard_E20s_v5 and Standard_E104is_v5 had no compute price, and the eight other Esv5 sizes
were priced in East US while the disks were priced in East US 2, so every total added two regions and said so."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.model.cost import region_name
from blockfit.schema import Workload
from blockfit.schema.cost import HOURS_PER_MONTH
from blockfit.specs import parse_instance, parse_layout

CAT = load_catalog("azure")
SOURCE = "AZ-PRICE-API-COPY-2026-09-23"

# AZ-PRICE-API-COPY-2026-09-23, vm_hour, eastus (the same ten figures under eastus2): USD per hour
ESV5_EASTUS = {"Standard_E2s_v5": 0.126, "Standard_E4s_v5": 0.252, "Standard_E8s_v5": 0.504,
                "Standard_E16s_v5": 1.008, "Standard_E20s_v5": 1.26, "Standard_E32s_v5": 2.016,
                "Standard_E48s_v5": 3.024, "Standard_E64s_v5": 4.032, "Standard_E96s_v5": 6.048,
                "Standard_E104is_v5": 7.207}


def model_json(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "blockfit", "model", "--cloud", "azure", *args, "--json"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("shape,per_hour", sorted(ESV5_EASTUS.items()))
def test_every_esv5_size_has_an_east_us_compute_price(shape, per_hour):
    p = predict(parse_layout("1x1T@premium-v1", "azure", CAT), parse_instance(shape, "azure", CAT), Workload(), CAT,
                with_curve=False)
    detail = p.cost.compute_detail
    assert detail is not None and detail.per_hour == per_hour and detail.region == "eastus"
    assert detail.source is not None and detail.source.id == SOURCE
    assert p.cost.compute == pytest.approx(per_hour * HOURS_PER_MONTH, abs=0.005)
    assert p.cost.total == pytest.approx(p.cost.storage + p.cost.compute, abs=0.005)


@pytest.mark.parametrize("layout,shape,tier_price,per_hour,members", [
    ("1x4T@premium-v1", "Standard_E20s_v5", 495.5657, 1.26, 1),             # P50 on E20s_v5: both were unknown
    ("2x32767G@premium-v1", "Standard_E104is_v5", 3604.11, 7.207, 2),     # P80 on E104is_v5
    ("4x4G@premium-v1", "Standard_E4s_v5", 0.60, 0.252, 4),                # P1 on a size priced before (East US)
])
def test_new_prices_read_back_through_the_cli_in_one_region(layout, shape, tier_price, per_hour, members):
    out = model_json("--layout", layout, "--instance", shape)
    cost = out["cost"]
    assert cost["storage"] == pytest.approx(members * tier_price, abs=0.005)
    assert cost["compute"] == pytest.approx(per_hour * 730, abs=0.005)
    assert cost["total"] == pytest.approx(members * tier_price + per_hour * 730, abs=0.01)
    assert cost["region"] == "eastus" and cost["compute_detail"]["region"] == "eastus"
    assert {i["source"]["id"] for i in cost["items"]} == {SOURCE} == {cost["compute_detail"]["source"]["id"]}
    assert not [w for w in out["warnings"] if "unknown" in w or "two regions" in w]


def test_every_price_of_the_current_catalog_names_one_region():
    storage = {region_name(vt.price_region) for vt in CAT.volume_types.values()
               if vt.price_tiers or vt.price_per_gb is not None}
    compute = {region_name(p.region) for p in CAT.compute_prices.values()}
    assert storage == compute == {"eastus"}


@settings(max_examples=60, deadline=None)
@given(tier=st.sampled_from([t["size_gb"] for t in CAT.volume_types["premium-v1"].tiers]),
       members=st.integers(1, 4), shape=st.sampled_from(sorted(ESV5_EASTUS)), read_pct=st.integers(0, 100))
def test_any_priced_azure_result_holds_one_region(tier, members, shape, read_pct):
    """A premium-v1 layout on any priced Esv5 size: storage, compute and total known, one region, no two-region
    warning."""
    layout = parse_layout(f"{members}x{tier}G@premium-v1", "azure", CAT)
    p = predict(layout, parse_instance(shape, "azure", CAT), Workload(read_pct=read_pct), CAT, with_curve=False)
    assert p.cost.storage is not None and p.cost.compute is not None and p.cost.total is not None
    assert p.cost.region == "eastus"
    assert {region_name(p.cost.compute_detail.region)} == {"eastus"}
    assert not any(w.startswith("Prices of two regions") for w in p.warnings)


def test_a_plan_over_every_azure_size_prices_in_one_region():
    """`plan --instance any`: every row it prices (candidates, Pareto, the cheapest per size) is of East US, and
    Standard_E20s_v5, left out before for want of a price, is not left out."""
    proc = subprocess.run([sys.executable, "-m", "blockfit", "plan", "--cloud", "azure", "--instance", "any",
                           "--capacity", "4T", "--target-iops", "20000", "--json"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    rows = [c["prediction"]["cost"] for c in plan["candidates"] + plan["pareto"]]
    rows += [c["cost"] for c in plan["instance_search"]["cheapest"]]
    assert rows and all(r["region"] == "eastus" and r["total"] is not None for r in rows)
    # the sizes priced since issue 38 are planned and undercut the Esv5 sizes; since its fifth pass the Ebsv6/Ebdsv6
    # sizes (their high disk caps on 4 vCPUs) lead, ahead of the Ebsv5/Dsv5 sizes that led before
    cheapest = {c["instance"] for c in plan["instance_search"]["cheapest"]}
    assert cheapest and not any(CAT.shapes[n].series == "Esv5" for n in cheapest)
    assert cheapest & {"Standard_E4bs_v6", "Standard_E4bds_v6"}
    assert not plan["instance_search"]["unpriced"]
    assert not [r for r in plan["instance_search"]["left_out"] if "Standard_E20s_v5" in r or "E104is" in r]


def test_the_2026_09_16_version_still_prices_two_regions_and_says_so():
    """The older version is left as it was read: disks in East US 2, VMs in East US; its totals name both."""
    old = load_catalog("azure", date(2026, 10, 1))
    p = predict(parse_layout("4x1T@premium-v1", "azure", old), parse_instance("Standard_E16s_v5", "azure", old),
                Workload(), old, with_curve=False)
    assert p.cost.region == "eastus2 (storage), eastus (compute)"
    assert any(w.startswith("Prices of two regions") and "eastus2" in w for w in p.warnings)
