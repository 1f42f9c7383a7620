"""Issue 38: a price for every shape and volume type, sourced, one region per cloud.

The figures quoted here are those of the copies the catalogs cite, read 2026-11-27:
- AWS-EBS-PRICELIST-COPY (us-east-1 Price List rates): io2 IOPS $0.065 up to 32,000, $0.0455 for 32,001-64,000,
  $0.03185 above, per IOPS-month (the catalog had 0.046 and 0.032);
- AZ-PRICE-API-COPY-2026-09-23 (Retail Prices API, eastus rows): Premium SSD LRS per disk-month, UltraSSD_LRS
  $0.11972 per GiB-month;
- GCP-PRICING-YML (a pricing.yml generated 2026-07-30 from the Cloud Billing Catalog SKUs): the us-central1 hourly
  price of every machine type, kept in tests/data/catalog/gcp_us_central1_machine_hourly.json (figures only);
  its M4 rows (read 2026-11-28) are quoted in GCP_M4_HOURLY below;
- OCI-PRICE-LIST-ROWS (OCI's price list API rows) and OCI-SHAPES (OCPUs, memory and NVMe of each bare-metal shape);
- AZ-ULTRA-EASTUS-COPY (infracost's managed_disk_test.golden, location eastus): an Ultra disk of 2,048 GiB with
  4,000 IOPS and 20 MB/s costs $245.19 + $198.56 + $6.99 a month;
- AZ-PV2-EASTUS-COPY (Retail Prices API records, eastus): Premium SSD v2 $0.000007 per IOPS-hour above 3,000 and
  $0.000055 per MB/s-hour above 125; AWS-EC2-PRICE-3P-C/-D/-E: r7g, m6a, x2idn, m7a, r6a (us-east-1);
- AZURE-VM-PRICE-3P-C (a Retail Prices API table, eastus rows, read 2026-11-28): every Easv5, Eadsv5, Ebsv5, Ebdsv5,
  Msv2, Mdsv2, Msv3 and Mdsv3 size and Standard_E104ids_v5, USD per hour (AZ_LISTED_C below).
- AZURE-VM-PRICE-3P-D (a table of Retail Prices API eastus Linux prices dated 2026-09-26, read 2026-11-28): every
  Dsv6 and Esv6 size, USD per hour (AZ_LISTED_D below);
- OCI-PRICE-A1-PAGE (Oracle's compute pricing page, read 2026-11-28): Ampere A1 $0.01 per OCPU-hour and $0.0015 per
  GB-hour above the free allowance;
- AZ-VM-PRICE-KARPENTER-2026-06-18 (karpenter-provider-azure's initial on-demand price table, generated 2026-06-18
  from the Retail Prices API, its eastus map, read 2026-11-28): every Edsv6, Ebsv6, Ebdsv6, Mbsv3 and Mbdsv3 size,
  USD per hour (AZ_LISTED_E below).

GAPS names what no copy read gave a price for (nothing since the fifth Azure pass), so that the completeness test fails
both when a priced entry loses its price and when a gap is filled without being struck from the list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog, load_catalog_file, raw_catalog
from blockfit.catalog.models import Catalog, Shape, VolumeType
from blockfit.catalog.toml_out import dumps
from blockfit.model import predict
from blockfit.model.compute import compute_cost
from blockfit.model.cost import region_name
from blockfit.plan import make_plan
from blockfit.plan.shapes import ANY, ShapeQuery, plan_shapes
from blockfit.schema import Requirements, Workload
from blockfit.specs import parse_instance, parse_layout

CLOUDS = ("aws", "azure", "gcp", "oci")
CATS = {c: load_catalog(c) for c in CLOUDS}

# The series (AWS: the family before the dot) whose sizes no copy read priced, and the volume types likewise.
GAPS: dict[str, dict[str, set[str]]] = {
    "aws": {"shapes": set(),
            "volume_types": set()},
    "azure": {"shapes": set(),
              "volume_types": set()},
    "gcp": {"shapes": set(),
            "volume_types": set()},
    "oci": {"shapes": set(),
            "volume_types": set()},
}


def series_of(cat: Catalog, shape: Shape) -> str:
    """The group a gap is named by: AWS's family, OCI's shape name, the series elsewhere."""
    if cat.cloud == "aws":
        return shape.name.split(".")[0]
    if cat.cloud == "oci":
        return shape.name
    return shape.series or shape.name


def shape_priced(cat: Catalog, shape: Shape) -> bool:
    return shape.name in cat.compute_prices or (cat.cloud == "gcp" and shape.series in cat.compute_prices)


def volume_priced(vt: VolumeType) -> bool:
    return bool(vt.price_tiers) or vt.price_per_gb is not None or vt.price_per_vpu_gb is not None


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_shape_and_volume_type_is_priced_or_a_named_gap(cloud):
    cat = CATS[cloud]
    unpriced_shapes = {series_of(cat, s) for s in cat.shapes.values() if not shape_priced(cat, s)}
    unpriced_types = {k for k, vt in cat.volume_types.items() if not volume_priced(vt)}
    assert unpriced_shapes == GAPS[cloud]["shapes"]
    assert unpriced_types == GAPS[cloud]["volume_types"]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_price_of_a_cloud_names_one_region(cloud):
    cat = CATS[cloud]
    regions = {region_name(vt.price_region) for vt in cat.volume_types.values() if volume_priced(vt)}
    regions |= {region_name(p.region) for p in cat.compute_prices.values()}
    assert len(regions) == 1, regions


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_price_cites_a_dated_source(cloud):
    cat = CATS[cloud]
    for key, vt in cat.volume_types.items():
        if volume_priced(vt):
            for field in ("price_per_gb", "price_tiers", "price_per_vpu_gb", "price_iops_tiers", "price_per_iops",
                          "price_per_tput"):
                if getattr(vt, field):
                    src = cat.source(vt.source_of(field))
                    assert src.url.startswith("https://") and src.date.year >= 2024, (key, field, src.id)
    for name, price in cat.compute_prices.items():
        src = cat.source(price.source_of("per_hour" if price.per_hour is not None else "per_ocpu_hour"))
        assert src.url.startswith("https://") and src.date.year >= 2024, (name, src.id)


# ---- AWS: a sample checked against AWS-EBS-PRICELIST-COPY ----

IO2_TIERS_US_EAST_1 = [(32000, 0.065), (64000, 0.0455), (1e12, 0.03185)]


def test_aws_io2_tiers_are_the_price_list_rates_to_the_cent():
    vt = CATS["aws"].volume_types["io2"]
    assert [(t["upto"], t["price"]) for t in vt.price_iops_tiers] == IO2_TIERS_US_EAST_1
    assert vt.source_of("price_iops_tiers") == "AWS-EBS-PRICELIST-COPY" and vt.price_region == "us-east-1"


@pytest.mark.parametrize("iops", [100, 32000, 32001, 50000, 64000, 64001, 256000])
def test_aws_io2_cost_bills_each_tier_at_its_rate(iops):
    cat = CATS["aws"]
    p = predict(parse_layout(f"1x1T@io2:{iops}", "aws", cat), parse_instance("r6i.32xlarge", "aws", cat),
                Workload(), cat, with_curve=False)
    expected, below = 1024 * 0.125, 0
    for upto, rate in IO2_TIERS_US_EAST_1:
        expected += max(0, min(iops, upto) - below) * rate
        below = int(upto)
        if iops <= upto:
            break
    assert p.cost.storage == pytest.approx(expected, abs=0.005)


# ---- Azure: a sample checked against AZ-PRICE-API-COPY-2026-09-23 (eastus) and AZ-ULTRA-EASTUS-COPY ----

def azure(spec: str, vm: str = "Standard_E104is_v5"):
    cat = CATS["azure"]
    return predict(parse_layout(spec, "azure", cat), parse_instance(vm, "azure", cat), Workload(), cat,
                   with_curve=False)


@pytest.mark.parametrize("tier,price", [("P4", 5.2795), ("P10", 19.71), ("P30", 135.17), ("P80", 3604.11)])
def test_azure_premium_tiers_are_the_east_us_list_prices(tier, price):
    vt = CATS["azure"].volume_types["premium-v1"]
    assert {t["tier"]: t["price"] for t in vt.price_tiers}[tier] == price and vt.price_region == "eastus"


def test_azure_ultra_cost_reproduces_the_east_us_copy_to_the_cent():
    """2,048 GiB, 4,000 IOPS, 20 MB/s: $245.19 + $198.56 + $6.99 a month (no free IOPS or MB/s on Ultra)."""
    p = azure("1x2048G@ultra:4000:20")
    items = [round(i.monthly or 0, 2) for i in p.cost.items]
    assert items == [245.19, 198.56, 6.99]
    assert p.cost.storage == pytest.approx(450.74, abs=0.005)
    assert p.cost.region == "eastus" and not [w for w in p.warnings if "unknown" in w or "two regions" in w]
    assert {i.source.id for i in p.cost.items if i.source} == {"AZ-PRICE-API-COPY-2026-09-23", "AZ-ULTRA-EASTUS-COPY"}


# AZ-PV2-EASTUS-COPY (Retail Prices API records, eastus): USD per hour above the free 3,000 IOPS and 125 MB/s;
# capacity from AZ-PRICE-API-COPY-2026-09-23 ($0.000111 per GiB-hour as 0.08103 per GiB-month)
PV2_EASTUS_HOURLY = {"iops": 0.000007, "mbps": 0.000055}


@pytest.mark.parametrize("gib,iops,mbps", [(1024, 20000, 500), (160, 80000, 2000), (64, 3000, 125), (512, 3001, 126)])
def test_azure_premium_v2_bills_iops_and_mbps_above_the_free_baseline_at_the_east_us_meters(gib, iops, mbps):
    p = azure(f"1x{gib}G@premium-v2:{iops}:{mbps}")
    expected = [gib * 0.08103, (iops - 3000) * PV2_EASTUS_HOURLY["iops"] * 730,
                (mbps - 125) * PV2_EASTUS_HOURLY["mbps"] * 730]
    assert [i.monthly for i in p.cost.items] == pytest.approx(expected, abs=0.005)
    assert p.cost.storage == pytest.approx(sum(expected), abs=0.01)
    assert p.cost.region == "eastus" and not [w for w in p.warnings if "unknown" in w or "two regions" in w]
    assert {i.source.id for i in p.cost.items if i.source} == {"AZ-PRICE-API-COPY-2026-09-23", "AZ-PV2-EASTUS-COPY"}


@pytest.mark.parametrize("metal", ["m6i.metal", "r6i.metal"])
def test_aws_metal_is_priced_as_the_same_vcpu_size_of_its_family(metal):
    """The rule the catalog states for metal sizes, checked against the family's listed sizes."""
    cat = CATS["aws"]
    family = metal.split(".")[0]
    same = [s for s in cat.shapes.values() if s.name.startswith(family + ".") and s.name != metal
            and s.vcpus == cat.shapes[metal].vcpus]
    assert same and all(cat.compute_prices[s.name].per_hour == cat.compute_prices[metal].per_hour for s in same)
    assert "rule" in (cat.compute_prices[metal].note or "")


