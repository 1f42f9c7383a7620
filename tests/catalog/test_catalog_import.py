"""`blockfit catalog import`: provider CLI output in the real layouts (written here, tests/support/catalog_files.py)
gives a catalog on which `model` reports the imported figures exactly; bad files are one line, exit 2, nothing written;
--catalog takes a date or a path."""

from __future__ import annotations

import json
import math
import tomllib
from glob import glob
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog, load_catalog_file, raw_catalog, resolve_catalog
from blockfit.catalog.importers import import_catalog
from blockfit.catalog.names import edit_distance, nearest
from blockfit.catalog.toml_out import dumps
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.schema import Instance, Layout, Volume, Workload
from blockfit.specs import parse_instance, parse_layout
from support.catalog_files import (
    aws_price_list,
    aws_type,
    aws_types,
    azure_prices,
    azure_sku,
    azure_skus,
    oci_fixed,
    oci_flex,
    oci_prices,
    oci_shapes,
    write,
)
from support.inproc import run

EBS = {("gp3", "Storage", "GB-Mo"): 0.07, ("gp3", "System Operation", "IOPS-Mo"): 0.005,
       ("gp3", "Provisioned Throughput", "GiBps-mo"): 40.96}


def aws_files(tmp: Path) -> list[str]:
    types = aws_types([
        aws_type("r7i.2xlarge", 8, 65536, 312.5, 12000, 1250, 40000, attachments=32),
        aws_type("r6a.2xlarge", 8, 65536, 400.0, 13000, 1250, 40000, attachments=28, limit="shared"),
        aws_type("r8i.2xlarge", 8, 65536, 350.0, 15000, 1250, 40000, attachments=40),
        aws_type("m4.xlarge", 4, 16384, 93.75, 6000, current=False),
    ])
    prices = aws_price_list("us-east-1", {"r7i.2xlarge": 0.5292, "r8i.2xlarge": 0.61, "r6a.2xlarge": 0.4536}, EBS)
    return [write(tmp / "types.json", types), write(tmp / "prices.json", prices)]


def test_toml_writer_round_trips_every_shipped_catalog() -> None:
    for path in sorted(glob(str(Path(__file__).parents[2] / "src/blockfit/catalog/data/*/*.toml"))):
        raw = tomllib.loads(Path(path).read_text())
        assert tomllib.loads(dumps(raw, "header")) == raw, path


def changed_iops_was_unknown(result, shape: str) -> bool:
    return any(c.item == f"shapes.{shape}" and c.field == "iops" and c.old is None for c in result.changes)


def test_aws_import_model_reports_the_imported_figures(tmp_path: Path) -> None:
    out = tmp_path / "aws.toml"
    raw = raw_catalog(load_catalog("aws"))   # r6a.2xlarge unpriced, as before issue 38 priced it at 0.4536
    raw["compute_prices"].pop("r6a.2xlarge")
    (tmp_path / "base.toml").write_text(dumps(raw, "base"))
    base = load_catalog_file(str(tmp_path / "base.toml"))
    result = import_catalog("aws", aws_files(tmp_path), out, base)
    cat = load_catalog_file(str(out))
    # r8i.2xlarge is shipped with its bandwidth only (IOPS unknown): the file gives its IOPS
    assert result.added == ["m4.xlarge"] and {"r6a.2xlarge", "r8i.2xlarge"} <= set(result.replaced)
    assert changed_iops_was_unknown(result, "r8i.2xlarge")
    changed = {(c.item, c.field): (c.old, c.new) for c in result.changes}
    assert changed[("shapes.r6a.2xlarge", "iops")] == (12000, 13000)
    assert changed[("shapes.r6a.2xlarge", "mbps")] == (312.5, 400.0)
    assert changed[("compute_prices.r6a.2xlarge", "per_hour")][1] == 0.4536
    assert changed[("volume_types.gp3", "price_per_gb")] == (0.08, 0.07)
    assert ("shapes.r7i.2xlarge", "iops") not in changed          # same figure: not listed
    shape = cat.shapes["r8i.2xlarge"]
    assert (shape.vcpus, shape.memory_gb, shape.attach_max, shape.series) == (8, 64, 40, "r8i")
    cited = cat.cite(shape, "iops")
    assert cited.id == "IMPORT-1" and cited.url is not None and "types.json" in cited.url
    price = cat.cite(cat.compute_prices["r8i.2xlarge"], "per_hour")
    assert (price.id, price.date) == ("IMPORT-2", "2026-11-20")
    assert cat.shapes["r6a.2xlarge"].attach_max == 27        # shared: one network interface off the 28
    assert cat.shapes["m4.xlarge"].current is False
    assert cat.volume_types["gp3"].price_per_tput == pytest.approx(0.04)
    pred = predict(parse_layout("8x500G@gp3:16000:1000", "aws", cat), Instance(cloud="aws", shape="r8i.2xlarge"),
                   Workload(small_io=16384, large_io=128 * 1024), cat)
    assert pred.max_iops == 15000 and pred.max_mbps == 350.0
    assert pred.cost.compute == round(0.61 * 730, 2)
    fresh = predict(parse_layout("8x500G@gp3:16000:1000", "aws", cat), Instance(cloud="aws", shape="r6a.2xlarge"),
                    Workload(small_io=16384), cat)
    assert fresh.max_iops == 13000


