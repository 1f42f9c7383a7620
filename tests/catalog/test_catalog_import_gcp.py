"""Issue 38, "your region, your prices": `catalog import --cloud gcp` reads a Cloud Billing Catalog API response (the
Compute Engine SKUs) for any region and writes a catalog whose every imported price names that region.

The SKU rows are built here in the API's shape (skus[].description, category.usageType, serviceRegions,
pricingInfo[].pricingExpression.{usageUnit, tieredRates[].unitPrice.{units, nanos}}); the us-central1 figures are
those the shipped catalog cites (N2 0.031611 + 0.004237, C3 0.03465 + 0.003938, Balanced PD $0.10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockfit.catalog import load_catalog, load_catalog_file, raw_catalog
from blockfit.catalog.importers import import_catalog
from blockfit.catalog.toml_out import dumps
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

GCP = load_catalog("gcp")


def sku(description: str, usd: float, unit: str, regions: list[str], usage: str = "OnDemand",
        free_first: bool = False) -> dict[str, Any]:
    units, nanos = int(usd), round((usd - int(usd)) * 1e9)
    tiers = [{"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": str(units), "nanos": nanos}}]
    if free_first:
        tiers.insert(0, {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 0}})
    return {"name": f"services/6F81-5844-456A/skus/{abs(hash(description)) % 10**8}", "skuId": "0000-0000-0000",
            "description": description,
            "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Compute",
                         "resourceGroup": "CPU", "usageType": usage},
            "serviceRegions": regions,
            "pricingInfo": [{"effectiveTime": "2026-10-01T00:00:00Z",
                             "pricingExpression": {"usageUnit": unit, "displayQuantity": 1, "tieredRates": tiers}}]}


def central() -> list[dict[str, Any]]:
    return [sku("N2 Instance Core running in Americas", 0.031611, "h", ["us-central1"]),
            sku("N2 Instance Ram running in Americas", 0.004237, "GiBy.h", ["us-central1"]),
            sku("C3 Instance Core running in Americas", 0.03465, "h", ["us-central1"]),
            sku("C3 Instance Ram running in Americas", 0.003938, "GiBy.h", ["us-central1"]),
            sku("Spot Preemptible N2 Instance Core running in Americas", 0.0077, "h", ["us-central1"],
                usage="Preemptible"),
            sku("Balanced PD Capacity in Iowa", 0.1, "GiBy.mo", ["us-central1"]),
            sku("Hyperdisk Extreme Capacity in Iowa", 0.125, "GiBy.mo", ["us-central1"])]


def write(tmp_path: Path, skus: list[dict[str, Any]], name: str = "skus.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"skus": skus, "nextPageToken": ""}))
    return str(path)


def test_us_central1_prices_name_their_region_and_reproduce_the_shipped_rates(tmp_path):
    out = tmp_path / "gcp.toml"
    # Hyperdisk Extreme unpriced in the base, as before issue 38's second pass priced it in the shipped catalog
    raw = raw_catalog(GCP)
    for field in ("price_per_gb", "price_per_iops", "price_region"):
        raw["volume_types"]["hyperdisk-extreme"].pop(field)
        raw["volume_types"]["hyperdisk-extreme"]["sources"].pop(field)
    (tmp_path / "base.toml").write_text(dumps(raw, "base"))
    base = load_catalog_file(str(tmp_path / "base.toml"))
    result = import_catalog("gcp", [write(tmp_path, central())], out, base)
    cat = load_catalog_file(str(out))
    for series, core, ram in (("n2", 0.031611, 0.004237), ("c3", 0.03465, 0.003938)):
        price = cat.compute_prices[series]
        assert (price.per_ocpu_hour, price.per_gb_hour, price.region) == (core, ram, "us-central1")
        assert price.source_of("per_ocpu_hour") == "IMPORT-1"
    assert cat.volume_types["pd-balanced"].price_per_gb == pytest.approx(0.1)
    assert cat.volume_types["pd-balanced"].price_region == "us-central1"
    # Hyperdisk Extreme: capacity only in the file, so no price is written (it would understate)
    assert cat.volume_types["hyperdisk-extreme"].price_per_gb is None
    assert any("hyperdisk-extreme" in s and "price_per_iops" in s for s in result.skipped)
    assert result.prices == 2


def test_another_region_is_named_and_a_two_region_result_says_so(tmp_path):
    west = [sku("N2 Instance Core running in EMEA", 0.034802, "h", ["europe-west4"]),
            sku("N2 Instance Ram running in EMEA", 0.004664, "GiBy.h", ["europe-west4"]),
            sku("Balanced PD Capacity in Netherlands", 0.11, "GiBy.mo", ["europe-west4"])]
    path = write(tmp_path, central() + west)
    with pytest.raises(InputError, match="prices for 2 regions .*europe-west4.*us-central1"):
        import_catalog("gcp", [path], tmp_path / "x.toml", GCP)
    assert not (tmp_path / "x.toml").exists()
    out = tmp_path / "west.toml"
    import_catalog("gcp", [path], out, GCP, region="europe-west4")
    cat = load_catalog_file(str(out))
    assert cat.compute_prices["n2"].region == "europe-west4" and cat.compute_prices["n2"].per_ocpu_hour == 0.034802
    assert cat.volume_types["pd-balanced"].price_region == "europe-west4"
    one = predict(parse_layout("1x1T@pd-balanced", "gcp", cat), parse_instance("n2-standard-8", "gcp", cat),
                  Workload(), cat, with_curve=False)
    assert one.cost.region == "europe-west4" and not any(w.startswith("Prices of two regions") for w in one.warnings)
    two = predict(parse_layout("1x1T@pd-ssd", "gcp", cat), parse_instance("n2-standard-8", "gcp", cat),
                  Workload(), cat, with_curve=False)   # pd-ssd keeps its shipped us-central1 price
    assert any(w.startswith("Prices of two regions") for w in two.warnings)
    assert "us-central1" in two.cost.region and "europe-west4" in two.cost.region


def test_hyperdisk_is_priced_when_every_meter_is_in_the_file(tmp_path):
    """Hourly meters are billed per month of 730 h; the free first tier is the baseline, the last tier the rate."""
    rows = central() + [
        sku("Hyperdisk Balanced Capacity in Iowa", 0.08, "GiBy.mo", ["us-central1"]),
        sku("Hyperdisk Balanced IOPS in Iowa", 0.005 / 730, "h", ["us-central1"], free_first=True),
        sku("Hyperdisk Balanced Throughput in Iowa", 0.04 / 730, "h", ["us-central1"], free_first=True)]
    out = tmp_path / "hd.toml"
    import_catalog("gcp", [write(tmp_path, rows)], out, GCP)
    vt = load_catalog_file(str(out)).volume_types["hyperdisk-balanced"]
    assert vt.price_per_gb == pytest.approx(0.08)
    # an hourly rate in whole nanodollars, x 730: 6,849 nanos -> $0.00499977 per IOPS-month
    assert vt.price_per_iops == pytest.approx(round(0.005 / 730 * 1e9) / 1e9 * 730, rel=1e-9)
    assert vt.price_per_tput == pytest.approx(round(0.04 / 730 * 1e9) / 1e9 * 730, rel=1e-9)
    assert vt.price_region == "us-central1"


@pytest.mark.parametrize("bad,message", [
    (sku("N2 Instance Core running in Americas", 0.031611, "GiBy.h", ["us-central1"]), "usageUnit 'GiBy.h'"),
    (sku("Balanced PD Capacity in Iowa", 0.1, "By", ["us-central1"]), "usageUnit 'By'"),
])
def test_a_unit_that_contradicts_the_meter_is_refused_and_nothing_is_written(tmp_path, bad, message):
    out = tmp_path / "bad.toml"
    with pytest.raises(InputError, match=message):
        import_catalog("gcp", [write(tmp_path, [bad])], out, GCP)
    assert not out.exists()


def test_a_file_without_a_known_meter_is_refused(tmp_path):
    with pytest.raises(InputError, match="no on-demand price of a series or volume type blockfit knows"):
        import_catalog("gcp", [write(tmp_path, [sku("Licensing Fee for Windows", 0.04, "h", ["global"])])],
                       tmp_path / "none.toml", GCP)