# ---- GCP: the per-vCPU and per-GB rule checked against every machine type GCP-PRICING-YML lists ----

GCP_HOURLY: dict[str, list[float]] = {k: v for k, v in json.loads(
    (Path(__file__).parents[1] / "data" / "catalog" / "gcp_us_central1_machine_hourly.json").read_text()).items()
    if not k.startswith("_")}
GCP_RULE_SERIES = ["c3", "c3d", "c4", "c4a", "c4d", "e2", "m3", "n4", "n2", "n2d"]


@pytest.mark.parametrize("series", GCP_RULE_SERIES)
def test_gcp_series_rate_reproduces_every_listed_machine_type(series):
    price = CATS["gcp"].compute_prices[series]
    listed = {k: v for k, v in GCP_HOURLY.items() if k.split("-")[0] == series}
    assert len(listed) >= 5
    for name, (vcpus, ram, hour) in listed.items():
        assert vcpus * price.per_ocpu_hour + ram * price.per_gb_hour == pytest.approx(hour, abs=1e-6), name
    assert price.region == "us-central1"


@pytest.mark.parametrize("series", GCP_RULE_SERIES)
def test_gcp_every_catalog_size_costs_the_listed_price(series):
    """Each predefined size the catalog lists (series-family-vCPUs) is billed at the copy's price, with its memory."""
    cat = CATS["gcp"]
    shape = cat.shapes[series]
    checked = 0
    for family, mf in shape.machine_families.items():
        for vcpus in mf.vcpus:
            name = f"{series}-{family}-{vcpus}"
            if name not in GCP_HOURLY:
                continue
            _, ram, hour = GCP_HOURLY[name]
            cost = compute_cost(cat, name, None)
            assert cost.memory_gb == pytest.approx(ram), name
            assert cost.per_hour == pytest.approx(hour, abs=1e-6), name
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("gb,iops,storage,iops_cost", [(1000, 350_000, 125.00, 11_200.00),
                                                    (128, 20_000, 16.00, 640.00)])
def test_gcp_hyperdisk_extreme_reproduces_the_us_central1_copy(gb, iops, storage, iops_cost):
    """GCP-HDX-PRICE-COPY (infracost's compute_disk_test.golden, region us-central1): every provisioned IOPS billed."""
    cat = CATS["gcp"]
    p = predict(parse_layout(f"1x{gb}G@hyperdisk-extreme:{iops}", "gcp", cat),
                parse_instance("c3-standard-176", "gcp", cat), Workload(), cat, with_curve=False)
    assert [round(i.monthly or 0, 2) for i in p.cost.items] == [storage, iops_cost]
    assert p.cost.region == "us-central1" and {i.source.id for i in p.cost.items if i.source} == {"GCP-HDX-PRICE-COPY"}