def test_azure_import_replaces_the_default_interface_caps(tmp_path: Path) -> None:
    files = [write(tmp_path / "skus.json", azure_skus(
        azure_sku("Standard_E8bds_v5", 8, 64, 25000, 700, 16, ("eastus", "westeurope")),
        azure_sku("Standard_E8ads_v6", 8, 64, 12800, 200, 16),
        azure_sku("Standard_B1ls", 1, 0.5, 0, 0, 2, premium=False))),
        write(tmp_path / "prices.json", azure_prices({"Standard_E8bds_v5": 0.62, "Standard_E8ads_v6": 0.52}))]
    out = tmp_path / "azure.toml"
    result = import_catalog("azure", files, out, load_catalog("azure"))
    cat = load_catalog_file(str(out))
    assert result.added == ["Standard_E8ads_v6"]
    assert cat.shapes["Standard_E8ads_v6"].series == "Eadsv6"
    lay = parse_layout("8x1T@premium-v1", "azure", cat)
    scsi = predict(lay, Instance(cloud="azure", shape="Standard_E8bds_v5"), Workload(), cat)
    assert scsi.max_mbps == 700.0                           # the imported SCSI Premium SSD cap
    nvme = predict(lay, Instance(cloud="azure", shape="Standard_E8bds_v5", interface="nvme"), Workload(), cat)
    assert nvme.max_mbps == 930.0                           # not in the API: kept from the size page
    new = predict(lay, Instance(cloud="azure", shape="Standard_E8ads_v6"), Workload(), cat)
    assert (new.max_iops, new.max_mbps) == (12800, 200.0)
    assert cat.compute_prices["Standard_E8ads_v6"].per_hour == 0.52   # Linux, not Spot or Windows


def test_oci_import_flex_fixed_and_prices(tmp_path: Path) -> None:
    files = [write(tmp_path / "shapes.json", oci_shapes(
        oci_flex("VM.Standard.A4.Flex", (1, 45), 1, 100), oci_fixed("VM.Standard2.4", 4, 60, 4.1),
        oci_fixed("BM.Standard.A4.48", 48, 768, 100), oci_flex("VM.Standard.E6.Flex", (1, 126), 1, 99))),
        write(tmp_path / "prices.json", oci_prices([
            ("B1", "Compute - Standard - A4 - OCPU", "OCPU Per Hour", 0.035),
            ("B2", "OCI - Compute - Standard - A4 - Memory", "Gigabyte Per Hour", 0.002),
            ("B3", "Compute - Standard - E6 - OCPU", "OCPU Per Hour", 0.03),
            ("B4", "OCI - Compute - Standard - E6 - Memory", "Gigabyte Per Hour", 0.002),
            ("B91961", "Storage - Block Volume - Storage", "Gigabyte Storage Capacity Per Month", 0.03)]))]
    out = tmp_path / "oci.toml"
    result = import_catalog("oci", files, out, load_catalog("oci"))
    cat = load_catalog_file(str(out))
    assert set(result.added) == {"VM.Standard.A4.Flex", "VM.Standard2.4", "BM.Standard.A4.48"}
    assert ("volume_types.block", "price_per_gb") in {(c.item, c.field) for c in result.changes}
    a4 = predict(parse_layout("8x1T@higher", "oci", cat), parse_instance("VM.Standard.A4.Flex:4", "oci", cat),
                 Workload(), cat)
    assert a4.max_mbps == 4 * 120.0                          # 1 Gbps per OCPU x the VM rule's 120 MB/s per Gbps
    assert a4.cost.compute == round((4 * 0.035 + 4 * 1 * 0.002) * 730, 2)
    vm = cat.shapes["VM.Standard2.4"]
    assert (vm.iops, vm.mbps) == (82000, pytest.approx(492.0))
    bm = cat.shapes["BM.Standard.A4.48"]
    assert bm.iops is None and "iops" in bm.unknown       # bare-metal caps are not in the file: stated unknown
    assert cat.compute_prices["BM.Standard.A4.48"].per_hour == pytest.approx(48 * 0.035 + 768 * 0.002)
    # E6 is shipped with its block-volume caps a stated unknown; the file gives its OCPUs, network and price only,
    # so those are replaced and the caps stay unknown (warned, not applied)
    assert "VM.Standard.E6.Flex" in result.replaced
    e6 = predict(parse_layout("8x1T@higher", "oci", cat), parse_instance("VM.Standard.E6.Flex:4", "oci", cat),
                 Workload(), cat)
    assert e6.instance_iops_cap is None and any("not found" in w for w in e6.warnings)
    assert e6.cost.compute == round((4 * 0.03 + 4 * 1 * 0.002) * 730, 2)


