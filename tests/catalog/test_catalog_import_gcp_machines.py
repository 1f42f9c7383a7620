"""`catalog import --cloud gcp` of `gcloud compute machine-types list --format=json`: sizes and memory of the series
the catalog has are added to their families, a series it lacks is added with its per-VM caps stated unknown, and a
hostile or malformed file is one line, exit 2, nothing written. The rows are built here in the MachineType resource's
shape (name, guestCpus, memoryMb in MiB, maximumPersistentDisks, isSharedCpu, zone, kind)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockfit.catalog import load_catalog, load_catalog_file
from blockfit.catalog.importers import import_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout
from support.inproc import run

GCP = load_catalog("gcp")


def machine(name: str, vcpus: int, memory_gib: float, disks: int = 128, zone: str = "us-central1-a",
            **extra: Any) -> dict[str, Any]:
    return {"kind": "compute#machineType", "name": name, "guestCpus": vcpus, "memoryMb": int(memory_gib * 1024),
            "maximumPersistentDisks": disks, "maximumPersistentDisksSizeGb": "263168", "isSharedCpu": False,
            "zone": zone, "description": f"{vcpus} vCPUs, {memory_gib:g} GB RAM", **extra}


def listing() -> list[dict[str, Any]]:
    return [machine("n2-standard-16", 16, 64), machine("n2-standard-16", 16, 64, zone="us-central1-b"),
            machine("n2-highmem-128", 128, 864), machine("n2-standard-160", 160, 640),
            machine("z3-highmem-88", 88, 704, disks=64), machine("z3-highmem-176", 176, 1408, disks=64),
            machine("e2-micro", 2, 1, isSharedCpu=True), machine("c3-standard-8-lssd", 8, 32),
            machine("n1-standard-1", 1, 3.75, deprecated={"state": "DEPRECATED"})]


def write(tmp_path: Path, rows: object, name: str = "types.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(rows))
    return str(path)


def test_sizes_join_their_series_and_a_new_series_is_added(tmp_path: Path) -> None:
    out = tmp_path / "gcp.toml"
    result = import_catalog("gcp", [write(tmp_path, listing())], out, GCP)
    assert result.added == ["z3"] and "n2" in result.replaced
    assert result.files[0].format == "gcloud compute machine-types list"
    cat = load_catalog_file(str(out))
    n2 = cat.shapes["n2"].machine_families["standard"]
    assert 160 in n2.vcpus and set(GCP.shapes["n2"].machine_families["standard"].vcpus) <= set(n2.vcpus)
    assert cat.shapes["n2"].machine_families["highmem"].memory_of(128) == 864       # kept, and the file agrees
    assert cat.cite(cat.shapes["n2"], "machine_families").id == "IMPORT-1"
    z3 = cat.shapes["z3"]
    assert z3.machine_families["highmem"].gb_per_vcpu == 8 and z3.machine_families["highmem"].vcpus == [88, 176]
    assert z3.attach_max == 64 and "tiers" in z3.unknown
    assert any("3 machine types" in s and "e2-micro" in s for s in result.skipped)


def test_an_imported_size_is_modelled_and_its_unknown_caps_warned(tmp_path: Path) -> None:
    out = tmp_path / "gcp.toml"
    import_catalog("gcp", [write(tmp_path, listing())], out, GCP)
    cat = load_catalog_file(str(out))
    n2 = predict(parse_layout("1x2T@pd-ssd", "gcp", cat), parse_instance("n2-standard-160", "gcp", cat),
                 Workload(), cat)
    assert n2.instance_iops_cap == 100_000                    # the >= 64 vCPU row of the shipped tiers holds
    z3 = predict(parse_layout("1x2T@pd-ssd", "gcp", cat), parse_instance("z3-highmem-88", "gcp", cat), Workload(),
                 cat)
    assert z3.instance_iops_cap is None and any("not found" in w for w in z3.warnings)
    with pytest.raises(InputError, match="176"):
        parse_instance("z3-highmem-96", "gcp", cat)           # a size the file does not list is refused, named


def test_the_file_date_is_its_modification_date(tmp_path: Path) -> None:
    result = import_catalog("gcp", [write(tmp_path, listing())], tmp_path / "gcp.toml", GCP)
    assert result.files[0].date >= GCP.version


@pytest.mark.parametrize(("rows", "expected"), [
    ([machine("n2-standard-16", 16, 64) | {"guestCpus": "16"}], "guestCpus = '16': expected a whole number"),
    ([machine("n2-standard-16", 16, 64) | {"memoryMb": 64 * 1024**3}], "unit contradicts"),
    ([machine("n2-standard-16", 8, 32)], "contradicts the name's 16 vCPUs"),
    ([machine("n2-standard-16", 16, 64), machine("n2-standard-16", 16, 128, zone="b")], "figures differ"),
    ([machine("e2-micro", 2, 1, isSharedCpu=True)], "no predefined machine type"),
    ([machine("n2-standard-16", 16, 64) | {"maximumPersistentDisks": -1}], "expected a positive figure"),
    ([{"kind": "compute#machineType", "name": "n2-standard-16", "guestCpus": 16}], "missing memoryMb"),
    ([machine("n2-standard-16", 16, 64), "n2-standard-32"], "expected an object"),
    ([machine("n2-standard-16\x1b[31m", 16, 64)], "no predefined machine type"),
])
def test_malformed_files_are_one_line_exit_2_and_nothing_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 rows: list[Any], expected: str) -> None:
    out = tmp_path / "never.toml"
    code, _stdout, err = run(["catalog", "import", "--cloud", "gcp", write(tmp_path, rows), "--out", str(out)],
                             capsys)
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert "\x1b" not in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".never.toml*"))


def test_the_cli_imports_and_model_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gcp.toml"
    code, stdout, err = run(["catalog", "import", "--cloud", "gcp", write(tmp_path, listing()), "--out", str(out),
                             "--json"], capsys)
    assert code == 0, err
    assert json.loads(stdout)["added"] == ["z3"]
    code, stdout, err = run(["model", "--cloud", "gcp", "--catalog", str(out), "--layout", "1x2T@pd-balanced",
                             "--instance", "n2-standard-160", "--json"], capsys)
    assert code == 0, err
    assert json.loads(stdout)["instance_iops_cap"] == 80_000


def test_a_new_series_is_priced_from_a_sku_file_beside_it(tmp_path: Path) -> None:
    """z3 is not in the shipped catalog: with its machine types and its Core / Ram SKUs in one import it is priced
    per vCPU and GB like the shipped series (z3-highmem-88: 88 x core + 704 x ram per hour)."""
    def sku(description: str, usd: float, unit: str) -> dict[str, Any]:
        units, nanos = int(usd), round((usd - int(usd)) * 1e9)
        return {"skuId": "0000-0000-0000", "description": description,
                "category": {"resourceFamily": "Compute", "usageType": "OnDemand"}, "serviceRegions": ["us-central1"],
                "pricingInfo": [{"effectiveTime": "2026-10-01T00:00:00Z", "pricingExpression": {
                    "usageUnit": unit, "tieredRates": [{"startUsageAmount": 0, "unitPrice": {
                        "currencyCode": "USD", "units": str(units), "nanos": nanos}}]}}]}

    skus = write(tmp_path, {"skus": [sku("Z3 Instance Core running in Americas", 0.0409, "h"),
                                     sku("Z3 Instance Ram running in Americas", 0.0055, "GiBy.h")]}, "skus.json")
    out = tmp_path / "gcp.toml"
    import_catalog("gcp", [write(tmp_path, listing()), skus], out, GCP)
    cat = load_catalog_file(str(out))
    p = predict(parse_layout("1x2T@pd-ssd", "gcp", cat), parse_instance("z3-highmem-88", "gcp", cat), Workload(),
                cat)
    assert p.cost.compute == pytest.approx((88 * 0.0409 + 704 * 0.0055) * 730, abs=0.01)