@pytest.mark.parametrize("series", ["c4", "m4"])
def test_gcp_hyperdisk_only_series_plan_on_the_cheaper_priced_hyperdisk(series):
    """Before the second pass no type c4 or m4 attaches had a price. Both Hyperdisk types are priced since the third:
    the plan recommends Hyperdisk Balanced, cheaper at 20,000 IOPS than Extreme (2 TiB x $0.125 + 20,000 x $0.032)."""
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape=series, target_iops=20_000)
    plan = make_plan(req, CATS["gcp"])
    # the series' per-VM Hyperdisk cap is not in the catalog: met only with it not applied, so the priced layout is
    # the infeasible plan's best, flagged (it was "feasible", the unknown cap taken as none)
    assert not plan.feasible and plan.infeasible is not None and "instance cap unknown" in plan.infeasible.reason
    first = plan.infeasible.best
    assert first is not None and not first.cap_known
    assert first.layout_detail.volume.type == "hyperdisk-balanced" and first.max_iops >= 20_000
    assert first.cost.storage is not None and first.cost.storage < 2048 * 0.125 + 20_000 * 0.032


# GCP-HDB-PRICE-3P-A/-B, us-central1, USD a month: $0.08 per GiB, $0.005 per IOPS above the free 3,000 and $0.04 per
# MiB/s above the free 140 (GCP-HDB-BASELINE). The copies' own formula: GiB x 0.08 + (IOPS - 3000)+ x 0.005 + ...
HDB_MONTHLY = {"gib": 0.08, "iops": 0.005, "mibps": 0.04}


@pytest.mark.parametrize("gib,iops,mibps", [(1024, 20_000, 600), (4096, 3000, 140), (100, 3001, 141),
                                            (2048, 160_000, 2400)])
def test_gcp_hyperdisk_balanced_bills_capacity_and_what_is_provisioned_above_the_free_baseline(gib, iops, mibps):
    """Before: storage None (unpriced). Now each of the three meters, the baseline free, to the cent."""
    p = predict(parse_layout(f"1x{gib}G@hyperdisk-balanced:{iops}:{mibps}", "gcp", CATS["gcp"]),
                parse_instance("c3-standard-176", "gcp", CATS["gcp"]), Workload(), CATS["gcp"], with_curve=False)
    expected = [gib * HDB_MONTHLY["gib"], max(0, iops - 3000) * HDB_MONTHLY["iops"],
                max(0, mibps - 140) * HDB_MONTHLY["mibps"]]
    assert [i.monthly for i in p.cost.items] == pytest.approx(expected, abs=0.005)
    assert p.cost.storage == pytest.approx(sum(expected), abs=0.01)
    assert p.cost.region == "us-central1" and not [w for w in p.warnings if "unknown" in w or "two regions" in w]
    assert {i.source.id for i in p.cost.items if i.source} == {"GCP-HDB-PRICE-3P-A", "GCP-HDB-PRICE-3P-B"}


def test_gcp_c3_highmem_22_plan_considers_hyperdisk_at_its_price():
    """Issue 38's acceptance line: c3-highmem-22 at 40,000 IOPS is past its Persistent Disk cap (25,000); the plan
    now recommends a priced Hyperdisk Balanced layout instead of exiting 3 or planning it with its cost unknown."""
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape="c3-highmem-22", target_iops=40_000)
    plan = make_plan(req, CATS["gcp"])
    # c3's per-VM Hyperdisk cap is not in the catalog: the priced layout is the infeasible plan's best, flagged
    assert not plan.feasible and plan.infeasible is not None and "instance cap unknown" in plan.infeasible.reason
    first = plan.infeasible.best
    assert first is not None and not first.cap_known
    assert first.layout_detail.volume.type == "hyperdisk-balanced" and first.max_iops >= 40_000
    assert first.cost.storage is not None and first.cost.total is not None and first.price_known
    assert not any("no price" in n for n in plan.notes)


# GCP-PRICING-YML (read 2026-11-28), us-central1 USD per hour: the M4 machine types read, as [vCPUs, GB, hour]
GCP_M4_HOURLY = {"m4-hypermem-16": (16, 248, 1.4258144), "m4-hypermem-32": (32, 496, 2.8516288),
                 "m4-megamem-112": (112, 1488, 8.8473408), "m4-megamem-224": (224, 2976, 17.6946816),
                 "m4-ultramem-56": (56, 1488, 7.8237504), "m4-ultramem-112": (112, 2976, 15.6475008)}
M4_ULTRAMEM_224_HOURLY = 41.46412736   # its own SKUs ("M4Ultramem224 Instance Core/Ram"), not the M4 rate


@pytest.mark.parametrize("name", sorted(GCP_M4_HOURLY))
def test_gcp_m4_rate_reproduces_every_m4_machine_type_read(name):
    """Before the third pass no m4 machine type had a price; now the series rate gives each listed figure."""
    cat = CATS["gcp"]
    vcpus, ram, hour = GCP_M4_HOURLY[name]
    price = cat.compute_prices["m4"]
    assert vcpus * price.per_ocpu_hour + ram * price.per_gb_hour == pytest.approx(hour, abs=1e-9)
    cost = compute_cost(cat, name, None)
    assert (cost.vcpus, cost.memory_gb) == (vcpus, ram) and cost.ocpus is None
    assert cost.per_hour == pytest.approx(hour, abs=1e-6)
    assert cost.region == "us-central1" and cost.source and cost.source.id == "GCP-PRICING-YML"
    assert "rule" in (price.note or "")


def test_gcp_m4_ultramem_224_costs_its_own_listed_price_not_the_series_rate():
    cat = CATS["gcp"]
    rate = cat.compute_prices["m4"]
    by_rule = 224 * rate.per_ocpu_hour + 5952 * rate.per_gb_hour
    cost = compute_cost(cat, "m4-ultramem-224", None)
    assert cost.per_hour == M4_ULTRAMEM_224_HOURLY and cost.monthly == round(M4_ULTRAMEM_224_HOURLY * 730, 2)
    assert by_rule < 0.8 * M4_ULTRAMEM_224_HOURLY   # the rule would understate it by a quarter


def test_a_machine_type_price_must_name_a_listed_machine_type(tmp_path):
    """A per-machine-type entry is allowed only for a machine type the catalog lists (no typo silently unused)."""
    raw = raw_catalog(CATS["gcp"])
    raw["compute_prices"]["m4-ultramem-448"] = raw["compute_prices"]["m4-ultramem-224"]
    (tmp_path / "bad.toml").write_text(dumps(raw, "bad"))
    with pytest.raises(ValueError, match="compute price for unknown shape 'm4-ultramem-448'"):
        load_catalog_file(str(tmp_path / "bad.toml"))


# ---- OCI: bare-metal shapes by OCI's rule, from the price-list rows and the shapes page ----

