"""Azure Standard SSD (E-tiers) and Standard HDD (S-tiers): a disk performs and bills as the tier its size rounds up
to, E1-E30 burst on credits, the VM's uncached cap is the one its size page gives for Premium SSD, and the CLI takes
`@standard-ssd` / `@standard-hdd` like the Premium SSD (v1) tiers."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from blockfit.catalog import catalog_from_toml, load_catalog, raw_catalog
from blockfit.model import predict
from blockfit.model.kinds.azure import tier_for
from blockfit.plan import make_plan
from blockfit.schema import Prediction, Requirements, Workload
from blockfit.specs import parse_instance, parse_layout

CAT = load_catalog("azure")


def azure(spec: str, vm: str = "Standard_E16s_v5", **wl: int) -> Prediction:
    return predict(parse_layout(spec, "azure", CAT), parse_instance(vm, "azure", CAT), Workload(**wl), CAT,
                   with_curve=False)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("key", ["standard-ssd", "standard-hdd"])
def test_every_tier_performs_and_bills_as_itself(key: str) -> None:
    """Each tier's own size gives that tier's caps and its price, cited; one GiB more is the next tier."""
    vt = CAT.volume_types[key]
    prices = {p["tier"]: p["price"] for p in vt.price_tiers}
    assert [t["name"] for t in vt.tiers] == list(prices)        # every tier priced, in order
    sizes = [t["size_gb"] for t in vt.tiers]
    assert sizes == sorted(sizes) and sizes[-1] == vt.max_gb
    for tier, bigger in zip(vt.tiers, [*vt.tiers[1:], None], strict=True):
        p = azure(f"1x{tier['size_gb']}G@{key}", vm="Standard_E104is_v5", small_io=8192, large_io=1024 * 1024)
        assert p.max_iops == tier["iops"] and p.max_mbps == pytest.approx(tier["mbps"], abs=0.05)
        assert p.cost.storage == pytest.approx(prices[tier["name"]], abs=0.005)
        assert p.cost.items[0].source.id == "AZ-PRICE-API-COPY-2026-09-23"
        if bigger is not None and tier["size_gb"] + 1 <= vt.max_gb:
            assert tier_for(vt, tier["size_gb"] + 1)["name"] == bigger["name"]


def test_standard_ssd_credit_burst_e1_to_e30_only() -> None:
    """E20 bursts to 600 / 150, E30 to 1,000 / 250 for 30 minutes from full credits; E40 does not burst."""
    e20, e30, e40 = azure("1x512G@standard-ssd"), azure("1x1T@standard-ssd"), azure("1x2T@standard-ssd")
    for p, iops, mbps in ((e20, 600, 150), (e30, 1000, 250)):
        assert p.burst is not None
        disk = [b for b in p.burst.buckets if b.mechanism == "azure_disk"]
        assert {(b.burst_iops or b.burst_mbps) for b in disk} == {iops, mbps}
        assert all(b.full_s == pytest.approx(1800) for b in disk)
    assert e40.burst is None or not [b for b in e40.burst.buckets if b.mechanism == "azure_disk"]
    assert not [w for w in e40.warnings if "bursts to" in w and "E40" in w]


def test_size_rounds_up_to_the_tier_and_says_so() -> None:
    p = azure("1x100G@standard-ssd")
    assert p.max_iops == 500 and p.cost.storage == pytest.approx(9.6)          # an E10, 128 GiB
    assert any("performs and bills as E10" in w for w in p.warnings)
    hdd = azure("1x20G@standard-hdd")
    assert hdd.cost.items[0].item.startswith("S4 disk")                  # under 32 GiB: an S4


def test_the_vm_cap_is_the_premium_ssd_one() -> None:
    """Eight E60 disks (2,000 IOPS / 400 MB/s each) on E16s_v5 (25,600 / 600): the VM's uncached cap binds the MB/s.
    On an Ebsv5 size over NVMe the Premium SSD cap of the NVMe interface holds (33,000 / 930 on E8bs_v5), not the
    Premium SSD v2 / Ultra one (44,200 / 1,200)."""
    p = azure("8x8T@standard-ssd", large_io=1024 * 1024)
    assert p.max_mbps == pytest.approx(600) and p.mbps_limited_by == "instance_mbps"
    nvme = azure("8x8T@standard-ssd", vm="Standard_E8bs_v5/nvme")
    assert (nvme.instance_iops_cap, nvme.instance_mbps_cap) == (33_000, 930)
    scsi = azure("8x8T@standard-hdd", vm="Standard_E8bs_v5")
    assert (scsi.instance_iops_cap, scsi.instance_mbps_cap) == (24_200, 680)


def test_io_accounting_counts_1m_as_four_on_ssd_not_on_hdd() -> None:
    """Standard SSD counts I/Os above 256 KiB as several (E80's 6,000 IOPS are 1,500 of 1 MiB); Standard HDD's caps
    carry no accounting size (S80's 2,000 IOPS stay 2,000 at 1 MiB)."""
    def iops_row(spec: str) -> float:
        p = azure(spec, vm="Standard_E104is_v5", small_io=1024 * 1024)
        return next(r.iops for r in p.limits if r.name == "volume_iops_cap")

    assert iops_row("1x32767G@standard-ssd") == pytest.approx(6000 / 4)
    assert iops_row("1x32767G@standard-hdd") == pytest.approx(2000)


def test_plans_consider_standard_ssd_and_leave_hdd_out_unless_asked() -> None:
    req = Requirements(cloud="azure", capacity_gb=512, target_iops=400, target_mbps=50,
                       instance_shape="Standard_E16s_v5")
    types = {c.layout_detail.volume.type for c in make_plan(req, CAT).candidates}
    assert "standard-ssd" in types and "standard-hdd" not in types
    asked = make_plan(req.model_copy(update={"allow_hdd": True}), CAT)
    assert "standard-hdd" in {c.layout_detail.volume.type for c in asked.candidates}


def test_cli_model_standard_ssd_json_and_alias() -> None:
    out = run("model", "--cloud", "azure", "--layout", "1x1T@standard-ssd", "--instance", "Standard_D16as_v4",
              "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["layout"] == "1x1T@standard-ssd" and data["max_iops"] == 500
    assert data["burst"]["max_iops"] == 1000
    alias = run("model", "--cloud", "azure", "--layout", "1x1T@StandardSSD_LRS", "--instance", "Standard_E16s_v5",
                "--json")
    assert alias.returncode == 0 and json.loads(alias.stdout)["layout"] == "1x1T@standard-ssd"


def test_cli_standard_hdd_too_large_is_one_line_exit_2() -> None:
    out = run("model", "--cloud", "azure", "--layout", "1x40T@standard-hdd", "--instance", "Standard_E16s_v5")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "32767" in out.stderr.replace(",", "")


def test_a_catalog_naming_an_unknown_cap_type_is_refused() -> None:
    raw = copy.deepcopy(raw_catalog(CAT))
    raw["volume_types"]["standard-ssd"]["vm_caps_as"] = "premium-v9"
    with pytest.raises(ValueError, match="premium-v9"):
        catalog_from_toml(raw, "<hostile>")
