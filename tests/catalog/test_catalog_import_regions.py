"""Issue 38: an imported price names the region it is of. An AWS price list of another region than the shipped
us-east-1 must not relabel io2, whose tiered IOPS prices the importer keeps as shipped: before, importing eu-west-1
gave io2 eu-west-1's per-GB price and `price_region = "eu-west-1"` beside us-east-1's IOPS tiers, so a result named
one region for prices of two. io2 now keeps every shipped price and its region, and a result on it says two regions."""

from __future__ import annotations

from pathlib import Path

from blockfit.catalog import load_catalog, load_catalog_file
from blockfit.catalog.importers import import_catalog
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout
from support.catalog_files import aws_price_list, write

AWS = load_catalog("aws")
EBS = {("gp3", "Storage", "GB-Mo"): 0.088, ("io2", "Storage", "GB-Mo"): 0.138,
       ("io2", "System Operation", "IOPS-Mo"): 0.072}


def imported(tmp_path: Path, region: str) -> Path:
    out = tmp_path / f"{region}.toml"
    path = write(tmp_path / f"prices-{region}.json", aws_price_list(region, {"r6i.2xlarge": 0.564}, EBS))
    import_catalog("aws", [path], out, AWS)
    return out


def test_another_regions_price_list_leaves_io2_with_its_shipped_region(tmp_path):
    cat = load_catalog_file(str(imported(tmp_path, "eu-west-1")))
    io2, gp3 = cat.volume_types["io2"], cat.volume_types["gp3"]
    assert (gp3.price_per_gb, gp3.price_region) == (0.088, "eu-west-1")
    shipped = AWS.volume_types["io2"]
    assert (io2.price_per_gb, io2.price_iops_tiers, io2.price_region) == \
        (shipped.price_per_gb, shipped.price_iops_tiers, "us-east-1")
    p = predict(parse_layout("1x1T@io2:40000", "aws", cat), parse_instance("r6i.2xlarge", "aws", cat), Workload(),
                cat, with_curve=False)
    assert "us-east-1" in p.cost.region and "eu-west-1" in p.cost.region
    assert any(w.startswith("Prices of two regions") for w in p.warnings)


def test_the_shipped_region_still_takes_io2s_per_gb_price(tmp_path):
    cat = load_catalog_file(str(imported(tmp_path, "us-east-1")))
    io2 = cat.volume_types["io2"]
    assert (io2.price_per_gb, io2.price_region) == (0.138, "us-east-1")
    assert io2.price_iops_tiers == AWS.volume_types["io2"].price_iops_tiers