# OCI-SHAPES: OCPUs, memory GB, NVMe TB; OCI-PRICE-LIST-ROWS: USD per OCPU-hour, GB-hour, NVMe TB-hour
OCI_BM = {
    "BM.Standard.E5.192": (192, 2304, 0, 0.03, 0.002, 0),          # B97384/B97385
    "BM.Standard.E4.128": (128, 2048, 0, 0.025, 0.0015, 0),        # B93113/B93114
    "BM.Standard3.64": (64, 1024, 0, 0.04, 0.0015, 0),             # B94176/B94177
    "BM.DenseIO.E4.128": (128, 2048, 54.4, 0.025, 0.0015, 0.0612),  # B93121/B93122/B93123
    "BM.Optimized3.36": (36, 512, 0, 0.054, 0.0015, 0),            # B93311/B93312
    "BM.Standard.E3.128": (128, 2048, 0, 0.025, 0.0015, 0),        # B92306/B92307
    "BM.Standard2.52": (52, 768, 0, 0.0638, 0, 0),                 # B88513, memory included
    "BM.Standard.E2.64": (64, 512, 0, 0.03, 0, 0),                 # B90425, memory included
    "BM.DenseIO.E5.128": (128, 1536, 81.6, 0.03, 0.002, 0.0612),    # B98202/B98203/B98204
    "BM.Standard.E6.256": (256, 3072, 0, 0.03, 0.002, 0),          # B111129/B111130
}
# the flexible VM of the same processor, whose per-OCPU and per-GB price the catalog already had or now has
OCI_SAME_RATES = {"BM.Standard.E5.192": "VM.Standard.E5.Flex", "BM.Standard.E4.128": "VM.Standard.E4.Flex",
                  "BM.Standard3.64": "VM.Standard3.Flex", "BM.Optimized3.36": "VM.Optimized3.Flex",
                  "BM.Standard.E3.128": "VM.Standard.E3.Flex", "BM.Standard.E6.256": "VM.Standard.E6.Flex"}


@pytest.mark.parametrize("shape", sorted(OCI_BM))
def test_oci_bare_metal_is_priced_by_the_per_ocpu_rule(shape):
    cat = CATS["oci"]
    ocpus, mem, nvme, per_ocpu, per_gb, per_tb = OCI_BM[shape]
    assert cat.shapes[shape].ocpus == ocpus
    price = cat.compute_prices[shape]
    assert price.per_hour == pytest.approx(ocpus * per_ocpu + mem * per_gb + nvme * per_tb, abs=1e-9)
    assert "rule" in (price.note or "") and price.source_of("per_hour") == "OCI-PRICE-LIST-ROWS"
    cost = compute_cost(cat, shape, None)
    assert cost.monthly == pytest.approx(round(price.per_hour * 730, 2))


@pytest.mark.parametrize("shape", sorted(OCI_SAME_RATES))
def test_oci_bare_metal_costs_what_the_same_flex_rates_give(shape):
    """The bare-metal price equals the flexible VM's OCPU and memory rates applied to the whole machine."""
    cat = CATS["oci"]
    ocpus, mem, *_ = OCI_BM[shape]
    flex = cat.compute_prices[OCI_SAME_RATES[shape]]
    assert cat.compute_prices[shape].per_hour == pytest.approx(ocpus * flex.per_ocpu_hour + mem * flex.per_gb_hour)


@pytest.mark.parametrize("shape,ocpus,memory,nvme_tb,per_ocpu,per_gb", [
    ("VM.DenseIO.E4.Flex", 8, 128, 6.8, 0.025, 0.0015),      # B93121/B93122, NVMe B93123
    ("VM.DenseIO.E4.Flex", 32, 512, 27.2, 0.025, 0.0015),
    ("VM.DenseIO.E5.Flex", 24, 288, 20.4, 0.03, 0.002),      # B98202/B98203, NVMe B98204
    ("VM.DenseIO.E5.Flex", 48, 576, 40.8, 0.03, 0.002),
])
def test_oci_dense_io_flex_bills_its_nvme_with_its_ocpus(shape, ocpus, memory, nvme_tb, per_ocpu, per_gb):
    cost = compute_cost(CATS["oci"], shape, ocpus)
    assert cost.memory_gb == memory
    assert cost.per_hour == pytest.approx(ocpus * per_ocpu + memory * per_gb + nvme_tb * 0.0612, abs=1e-6)


A1_PAID = {"ocpu": 0.01, "gb": 0.0015}   # OCI-PRICE-A1-PAGE, USD per hour above the free allowance


@pytest.mark.parametrize("ocpus,memory", [(1, None), (4, 24), (16, 256), (76, 472)])
def test_oci_a1_flex_costs_the_paid_rate_per_ocpu_and_gb(ocpus, memory):
    """Before: unknown (the price-list rows read $0, the free tier). Now Oracle's paid A1 rate, allowance not taken off
    (4 OCPUs and 24 GB, the whole free allowance, cost $55.48 a month)."""
    cost = compute_cost(CATS["oci"], "VM.Standard.A1.Flex", ocpus, memory_gb=memory)
    gb = memory if memory is not None else ocpus   # the minimum, 1 GB per OCPU, when none is asked for
    assert cost.memory_gb == gb
    assert cost.per_hour == pytest.approx(ocpus * A1_PAID["ocpu"] + gb * A1_PAID["gb"], abs=1e-9)
    assert cost.monthly == pytest.approx(round(cost.per_hour * 730, 2)) and cost.monthly > 0
    assert cost.source is not None and cost.source.id == "OCI-PRICE-A1-PAGE"
    assert cost.source.url.startswith("https://www.oracle.com/") and cost.region == "all commercial regions"


def test_oci_a1_is_cheaper_per_ocpu_and_gb_than_every_other_priced_flex_shape():
    """A sanity check on the figure's order: Ampere A1 is OCI's cheapest listed OCPU (A2 $0.014, E4 $0.025)."""
    cat = CATS["oci"]
    a1 = cat.compute_prices["VM.Standard.A1.Flex"]
    flex = [p for n, p in cat.compute_prices.items() if n.endswith(".Flex") and n != "VM.Standard.A1.Flex"
            and p.per_ocpu_hour is not None]
    assert flex and all(a1.per_ocpu_hour < p.per_ocpu_hour for p in flex)
    assert all(a1.per_gb_hour <= (p.per_gb_hour or 0) for p in flex if p.per_gb_hour)


# ---- AWS: the per-vCPU rule checked against every size the copies list ----

# AWS-EC2-PRICE-3P-B (m7i, r7i, c7i) and AWS-EC2-PRICE-GRAVITON-3P (m7g): us-east-1 on-demand Linux, USD per hour
AWS_LISTED = {
    "m7i": {"xlarge": 0.2016, "2xlarge": 0.4032, "4xlarge": 0.8064, "8xlarge": 1.6128, "12xlarge": 2.4192,
            "16xlarge": 3.2256, "24xlarge": 4.8384, "48xlarge": 9.6768},
    "r7i": {"xlarge": 0.2646, "2xlarge": 0.5292, "4xlarge": 1.0584, "8xlarge": 2.1168, "12xlarge": 3.1752,
            "16xlarge": 4.2336, "24xlarge": 6.3504, "48xlarge": 12.7008},
    "c7i": {"xlarge": 0.1785, "2xlarge": 0.357, "4xlarge": 0.714, "8xlarge": 1.428, "12xlarge": 2.142,
            "16xlarge": 2.856, "24xlarge": 4.284, "48xlarge": 8.568},
    "m7g": {"medium": 0.0408, "large": 0.0816, "xlarge": 0.1632, "2xlarge": 0.3264, "4xlarge": 0.6528,
            "8xlarge": 1.3056, "12xlarge": 1.9584, "16xlarge": 2.6112},
}


@pytest.mark.parametrize("family", sorted(AWS_LISTED))
def test_aws_family_price_is_linear_in_vcpus_and_matches_every_listed_size(family):
    cat = CATS["aws"]
    sizes = {s.name: s for s in cat.shapes.values() if s.name.split(".")[0] == family}
    rates = {name: cat.compute_prices[name].per_hour / s.vcpus for name, s in sizes.items()}
    assert len(sizes) >= 8 and max(rates.values()) == pytest.approx(min(rates.values()), rel=1e-9)
    for size, hour in AWS_LISTED[family].items():
        assert cat.compute_prices[f"{family}.{size}"].per_hour == pytest.approx(hour, abs=1e-9)