def _edit(path: Path, change: object) -> str:
    data = json.loads(path.read_text())
    assert callable(change)
    change(data)
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("case, expected", [
    ("azure-file", "az vm list-skus output (azure), not aws"),
    ("empty", "empty list"),
    ("missing", "missing MemoryInfo.SizeInMiB"),
    ("units", "units contradict"),
    ("price-unit", "unit 'Hrs'"),
    ("not-json", "not JSON"),
    ("regions", "prices for 2 regions"),
])
def test_bad_files_are_one_line_exit_2_and_nothing_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           case: str, expected: str) -> None:
    types, prices = aws_files(tmp_path)
    tp, pp = Path(types), Path(prices)
    build = {
        "azure-file": lambda: [write(tmp_path / "skus.json",
                                     azure_skus(azure_sku("Standard_E8s_v5", 8, 64, 12800, 290, 16)))],
        "empty": lambda: [write(tmp_path / "empty.json", aws_types([]))],
        "missing": lambda: [_edit(tp, lambda d: d["InstanceTypes"][1].pop("MemoryInfo"))],
        "units": lambda: [_edit(tp, lambda d: d["InstanceTypes"][0]["EbsInfo"]["EbsOptimizedInfo"].update(
            BaselineThroughputInMBps=2500))],
        "price-unit": lambda: [types, _edit(pp, lambda d: [
            dim.update(unit="GB-Mo") for t in d["terms"]["OnDemand"].values() for o in t.values()
            for dim in o["priceDimensions"].values()])],
        "not-json": lambda: [str(tmp_path / "x.json")],
        "regions": lambda: [types, write(tmp_path / "two.json", _two_regions())],
    }
    files = build[case]()
    if case == "not-json":
        Path(files[0]).write_text("InstanceTypes: r7i")
    if case == "price-unit":
        expected = "unit 'GB-Mo'"
    out = tmp_path / "never.toml"
    code, _stdout, err = run(["catalog", "import", "--cloud", "aws", *files, "--out", str(out)], capsys)
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() and not list(tmp_path.glob(".never.toml*"))


def _two_regions() -> dict:
    a = aws_price_list("us-east-1", {"r7i.2xlarge": 0.5})
    b = aws_price_list("eu-west-1", {"r7i.2xlarge": 0.6})
    a["products"].update({f"B{k}": v for k, v in b["products"].items()})
    a["terms"]["OnDemand"].update({f"B{k}": v for k, v in b["terms"]["OnDemand"].items()})
    return a


def test_out_never_replaces_an_input_or_a_shipped_catalog(tmp_path: Path) -> None:
    types, prices = aws_files(tmp_path)
    before = Path(types).read_bytes()
    with pytest.raises(InputError, match="is one of the files to import"):
        import_catalog("aws", [types, prices], Path(types), load_catalog("aws"))
    shipped = Path(load_catalog("aws").path)
    with pytest.raises(InputError, match="a catalog blockfit ships"):
        import_catalog("aws", [types], shipped, load_catalog("aws"))
    assert Path(types).read_bytes() == before