# Second pass: AWS-EC2-PRICE-3P-C (r7g, m6a, x2idn; checked against the us-east-1 offer file 20260924211011),
# AWS-EC2-PRICE-3P-D (m7a), AWS-EC2-PRICE-3P-E (r6a) and -F (x2iedn): every size each copy lists, USD per hour
AWS_LISTED_2 = {
    "r7g": {"medium": 0.0536, "large": 0.1071, "xlarge": 0.2142, "2xlarge": 0.4284, "4xlarge": 0.8568,
            "8xlarge": 1.7136, "12xlarge": 2.5704, "16xlarge": 3.4272},
    "m6a": {"large": 0.0864, "xlarge": 0.1728, "2xlarge": 0.3456, "4xlarge": 0.6912},
    "x2idn": {"16xlarge": 6.669},
    "m7a": {"large": 0.11592, "xlarge": 0.23184, "2xlarge": 0.46368},
    "r6a": {"large": 0.1134, "xlarge": 0.2268, "2xlarge": 0.4536, "4xlarge": 0.9072, "8xlarge": 1.8144},
    "x2iedn": {"xlarge": 0.83375, "2xlarge": 1.6675, "4xlarge": 3.335, "8xlarge": 6.67, "16xlarge": 13.34,
               "24xlarge": 20.01, "32xlarge": 26.68},   # AWS-EC2-PRICE-3P-F
}


@pytest.mark.parametrize("family", sorted(AWS_LISTED_2))
def test_aws_second_pass_family_is_linear_in_vcpus_and_matches_every_listed_size(family):
    """Every size is priced, each listed size at its listed figure, the rest at the listed sizes' one rate per vCPU
    (to the list's four decimals: r7g.medium is 0.0536 where the rule gives 0.05355); metal as its same-vCPU size."""
    cat = CATS["aws"]
    sizes = {s.name: s for s in cat.shapes.values() if s.name.split(".")[0] == family}
    listed = AWS_LISTED_2[family]
    biggest = max(listed, key=lambda size: sizes[f"{family}.{size}"].vcpus)   # the most digits of the rate
    rate = listed[biggest] / sizes[f"{family}.{biggest}"].vcpus
    assert len(sizes) >= 4
    for name, shape in sizes.items():
        price = cat.compute_prices[name]
        size = name.split(".", 1)[1]
        assert price.region == "us-east-1" and price.source_of("per_hour").startswith("AWS-EC2-PRICE-3P-")
        if size in listed:
            assert price.per_hour == pytest.approx(listed[size], abs=1e-9), name
        assert price.per_hour == pytest.approx(shape.vcpus * rate, abs=0.000051), name   # half a 4th decimal
        if not size.startswith("metal") and size not in listed:
            assert "rule" in (price.note or ""), name


def test_aws_r5b_has_every_size_with_its_ebs_limits():
    """AWS-EBSOPT-R5B: the r5b rows of the EBS-optimized table (the maximum); the sizes that burst to it carry their
    baseline from the instance-types guide's EBS specifications (AWS-GUIDE-2024)."""
    cat = CATS["aws"]
    want = {"large": 43_333, "xlarge": 43_333, "2xlarge": 43_333, "4xlarge": 43_333, "8xlarge": 86_667,
            "12xlarge": 130_000, "16xlarge": 173_333, "24xlarge": 260_000, "metal": 260_000}
    baseline = {"large": (5_417, 156.25), "xlarge": (10_833, 312.5), "2xlarge": (21_667, 625)}
    for size, iops in want.items():
        shape = cat.shapes[f"r5b.{size}"]
        assert (shape.iops_burst or shape.iops) == iops, size
        assert (shape.iops, shape.mbps) == baseline.get(size, (iops, shape.mbps)), size
        assert not shape.unknown, size
        if size in baseline:
            assert cat.cite(shape, "iops").id == "AWS-GUIDE-2024" and shape.mbps_burst == 1250


# AWS-EC2-SKYPILOT (the Price List's us-east-1 on-demand Linux rows, as SkyPilot's catalog copies them): a sample of
# each family it priced, metal sizes included, USD per hour as the copy prints them
AWS_SKYPILOT = {
    "m6idn": {"32xlarge": 10.18368},
    "m6in": {"32xlarge": 8.91072},
    "m8g": {"2xlarge": 0.35904},
    "x8g": {"48xlarge": 18.7584},
    "r8i": {"96xlarge": 26.67264},
    "r5b": {"large": 0.149, "4xlarge": 1.192, "24xlarge": 7.152, "metal": 7.152},
    "r6idn": {"large": 0.19539, "8xlarge": 3.12624, "32xlarge": 12.50496, "metal": 12.50496},
    "r7a": {"medium": 0.07608, "large": 0.15215, "12xlarge": 3.6516, "metal-48xl": 14.6064},
    "r7iz": {"large": 0.186, "16xlarge": 5.952, "metal-16xl": 5.952, "metal-32xl": 11.904},
    "r8g": {"medium": 0.05891, "large": 0.11782, "16xlarge": 3.77024, "metal-48xl": 11.31072},
}
# Sizes priced from older copies that the SkyPilot copy's us-east-1 rows list at the same figure (what makes it a
# us-east-1 copy)
AWS_SKYPILOT_AGREES = {"m6i.large": 0.096, "m6i.4xlarge": 0.768, "m6i.8xlarge": 1.536, "m6i.32xlarge": 6.144,
                       "r7i.xlarge": 0.2646, "r7g.12xlarge": 2.5704, "m7a.2xlarge": 0.46368}


@pytest.mark.parametrize("family", sorted(AWS_SKYPILOT))
def test_aws_family_priced_from_the_skypilot_copy_costs_its_us_east_1_rows(family):
    cat = CATS["aws"]
    sizes = [s for s in cat.shapes.values() if s.name.split(".")[0] == family]
    assert sizes
    for shape in sizes:
        price = cat.compute_prices[shape.name]
        assert price.region == "us-east-1" and price.source_of("per_hour") == "AWS-EC2-SKYPILOT", shape.name
        assert "rule" not in (price.note or ""), shape.name   # every size, metal too, is a listed row
    for size, hour in AWS_SKYPILOT[family].items():
        assert cat.compute_prices[f"{family}.{size}"].per_hour == pytest.approx(hour, abs=1e-9), size
    monthly = compute_cost(cat, sizes[0].name, sizes[0].vcpus).monthly
    assert monthly == pytest.approx(cat.compute_prices[sizes[0].name].per_hour * 730, abs=0.01)


@pytest.mark.parametrize("name", sorted(AWS_SKYPILOT_AGREES))
def test_aws_skypilot_copy_agrees_with_the_prices_read_before(name):
    """The source records the agreement (each figure in its note) and the older entries still hold that figure."""
    cat = CATS["aws"]
    src = cat.source("AWS-EC2-SKYPILOT")
    assert src.url.startswith("https://github.com/skypilot-org/skypilot-catalog/blob/") and "us-east-1" in src.note
    assert f"{AWS_SKYPILOT_AGREES[name]}" in src.note.replace(",", "")
    assert cat.compute_prices[name].per_hour == pytest.approx(AWS_SKYPILOT_AGREES[name], abs=1e-9)


def test_aws_plan_ranks_every_shape_none_left_out_for_want_of_a_price():
    """3 TiB, 40,000 IOPS, 1,000 MB/s on any instance: before, 52 shapes were not ranked for want of a price."""
    req = Requirements(cloud="aws", capacity_gb=3072, instance_shape=ANY, target_iops=40_000, target_mbps=1000)
    plan = plan_shapes(req, CATS["aws"], ShapeQuery(ANY))
    assert plan.feasible and plan.instance_search is not None and not plan.instance_search.unpriced
    assert plan.candidates[0].cost.compute is not None and not any("want of a compute price" in n for n in plan.notes)


# ---- Azure VM sizes: AZURE-VM-PRICE-3P-B's East US ladders and AZ-VM-EASTUS-GOLDEN's one size per series ----

AZ_LADDERS = {   # vCPUs -> USD per hour, East US, as AZURE-VM-PRICE-3P-B lists them
    "Dsv5": {4: 0.192, 8: 0.384, 16: 0.768, 32: 1.536, 48: 2.304, 64: 3.072, 96: 4.608},
    "Ddsv5": {4: 0.226, 8: 0.452, 16: 0.904, 32: 1.808, 48: 2.712, 64: 3.616, 96: 5.424},
    "Edsv5": {4: 0.288, 8: 0.576, 16: 1.152, 32: 2.304, 48: 3.456, 64: 4.608, 96: 6.912},
}
AZ_GOLDEN_MONTHLY = {"Standard_D96s_v5": 3363.84, "Standard_D96ds_v5": 3959.52, "Standard_E96ds_v5": 5045.76,
                     "Standard_E96s_v5": 4415.04, "Standard_E96bds_v5": 5851.68, "Standard_M96ds_2_v3": 9657.90}


@pytest.mark.parametrize("series", sorted(AZ_LADDERS))
def test_azure_series_rate_matches_every_listed_size(series):
    """Every size priced from AZURE-VM-PRICE-3P-B (listed or by the rule) is at one rate per vCPU; the isolated
    E104ids_v5, priced from AZURE-VM-PRICE-3P-C, is not (see the isolated-size test below)."""
    cat = CATS["azure"]
    sizes = [s for s in cat.shapes.values() if s.series == series and s.name in cat.compute_prices
             and cat.compute_prices[s.name].source_of("per_hour") == "AZURE-VM-PRICE-3P-B"]
    by_vcpus = {s.vcpus: cat.compute_prices[s.name].per_hour for s in sizes}
    for vcpus, hour in AZ_LADDERS[series].items():
        assert by_vcpus[vcpus] == pytest.approx(hour, abs=1e-9), (series, vcpus)
    rates = {h / v for v, h in by_vcpus.items() if v is not None}
    assert max(rates) == pytest.approx(min(rates), rel=1e-9)


@pytest.mark.parametrize("shape,monthly", sorted(AZ_GOLDEN_MONTHLY.items()))
def test_azure_sizes_cost_what_the_east_us_copy_bills_for_730_hours(shape, monthly):
    cost = compute_cost(CATS["azure"], shape, None)
    assert cost.monthly == pytest.approx(monthly, abs=0.005) and cost.region == "eastus"


# Third pass: AZURE-VM-PRICE-3P-C's eastus Price column (Linux pay-as-you-go, USD per hour), every size it lists of the
# series the catalog had left unpriced; each catalog entry is the listed figure, no rule.
AZ_LISTED_C = {
    "Easv5": {"Standard_E2as_v5": 0.113, "Standard_E4as_v5": 0.226, "Standard_E8as_v5": 0.452,
              "Standard_E16as_v5": 0.904, "Standard_E20as_v5": 1.13, "Standard_E32as_v5": 1.808,
              "Standard_E48as_v5": 2.712, "Standard_E64as_v5": 3.616, "Standard_E112ias_v5": 6.961},
    "Eadsv5": {"Standard_E2ads_v5": 0.131, "Standard_E4ads_v5": 0.262, "Standard_E8ads_v5": 0.524,
               "Standard_E16ads_v5": 1.048, "Standard_E20ads_v5": 1.31, "Standard_E32ads_v5": 2.096,
               "Standard_E48ads_v5": 3.144, "Standard_E64ads_v5": 4.192, "Standard_E112iads_v5": 8.07},
    "Ebsv5": {"Standard_E2bs_v5": 0.149, "Standard_E4bs_v5": 0.298, "Standard_E8bs_v5": 0.596,
              "Standard_E16bs_v5": 1.192, "Standard_E32bs_v5": 2.384, "Standard_E48bs_v5": 3.576,
              "Standard_E64bs_v5": 4.768, "Standard_E112ibs_v5": 9.178},
    "Ebdsv5": {"Standard_E2bds_v5": 0.167, "Standard_E4bds_v5": 0.334, "Standard_E8bds_v5": 0.668,
               "Standard_E16bds_v5": 1.336, "Standard_E32bds_v5": 2.672, "Standard_E48bds_v5": 4.008,
               "Standard_E64bds_v5": 5.344, "Standard_E112ibds_v5": 10.287},
    "Edsv5": {"Standard_E104ids_v5": 8.237},
    "Msv2": {"Standard_M32ms_v2": 6.041, "Standard_M64ms_v2": 10.13, "Standard_M128s_v2": 12.919,
             "Standard_M128ms_v2": 26.269, "Standard_M192is_v2": 15.611, "Standard_M192ims_v2": 31.643},
    "Mdsv2": {"Standard_M32dms_v2": 6.146, "Standard_M64dms_v2": 10.34, "Standard_M128ds_v2": 13.34,
              "Standard_M128dms_v2": 26.69, "Standard_M192ids_v2": 16.032, "Standard_M192idms_v2": 32.064},
    "Msv3": {"Standard_M12s_v3": 1.54, "Standard_M24s_v3": 3.07, "Standard_M48s_1_v3": 6.23,
             "Standard_M96s_1_v3": 9.34, "Standard_M176s_3_v3": 17.88, "Standard_M176s_4_v3": 24.91},
    "Mdsv3": {"Standard_M12ds_v3": 1.63, "Standard_M24ds_v3": 3.26, "Standard_M48ds_1_v3": 6.62,
              "Standard_M96ds_1_v3": 9.93, "Standard_M176ds_3_v3": 19.0, "Standard_M176ds_4_v3": 26.47},
}
# The spot check: the same copy's eastus figures for sizes the catalog priced before (other copies, Edsv5's rule)
AZ_COPY_C_AGREES = {"Standard_E96as_v5": 5.424, "Standard_E96ads_v5": 6.288, "Standard_E96bs_v5": 7.152,
                    "Standard_E96bds_v5": 8.016, "Standard_M64s_v2": 6.459, "Standard_M64ds_v2": 6.669,
                    "Standard_M96s_2_v3": 12.45, "Standard_M96ds_2_v3": 13.23, "Standard_E2s_v5": 0.126,
                    "Standard_E20s_v5": 1.26, "Standard_E96s_v5": 6.048, "Standard_E104is_v5": 7.207,
                    "Standard_E2ds_v5": 0.144, "Standard_E20ds_v5": 1.44, "Standard_E64ds_v5": 4.608}