def test_region_picks_one_of_several(tmp_path: Path) -> None:
    types, _prices = aws_files(tmp_path)
    out = tmp_path / "aws.toml"
    import_catalog("aws", [types, write(tmp_path / "two.json", _two_regions())], out, load_catalog("aws"),
                   region="eu-west-1")
    price = load_catalog_file(str(out)).compute_prices["r7i.2xlarge"]
    assert (price.per_hour, price.region) == (0.6, "eu-west-1")
    with pytest.raises(InputError, match="^eu-west-1: goes with a price file"):   # the CLI names --region
        import_catalog("aws", [types], tmp_path / "never.toml", load_catalog("aws"), region="eu-west-1")
    with pytest.raises(InputError, match="^mars-1: .* has no prices for it"):   # the CLI names --region
        import_catalog("aws", [types, str(tmp_path / "two.json")], tmp_path / "never.toml", load_catalog("aws"),
                       region="mars-1")
    assert not (tmp_path / "never.toml").exists()


def test_catalog_option_takes_a_date_or_a_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "aws.toml"
    import_catalog("aws", aws_files(tmp_path), out, load_catalog("aws"))
    assert resolve_catalog(None, str(out)).cloud == "aws"
    assert resolve_catalog("aws", "2025-10").version.isoformat() == "2025-09-30"
    with pytest.raises(InputError, match="a catalog of aws, not oci"):
        resolve_catalog("oci", str(out))
    with pytest.raises(InputError, match="no such file"):
        resolve_catalog(None, str(tmp_path / "missing.toml"))
    (tmp_path / "bad.toml").write_text("[catalog]\ncloud = 'aws'\nversion = 'soon'\n")
    with pytest.raises(InputError, match="not a valid blockfit catalog"):
        resolve_catalog(None, str(tmp_path / "bad.toml"))
    code, stdout, _ = run(["model", "--catalog", str(out), "--layout", "8x500G@gp3:16000:1000", "--instance",
                           "r8i.2xlarge", "--json"], capsys)
    assert code == 0 and json.loads(stdout)["max_iops"] == 15000
    code, stdout, _ = run(["catalog", "show", "--catalog", str(out)], capsys)
    assert code == 0 and "imported over the shipped 2026-11-25" in " ".join(stdout.split()) and "r8i.2xlarge" in stdout
    code, stdout, _ = run(["catalog", "list", "--catalog", str(out), "--json"], capsys)
    assert code == 0 and json.loads(stdout)[-1]["file"] == str(out)