@pytest.mark.parametrize("series", sorted(AZ_LISTED_C))
def test_azure_third_pass_series_cost_the_listed_east_us_price_for_every_size(series):
    """Every catalog size of the series is priced: those the copy lists at its figure, the rest as priced before."""
    cat = CATS["azure"]
    sizes = {s.name for s in cat.shapes.values() if s.series == series}
    listed = AZ_LISTED_C[series]
    assert set(listed) <= sizes
    for name in sizes:
        price = cat.compute_prices[name]
        assert price.region == "eastus", name
        if name in listed:
            assert price.per_hour == pytest.approx(listed[name], abs=1e-9), name
            assert price.source_of("per_hour") == "AZURE-VM-PRICE-3P-C", name
            assert compute_cost(cat, name, None).monthly == pytest.approx(round(listed[name] * 730, 2)), name
        else:
            assert price.source_of("per_hour") != "AZURE-VM-PRICE-3P-C", name


@pytest.mark.parametrize("name", sorted(AZ_COPY_C_AGREES))
def test_azure_copy_c_agrees_with_the_copies_the_catalog_priced_from_before(name):
    """AZURE-VM-PRICE-3P-C's figure for a size priced from another copy (or by Edsv5's rule) is the catalog's price."""
    price = CATS["azure"].compute_prices[name]
    assert price.source_of("per_hour") != "AZURE-VM-PRICE-3P-C"
    assert price.per_hour == pytest.approx(AZ_COPY_C_AGREES[name], abs=1e-9)


@pytest.mark.parametrize("isolated,sibling", [("Standard_E104ids_v5", "Standard_E96ds_v5"),
                                              ("Standard_E104is_v5", "Standard_E96s_v5"),
                                              ("Standard_E112ias_v5", "Standard_E64as_v5"),
                                              ("Standard_E112iads_v5", "Standard_E64ads_v5"),
                                              ("Standard_E112ibs_v5", "Standard_E64bs_v5"),
                                              ("Standard_E112ibds_v5", "Standard_E64bds_v5")])
def test_azure_isolated_sizes_cost_their_listed_price_not_the_series_rate(isolated, sibling):
    """An isolated size is not vCPUs x its series' rate (E104ids_v5 $8.237 against 104 x 0.072 = 7.488): only a listed
    figure prices it."""
    cat = CATS["azure"]
    rate = cat.compute_prices[sibling].per_hour / cat.shapes[sibling].vcpus
    price = cat.compute_prices[isolated]
    assert price.per_hour != pytest.approx(cat.shapes[isolated].vcpus * rate, abs=0.0005)
    assert "rule" not in (price.note or "")


# Fourth pass: AZURE-VM-PRICE-3P-D's eastus figures (Linux pay-as-you-go, USD per hour), every Dsv6 and Esv6 size;
# each catalog entry is the listed figure, no rule. The 96-vCPU sizes were priced before from AZ-VM-EASTUS-GOLDEN.
AZ_LISTED_D = {
    "Dsv6": {"Standard_D2s_v6": 0.101, "Standard_D4s_v6": 0.202, "Standard_D8s_v6": 0.403, "Standard_D16s_v6": 0.806,
             "Standard_D32s_v6": 1.613, "Standard_D48s_v6": 2.419, "Standard_D64s_v6": 3.226,
             "Standard_D96s_v6": 4.838, "Standard_D128s_v6": 6.451, "Standard_D192s_v6": 9.677},
    "Esv6": {"Standard_E2s_v6": 0.132, "Standard_E4s_v6": 0.265, "Standard_E8s_v6": 0.529, "Standard_E16s_v6": 1.058,
             "Standard_E20s_v6": 1.323, "Standard_E32s_v6": 2.117, "Standard_E48s_v6": 3.175,
             "Standard_E64s_v6": 4.234, "Standard_E96s_v6": 6.35, "Standard_E128s_v6": 8.467,
             "Standard_E192is_v6": 13.971},
}
AZ_PRICED_BEFORE_D = {"Standard_D96s_v6": 3531.74, "Standard_E96s_v6": 4635.50}   # AZ-VM-EASTUS-GOLDEN, a month


@pytest.mark.parametrize("series", sorted(AZ_LISTED_D))
def test_azure_fourth_pass_every_size_of_the_series_costs_its_listed_east_us_price(series):
    """Before: only the 96-vCPU size was priced. Now every catalog size of the series is, at the copy's figure."""
    cat = CATS["azure"]
    sizes = {s.name for s in cat.shapes.values() if s.series == series}
    listed = AZ_LISTED_D[series]
    assert sizes == set(listed)
    for name in sizes:
        price = cat.compute_prices[name]
        assert price.per_hour == pytest.approx(listed[name], abs=1e-9) and price.region == "eastus", name
        expected_source = "AZ-VM-EASTUS-GOLDEN" if name in AZ_PRICED_BEFORE_D else "AZURE-VM-PRICE-3P-D"
        assert price.source_of("per_hour") == expected_source, name
        assert compute_cost(cat, name, None).monthly == pytest.approx(round(listed[name] * 730, 2)), name


@pytest.mark.parametrize("name", sorted(AZ_PRICED_BEFORE_D))
def test_azure_copy_d_agrees_with_the_golden_copy_on_the_sizes_both_list(name):
    """The spot check of AZURE-VM-PRICE-3P-D: its D96s_v6 and E96s_v6 are AZ-VM-EASTUS-GOLDEN's 730-hour bills."""
    series = CATS["azure"].shapes[name].series
    assert AZ_LISTED_D[series][name] * 730 == pytest.approx(AZ_PRICED_BEFORE_D[name], abs=0.005)
    assert compute_cost(CATS["azure"], name, None).monthly == pytest.approx(AZ_PRICED_BEFORE_D[name], abs=0.005)


def test_azure_the_searches_for_the_fourth_pass_gaps_stay_recorded_with_what_found_them():
    """The series once left unpriced are still named with the searches in AZURE-VM-PRICE-3P-D's note, which now also
    names the copy that priced them, so the next search does not repeat the old one."""
    note = CATS["azure"].source("AZURE-VM-PRICE-3P-D").note or ""
    for series in AZ_LISTED_E:
        assert series in note, series
    assert "AZ-VM-PRICE-KARPENTER-2026-06-18" in note


# Fifth pass: AZ-VM-PRICE-KARPENTER-2026-06-18's eastus figures (Linux pay-as-you-go, USD per hour), every size of the
# five series left in GAPS by the fourth pass; each catalog entry is the listed figure, no rule. E96ds_v6 was priced
# before from AZ-VM-EASTUS-GOLDEN and is the copy's figure too.
AZ_LISTED_E = {
    "Edsv6": {"Standard_E2ds_v6": 0.164, "Standard_E4ds_v6": 0.327, "Standard_E8ds_v6": 0.654,
              "Standard_E16ds_v6": 1.308, "Standard_E20ds_v6": 1.635, "Standard_E32ds_v6": 2.616,
              "Standard_E48ds_v6": 3.924, "Standard_E64ds_v6": 5.233, "Standard_E96ds_v6": 7.849,
              "Standard_E128ds_v6": 10.465, "Standard_E192ids_v6": 17.268},
    "Ebsv6": {"Standard_E2bs_v6": 0.174, "Standard_E4bs_v6": 0.349, "Standard_E8bs_v6": 0.698,
              "Standard_E16bs_v6": 1.395, "Standard_E32bs_v6": 2.79, "Standard_E48bs_v6": 4.186,
              "Standard_E64bs_v6": 5.581, "Standard_E96bs_v6": 8.371, "Standard_E128bs_v6": 11.162,
              "Standard_E192ibs_v6": 16.742},
    "Ebdsv6": {"Standard_E2bds_v6": 0.195, "Standard_E4bds_v6": 0.391, "Standard_E8bds_v6": 0.782,
               "Standard_E16bds_v6": 1.563, "Standard_E32bds_v6": 3.126, "Standard_E48bds_v6": 4.69,
               "Standard_E64bds_v6": 6.253, "Standard_E96bds_v6": 9.379, "Standard_E128bds_v6": 12.506,
               "Standard_E192ibds_v6": 18.758},
    "Mbsv3": {"Standard_M16bs_v3": 1.4, "Standard_M32bs_v3": 2.79, "Standard_M48bs_v3": 4.18,
              "Standard_M64bs_v3": 5.58, "Standard_M96bs_v3": 8.37, "Standard_M128bs_v3": 11.16,
              "Standard_M176bs_v3": 15.34},
    "Mbdsv3": {"Standard_M16bds_v3": 1.46, "Standard_M32bds_v3": 2.93, "Standard_M48bds_v3": 4.39,
               "Standard_M64bds_v3": 5.86, "Standard_M96bds_v3": 8.79, "Standard_M128bds_v3": 11.71,
               "Standard_M176bds_v3": 16.11, "Standard_M64bds_1_v3": 22.98, "Standard_M96bds_2_v3": 34.47,
               "Standard_M128bds_3_v3": 45.96, "Standard_M176bds_4_v3": 62.83},
}
# The copy's eastus figure for sizes the catalog priced before from other copies: the spot check (113 of 124 agree).
AZ_COPY_E_AGREES = {"Standard_E96ds_v6": 7.849, "Standard_D96s_v6": 4.838, "Standard_E104ids_v5": 8.237,
                    "Standard_E2ds_v5": 0.144, "Standard_D2s_v5": 0.096}
# ... and the Easv5/Eadsv5 sizes where it differs by a Windows licence's $0.046 per vCPU-hour: never taken from it.
AZ_COPY_E_DIFFERS = {"Standard_E4as_v5": 0.41, "Standard_E64ads_v5": 7.136}


@pytest.mark.parametrize("series", sorted(AZ_LISTED_E))
def test_azure_fifth_pass_every_size_of_the_series_costs_its_listed_east_us_price(series):
    """Before: unpriced (Edsv6 but its 96-vCPU size), so `plan --instance any` left them out. Now every catalog size of
    the series is priced at the copy's figure."""
    cat = CATS["azure"]
    sizes = {s.name for s in cat.shapes.values() if s.series == series}
    listed = AZ_LISTED_E[series]
    assert sizes == set(listed)
    for name in sizes:
        price = cat.compute_prices[name]
        assert price.per_hour == pytest.approx(listed[name], abs=1e-9) and price.region == "eastus", name
        expected_source = "AZ-VM-EASTUS-GOLDEN" if name == "Standard_E96ds_v6" else "AZ-VM-PRICE-KARPENTER-2026-06-18"
        assert price.source_of("per_hour") == expected_source, name
        assert compute_cost(cat, name, None).monthly == pytest.approx(round(listed[name] * 730, 2)), name


@pytest.mark.parametrize("name", sorted(AZ_COPY_E_AGREES))
def test_azure_copy_e_agrees_with_the_copies_the_catalog_priced_from_before(name):
    """The spot check, recorded in the source's note: the copy's figure for a size priced from another copy (or by
    a series rule) is the catalog's price, and that price still cites the other copy."""
    cat = CATS["azure"]
    price = cat.compute_prices[name]
    assert price.source_of("per_hour") != "AZ-VM-PRICE-KARPENTER-2026-06-18"
    assert price.per_hour == pytest.approx(AZ_COPY_E_AGREES[name], abs=1e-9)
    assert f"{AZ_COPY_E_AGREES[name]}" in (cat.source("AZ-VM-PRICE-KARPENTER-2026-06-18").note or "")


@pytest.mark.parametrize("name", sorted(AZ_COPY_E_DIFFERS))
def test_azure_copy_e_figures_that_differ_by_the_windows_rate_are_not_taken(name):
    """Where the copy is off (its generator keeps one row per SKU in map order), the catalog keeps the other copies'
    figure: the difference is exactly $0.046 per vCPU-hour, a Windows licence. The source's note records it."""
    cat = CATS["azure"]
    price = cat.compute_prices[name]
    note = cat.source("AZ-VM-PRICE-KARPENTER-2026-06-18").note or ""
    assert f"{name.removeprefix('Standard_')} {AZ_COPY_E_DIFFERS[name]} against {price.per_hour}" in note
    assert price.source_of("per_hour") != "AZ-VM-PRICE-KARPENTER-2026-06-18"
    assert AZ_COPY_E_DIFFERS[name] - price.per_hour == pytest.approx(0.046 * cat.shapes[name].vcpus, abs=1e-9)
    assert not any(p.source_of("per_hour") == "AZ-VM-PRICE-KARPENTER-2026-06-18"
                   for n, p in cat.compute_prices.items() if cat.shapes[n].series in ("Easv5", "Eadsv5"))


@pytest.mark.parametrize("isolated,sibling", [("Standard_E192ids_v6", "Standard_E128ds_v6"),
                                              ("Standard_M176bds_4_v3", "Standard_M176bds_v3")])
def test_azure_fifth_pass_isolated_and_high_memory_sizes_are_listed_not_the_series_rate(isolated, sibling):
    """E192ids_v6 ($17.268, not 192 x 0.08176 = 15.70) and the Mbdsv3 high-memory sizes are listed figures."""
    cat = CATS["azure"]
    rate = cat.compute_prices[sibling].per_hour / cat.shapes[sibling].vcpus
    price = cat.compute_prices[isolated]
    assert price.per_hour != pytest.approx(cat.shapes[isolated].vcpus * rate, abs=0.0005)
    assert price.per_hour == AZ_LISTED_E[cat.shapes[isolated].series][isolated]


def test_azure_plan_ranks_every_shape_none_left_out_for_want_of_a_price():
    """4 TiB, 60,000 IOPS on any instance: before, 47 shapes were not ranked for want of a price."""
    req = Requirements(cloud="azure", capacity_gb=4096, instance_shape=ANY, target_iops=60_000)
    plan = plan_shapes(req, CATS["azure"], ShapeQuery(ANY))
    assert plan.feasible and plan.instance_search is not None and not plan.instance_search.unpriced
    assert plan.candidates[0].cost.compute is not None and not any("want of a compute price" in n for n in plan.notes)