def test_unknown_instance_names_the_nearest_and_how_to_import(capsys: pytest.CaptureFixture[str]) -> None:
    assert edit_distance("r7i.2xlarg", "r7i.2xlarge") == 1 and edit_distance("ABC", "abd") == 1
    assert nearest("r7i.2xlarg", ["m6i.large", "r7i.2xlarge", "r7a.2xlarge"], 2) == ["r7i.2xlarge", "r7a.2xlarge"]
    code, _, err = run(["model", "--cloud", "aws", "--layout", "1x1T@gp3", "--instance", "r7i.2xlargee"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "nearest: r7i.2xlarge" in err and "blockfit catalog import --cloud aws" in err
    code, _, err = run(["model", "--cloud", "azure", "--layout", "1x1T@premium-v1", "--instance",
                        "Standard_E8bds_v7"], capsys)
    assert code == 2 and "Standard_E8bds_v5" in err.split("nearest:")[1] and "az vm list-skus" in err


def test_imported_catalog_refuses_a_volume_beyond_attach_limit(tmp_path: Path) -> None:
    out = tmp_path / "aws.toml"
    import_catalog("aws", aws_files(tmp_path), out, load_catalog("aws"))
    cat = load_catalog_file(str(out))
    lay = Layout(members=41, volume=Volume(cloud="aws", type="gp3", size_gb=100))
    with pytest.raises(InputError, match="at most 40 volumes"):
        predict(lay, Instance(cloud="aws", shape="r8i.2xlarge"), Workload(), cat)


def test_lab_takes_the_imported_catalog_of_a_plan(tmp_path: Path) -> None:
    """A plan made on an imported catalog: lab --plan resolves it with --catalog PATH, and says how without it."""
    from blockfit.lab.run import resolve
    from blockfit.plan import make_plan
    from blockfit.schema import Requirements
    from support.lab import lab_request

    out = tmp_path / "aws.toml"
    import_catalog("aws", aws_files(tmp_path), out, load_catalog("aws"))
    cat = load_catalog_file(str(out))
    plan = make_plan(Requirements(cloud="aws", capacity_gb=1000, target_iops=14000, levels=["gp3"],
                                  instance_shape="r8i.2xlarge"), cat)
    saved = tmp_path / "plan.json"
    saved.write_text(plan.model_dump_json())
    subject = resolve(lab_request(plan=saved, catalog=str(out)))
    assert subject.instance.shape == "r8i.2xlarge"
    assert 14000 <= subject.stripe.max_iops <= 15000          # the imported instance cap (15,000) holds
    assert subject.cat is cat
    with pytest.raises(InputError, match="r8i.2xlarge.*catalog import"):
        resolve(lab_request(plan=saved))


def test_the_lab_builds_a_plan_of_an_imported_catalog_on_that_catalog(tmp_path: Path) -> None:
    """The lab runs `blockfit build --plan` for its guest; a plan made on an imported catalog is derived again on
    that file (--catalog goes along), not refused for naming no shipped version."""
    from blockfit.catalog import is_shipped
    from blockfit.errors import LabFailed
    from blockfit.lab.buildscripts import builder, write_build_scripts
    from blockfit.plan import make_plan
    from blockfit.schema import Requirements

    out = tmp_path / "aws.toml"
    import_catalog("aws", aws_files(tmp_path), out, load_catalog("aws"))
    cat = load_catalog_file(str(out))
    assert not is_shipped(cat) and is_shipped(load_catalog("aws"))
    plan = make_plan(Requirements(cloud="aws", capacity_gb=1000, target_iops=14000, levels=["gp3"],
                                  instance_shape="r8i.2xlarge"), cat)
    exe = builder()
    assert exe is not None
    devices = [f"/dev/vd{c}" for c in "bcdefgh"[:plan.candidates[0].layout_detail.members]]
    write_build_scripts(exe, tmp_path, plan.model_dump_json(), "lvm", "xfs", devices, cat=cat)
    assert (tmp_path / "build" / "20-lvm.sh").is_file()
    with pytest.raises(LabFailed, match="catalog"):
        write_build_scripts(exe, tmp_path, plan.model_dump_json(), "lvm", "xfs", devices, name="without")


# ---- issue 36 part 8: figures out of bounds are refused at import and at load; plan never divides by zero ----

def _oci_import(tmp: Path, capsys: pytest.CaptureFixture[str], *shapes: dict) -> tuple[int, str, Path]:
    out = tmp / "oci.toml"
    code, _stdout, err = run(["catalog", "import", "--cloud", "oci", write(tmp / "shapes.json", oci_shapes(*shapes)),
                              "--out", str(out)], capsys)
    return code, err, out


@pytest.mark.parametrize("shape, field", [
    (oci_flex("VM.Standard.Z9.Flex", (-1, 8), 1, 100), "ocpus_min"),
    (oci_flex("VM.Standard.Z9.Flex", (0, 8), 1, 100), "ocpus_min"),
    (oci_flex("VM.Standard.Z9.Flex", (1, 8), 1e-320, 100), "default-per-ocpu-in-gbps"),
    (oci_flex("VM.Standard.Z9.Flex", (1, 8), 1, 1e-320), "max-in-gbps"),
    (oci_fixed("VM.Standard.Z9.4", 4, 60, float("nan")), "networking-bandwidth-in-gbps"),
    (oci_fixed("VM.Standard.Z9.4", 4, 60, float("inf")), "networking-bandwidth-in-gbps"),
    (oci_fixed("VM.Standard.Z9.4", -4, 60, 4), "ocpus"),
    (oci_fixed("VM.Standard.Z9.4", 4, 60, 0.0), "networking-bandwidth-in-gbps"),
])
def test_import_refuses_a_figure_out_of_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: dict,
                                               field: str) -> None:
    code, err, out = _oci_import(tmp_path, capsys, shape)
    assert code == 2 and len(err.strip().splitlines()) == 1 and field in err, err
    assert "Traceback" not in err and not out.exists() and not list(tmp_path.glob(".oci.toml*"))


@pytest.mark.parametrize("entry, field, value", [
    ("shapes", "gbps_per_ocpu", 1e-320), ("shapes", "gbps_per_ocpu", 0.0), ("shapes", "ocpus_min", -2.0),
    ("shapes", "gbps_max", float("nan")), ("shapes", "iops", 0.0), ("shapes", "mbps", float("inf")),
    ("volume_types", "base_latency_ms", 1e-320), ("volume_types", "min_gb", 0.0),
    ("compute_prices", "per_ocpu_hour", -0.01), ("compute_prices", "per_gb_hour", 1e-320),
])
def test_catalog_file_out_of_bounds_is_one_line_and_plan_never_divides_by_zero(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str, field: str, value: float) -> None:
    """A hand-edited --catalog PATH: the same bounds hold when it loads, so plan and model never see the figure."""
    code, err, out = _oci_import(tmp_path, capsys, oci_flex("VM.Standard.Z9.Flex", (1, 8), 1, 100))
    assert code == 0, err
    raw = tomllib.loads(out.read_text())
    name = {"shapes": "VM.Standard.Z9.Flex", "volume_types": "block", "compute_prices": "VM.Standard.E5.Flex"}[entry]
    raw[entry][name][field] = value if math.isfinite(value) else 1234.5   # TOML's nan and inf, written below
    edited = tmp_path / "edited.toml"
    edited.write_text(dumps(raw, "edited").replace(f"{field} = 1234.5", f"{field} = {value}"))
    for args in (["plan", "--capacity", "1T", "--target-iops", "20000", "--instance", "VM.Standard.Z9.Flex"],
                 ["model", "--layout", "2x1T@balanced", "--instance", "VM.Standard.Z9.Flex:2"],
                 ["catalog", "show"]):
        code, _stdout, err = run([*args, "--catalog", str(edited)], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, (args, err)
        assert field in err and "Traceback" not in err, (args, err)


def test_plan_and_model_at_the_smallest_figures_a_catalog_takes(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Network at its floor (0.1 Gbps, one OCPU): the caps it scales are tiny but not zero, so plan says what it
    found (a plan or 'infeasible') instead of dividing by a cap that rounded to zero."""
    code, err, out = _oci_import(tmp_path, capsys, oci_flex("VM.Standard.Z9.Flex", (1, 8), 0.1, 0.1),
                                 oci_fixed("VM.Standard.Z9.4", 1, 60, 0.1))
    assert code == 0, err
    for args in (["plan", "--capacity", "1T", "--target-iops", "20000", "--instance", "VM.Standard.Z9.Flex"],
                 ["plan", "--capacity", "100G", "--instance", "VM.Standard.Z9.4"],
                 ["model", "--layout", "2x1T@balanced", "--instance", "VM.Standard.Z9.Flex:1"],
                 ["model", "--layout", "1x50G@lower-cost", "--instance", "VM.Standard.Z9.4"]):
        code, _stdout, err = run([*args, "--catalog", str(out)], capsys)
        assert code in (0, 3) and "Traceback" not in err, (args, code, err)


def test_azure_import_reads_a_host_cache_and_model_applies_it(tmp_path: Path) -> None:
    """A size with CachedDiskBytes gets its cached limits (bytes / 2^20 as the uncached ones); one without (a v5
    size, whose CombinedTempDiskAndCached figures are its temp disk's) gets none."""
    files = [write(tmp_path / "skus.json", azure_skus(
        azure_sku("Standard_D8s_v3", 8, 32, 12800, 192, 16, cached=(16000, 128, 200)),
        azure_sku("Standard_D8ds_v5", 8, 32, 12800, 290, 16)))]
    out = tmp_path / "azure.toml"
    import_catalog("azure", files, out, load_catalog("azure"))
    cat = load_catalog_file(out)
    d3 = cat.shapes["Standard_D8s_v3"]
    assert (d3.iops_cached, d3.mbps_cached, d3.cache_gb) == (16000, 128, 200)
    assert cat.cite(d3, "iops_cached").id.startswith("IMPORT-")
    assert cat.shapes["Standard_D8ds_v5"].iops_cached is None
    lay = parse_layout("2x1T@premium-v1", "azure", cat).model_copy(update={"host_caching": "readonly"})
    pred = predict(lay, Instance(cloud="azure", shape="Standard_D8s_v3"), Workload(), cat)
    assert pred.max_mbps == pytest.approx(128, rel=1e-3)   # reads only: the cached MB/s binds
