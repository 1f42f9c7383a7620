"""Issue 14: total cost (storage + compute), OCPU bounds, redundancy and the mix, in the model and the plan.

Expected dollars are worked out here from the catalog's unit prices (not copied from a run): a month is 730 h,
OCI E3/E4 compute is $0.025 per OCPU-hour plus $0.0015 per GB-hour of memory (at least 1 GB per OCPU), block
storage $0.0255 per GB-month plus $0.0017 per VPU per GB-month.
"""

import copy
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from blockfit.catalog import catalog_from_toml, load_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.model.compute import compute_cost
from blockfit.model.instance import machine_type
from blockfit.plan import make_plan
from blockfit.schema import Plan, Requirements, Workload
from blockfit.specs import parse_instance, parse_layout

OCI = load_catalog("oci")
DATA = Path(__file__).parents[2] / "src" / "blockfit" / "catalog" / "data"
E3_OCPU_MONTH = (0.025 + 1 * 0.0015) * 730          # one more OCPU with its minimum 1 GB, per month
BALANCED_GB_MONTH = 0.0255 + 10 * 0.0017


def part3(ocpus=12.0, **kw):
    return make_plan(Requirements(cloud="oci", capacity_gb=4608, target_iops=150_000, small_io=8192,
                                  instance_shape="VM.Standard.E3.Flex", instance_ocpus=ocpus, **kw), OCI)


# ---- compute prices ---------------------------------------------------------------------------------

def test_compute_cost_by_hand_and_unknown_without_a_price():
    c = compute_cost(OCI, "VM.Standard.E3.Flex", 12)
    assert c.memory_gb == 12 and c.monthly == pytest.approx(12 * E3_OCPU_MONTH, abs=0.01)
    c64 = compute_cost(OCI, "VM.Standard.E3.Flex", 12, memory_gb=64)
    assert c64.monthly == pytest.approx((12 * 0.025 + 64 * 0.0015) * 730, abs=0.01)
    assert compute_cost(OCI, "VM.Standard.E3.Flex", 12, memory_gb=4).memory_gb == 12   # raised to the minimum
    azure = load_catalog("azure")
    unpriced = azure.model_copy(update={"compute_prices": {}})                            # no sourced price
    assert compute_cost(azure, "Standard_M16bs_v3", None).monthly is not None
    assert compute_cost(unpriced, "Standard_M16bs_v3", None).monthly is None
    aws = compute_cost(load_catalog("aws"), "m6i.16xlarge", None)
    assert aws.monthly == pytest.approx(3.072 * 730, abs=0.01) and aws.region == "us-east-1"
    assert compute_cost(load_catalog("gcp"), "n2", 16).monthly is None                   # no memory minimum sourced
    assert compute_cost(load_catalog("gcp"), "n2", 16, 64).monthly == pytest.approx(
        (16 * 0.031611 + 64 * 0.004237) * 730, abs=0.01)


def test_every_compute_price_cites_a_dated_source_and_unknown_shapes_are_refused():
    for cloud in ("oci", "aws", "azure", "gcp"):
        cat = load_catalog(cloud)
        assert cat.compute_prices, cloud
        for name, price in cat.compute_prices.items():
            # a shape, or a GCP machine type Google prices apart from its series (m4-ultramem-224)
            assert (name in cat.shapes or machine_type(cat, name) is not None) and price.region
            assert all(sid in cat.sources for sid in [price.source, *price.sources.values()])
    raw = tomllib.loads((DATA / "oci" / "2026-09-05.toml").read_text())
    bad = copy.deepcopy(raw)
    bad["compute_prices"]["VM.Nowhere.Flex"] = bad["compute_prices"]["VM.Standard.E4.Flex"]
    with pytest.raises(ValueError, match="VM.Nowhere.Flex"):
        catalog_from_toml(bad)
    bad = copy.deepcopy(raw)
    bad["compute_prices"]["VM.Standard.E4.Flex"]["source"] = "NOWHERE"
    with pytest.raises(ValueError, match="NOWHERE"):
        catalog_from_toml(bad)


def test_catalog_show_lists_compute_prices_with_sources():
    r = subprocess.run([sys.executable, "-m", "blockfit", "catalog", "show", "oci"], capture_output=True, text=True,
                       env={"COLUMNS": "250", "PATH": "/usr/bin:/bin"}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "compute prices" in r.stdout and "0.025" in r.stdout and "OCI-PRICE-COMPUTE" in r.stdout


# ---- Part 3 with compute priced ----------------------------------------------------------------------

def test_part3_fixed_12_ocpus_ties_toward_fewer_volumes_and_says_what_more_ocpus_move():
    """Part 3's 8x576G (175,781 IOPS, bound by the instance network) and 6x768G (150,000, the volumes' caps) cost
    the same: a tie, which the fewest volumes win (issue 22); 8x576G is listed among the candidates at that price,
    and the front, which must hold the recommendation, leaves the tie out."""
    plan = part3()
    first = plan.candidates[0]
    assert first.layout == "6x768G@balanced" and first.instance == "VM.Standard.E3.Flex:12"
    assert first.limited_by(plan.requirements) == "volume_iops_cap" and first.max_iops == 150_000
    assert first.cost.storage == pytest.approx(4608 * BALANCED_GB_MONTH, abs=0.01)
    assert first.cost.compute == pytest.approx(12 * E3_OCPU_MONTH, abs=0.01)
    assert first.ranked_cost == pytest.approx(first.cost.storage + first.cost.compute, abs=0.01)
    part3_answer = next(c for c in plan.candidates if c.layout == "8x576G@balanced")
    front = {c.layout for c in plan.pareto}
    assert first.layout in front and part3_answer.layout not in front
    assert part3_answer.ranked_cost == first.ranked_cost and part3_answer.max_iops == pytest.approx(175_781, abs=1)
    note = next(n for n in plan.notes if n.startswith("From "))
    at = int(note.split()[1])
    above = predict(first.layout_detail, parse_instance(f"VM.Standard.E3.Flex:{at}", "oci", OCI), Workload(), OCI,
                    with_curve=False)
    below = predict(first.layout_detail, parse_instance(f"VM.Standard.E3.Flex:{at - 1}", "oci", OCI), Workload(),
                    OCI, with_curve=False)
    assert above.mbps_limited_by.startswith("volume_") and below.mbps_limited_by == "instance_mbps"
    assert f"({above.max_mbps:,.0f} MB/s)" in note


def test_part3_total_beats_one_big_volume_on_the_same_shape_in_dollars():
    plan = part3(ocpus=None)
    first = plan.candidates[0]
    assert first.layout == "6x768G@balanced"   # ties 8x576G at 11 OCPUs: the fewest volumes win
    # 150,000 x 8 KiB = 1,229 MB/s needs 10.24 Gbps: 11 OCPUs at 120 MB/s per Gbps
    assert first.instance_detail.ocpus == 11 and first.cost.compute == pytest.approx(11 * E3_OCPU_MONTH, abs=0.01)
    single = next(n for n in plan.notes if n.startswith("The cheapest single volume"))
    # one volume needs UHP (60 VPU/GB for 150,000 IOPS), and UHP needs 16 OCPUs
    uhp_total = 4608 * (0.0255 + 60 * 0.0017) + 16 * E3_OCPU_MONTH
    assert "1x4.5T@60vpu" in single and ":16" in single and f"${uhp_total:,.2f}" in single
    assert first.cost.total < uhp_total
    assert f"${uhp_total - first.cost.total:,.2f} more" in single


def test_more_ocpus_not_worth_it_picks_the_smallest_sufficient_shape():
    req = Requirements(cloud="oci", capacity_gb=1000, target_iops=60_000, instance_shape="VM.Standard.E4.Flex")
    first = make_plan(req, OCI).candidates[0]
    lay, n = first.layout_detail, first.instance_detail.ocpus
    assert first.max_iops >= 60_000
    short = predict(lay, parse_instance(f"VM.Standard.E4.Flex:{n - 1:g}", "oci", OCI), Workload(), OCI,
                    with_curve=False)
    assert short.max_iops < 60_000            # one OCPU fewer does not carry the target: n is the smallest
    assert n == 5                             # 60,000 x 8 KiB = 492 MB/s > 4 x 120 MB/s
    bigger = predict(lay, parse_instance(f"VM.Standard.E4.Flex:{n + 8:g}", "oci", OCI), Workload(), OCI,
                     with_curve=False)
    assert bigger.cost.total > first.cost.total


def test_ocpu_bounds_and_memory_in_the_plan():
    plan = part3(ocpus=None, ocpus_min=16, memory_gb=64)
    first = plan.candidates[0]
    assert first.instance_detail.ocpus == 16
    assert first.cost.compute == pytest.approx((16 * 0.025 + 64 * 0.0015) * 730, abs=0.01)
    assert not part3(ocpus=None, ocpus_max=8).feasible


# ---- redundancy and the mix, checked by hand -----------------------------------------------------------

def test_redundancy_by_hand_instance_bound_writes_double():
    lay = parse_layout("8x576G@balanced", "oci", OCI).model_copy(update={"redundancy": "normal", "manager": "asm"})
    inst = parse_instance("VM.Standard.E3.Flex:12", "oci", OCI)
    none = predict(lay.model_copy(update={"redundancy": "none"}), inst, Workload(read_pct=0), OCI,
                   with_curve=False)
    normal = predict(lay, inst, Workload(read_pct=0), OCI, with_curve=False)
    # all writes, two copies each: the instance's 1,440 MB/s carries 720 MB/s of logical writes
    assert normal.max_mbps == pytest.approx(1440 / 2, abs=0.1)
    assert normal.max_iops == pytest.approx(none.max_iops / 2, rel=1e-3)
    assert normal.redundancy_note == "writes x 2 at normal redundancy exhaust the instance's 1,440 MB/s"
    assert normal.usable_gb == 4608 / 2 and normal.write_amplification == 2


def test_redundancy_by_hand_volume_bound_mixed_high():
    lay = parse_layout("3x500G@balanced", "oci", OCI).model_copy(update={"redundancy": "high", "manager": "asm"})
    p = predict(lay, parse_instance("VM.Standard.E4.Flex:40", "oci", OCI), Workload(read_pct=70), OCI,
                with_curve=False)
    # 3 x 25,000 IOPS of volume I/O; 0.7 reads + 0.3 writes x 3 = 1.6 volume I/Os per I/O
    assert p.write_amplification == pytest.approx(1.6)
    assert p.max_iops == pytest.approx(75_000 / 1.6, rel=1e-3)
    assert p.redundancy_note.startswith("writes x 3 at high redundancy exhaust the volumes'")
    assert p.usable_gb == pytest.approx(1500 / 3)


@pytest.mark.parametrize("spec,redundancy,least", [("1x1T@balanced", "normal", 2), ("2x500G@balanced", "high", 3),
                                                   ("1x1T@balanced", "raid10", 2)])
def test_a_mirror_on_fewer_volumes_than_copies_is_refused_in_model_and_plan(spec, redundancy, least):
    """ASM keeps each copy in another failure group (one per volume here), mdadm RAID10 each leg on another device:
    a 1-volume normal-redundancy layout cannot be built. model predicted it and plan recommended it (the tie rule
    prefers fewer volumes)."""
    lay = parse_layout(spec, "oci", OCI).model_copy(update={"redundancy": redundancy})
    with pytest.raises(InputError, match=f"expected at least {least} volumes"):
        predict(lay, parse_instance("VM.Standard.E4.Flex:16", "oci", OCI), Workload(), OCI)
    plan = make_plan(Requirements(cloud="oci", capacity_gb=500, target_iops=10_000, redundancy=redundancy,
                                  instance_shape="VM.Standard.E4.Flex", instance_ocpus=16), OCI)
    assert all(c.layout_detail.members >= least for c in plan.candidates + plan.pareto)
    with pytest.raises(InputError, match=f"expected at least {least}"):
        make_plan(Requirements(cloud="oci", capacity_gb=500, redundancy=redundancy, max_volumes=least - 1,
                               instance_shape="VM.Standard.E4.Flex", instance_ocpus=16), OCI)


def test_write_heavy_plan_at_normal_redundancy_buys_twice_the_write_capacity():
    base = dict(cloud="oci", capacity_gb=1000, target_iops=40_000, read_pct=0,
                instance_shape="VM.Standard.E4.Flex", instance_ocpus=40.0)
    none = make_plan(Requirements(**base), OCI).candidates[0]
    normal = make_plan(Requirements(**base, redundancy="normal", manager="asm"), OCI).candidates[0]
    assert normal.layout_detail.redundancy == "normal" and normal.layout_detail.total_gb >= 2000
    assert normal.max_iops >= 40_000
    # the volumes it buys carry twice the writes: raw IOPS of the layout >= 2 x the target
    raw = min(r.iops for r in normal.prediction.limits if r.name.startswith("volume_")) * 2
    assert raw >= 80_000
    raw_none = min(r.iops for r in none.prediction.limits if r.name.startswith("volume_"))
    assert raw / raw_none == pytest.approx(2, rel=0.25)


# ---- CLI ------------------------------------------------------------------------------------------------



def test_cli_plan_json_carries_costs_mix_and_redundancy(inproc_cli):
    r = inproc_cli("plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex", "--target-iops",
            "30000", "--read-pct", "70", "--redundancy", "normal", "--memory", "64G", "--ocpus", "4-32", "--json")
    assert r.returncode == 0, r.stderr
    plan = Plan.model_validate_json(r.stdout)
    first = plan.candidates[0]
    assert plan.requirements.read_pct == 70 and plan.requirements.redundancy == "normal"
    assert plan.requirements.manager == "asm" and plan.requirements.memory_gb == 64
    assert first.cost.total == pytest.approx(first.cost.storage + first.cost.compute, abs=0.01)
    assert first.prediction.redundancy == "normal" and first.prediction.workload.read_pct == 70
    assert 4 <= first.instance_detail.ocpus <= 32 and first.cost.compute_detail.memory_gb == 64


def test_cli_model_shows_storage_compute_total(inproc_cli):
    r = inproc_cli("model", "--layout", "8x576G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--read-pct", "0",
            "--redundancy", "normal", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["cost"]["total"] == pytest.approx(4608 * BALANCED_GB_MONTH + 12 * E3_OCPU_MONTH, abs=0.02)
    assert data["redundancy"] == "normal" and data["max_mbps"] == pytest.approx(720, abs=0.1)
    r = inproc_cli("model", "--layout", "8x576G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--redundancy",
                   "normal", "--read-pct", "50")
    text = " ".join(r.stdout.split())
    assert "compute" in text and "= $427.98 per month" in text and "writes x 2 at normal redundancy" in text


@pytest.mark.parametrize("args,needle", [
    (["--target-iops", "nan"], "--target-iops"), (["--target-iops", "inf"], "--target-iops"),
    (["--target-iops", "0"], "--target-iops"), (["--target-mbps", "-1"], "--target-mbps"),
    (["--levels", ","], "--levels"), (["--instance", "VM.Standard.E4.Flex:12.5"], "whole"),
    (["--read-pct", "101"], "--read-pct"), (["--read-pct", "-1"], "--read-pct"),
    (["--instance", "VM.Standard.E4.Flex", "--ocpus", "24-8"], "MIN <= MAX"),
    (["--instance", "VM.Standard.E4.Flex", "--ocpus", "2.5-8"], "--ocpus"),
    (["--instance", "VM.Standard.E4.Flex", "--ocpus", "70-80"], "no count in that range"),
    (["--redundancy", "raid5"], "--redundancy"), (["--redundancy", "normal", "--manager", "lvm"], "asm"),
    (["--memory", "lots"], "--memory"), (["--ocpus", "4-8"], "open OCPU count"),
])
def test_cli_plan_rejects_nonsense(args, needle, inproc_cli):
    base = {"--cloud": "oci", "--capacity": "1T", "--instance": "VM.Standard.E4.Flex:8", "--target-iops": "10000"}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    r = inproc_cli("plan", *[x for kv in base.items() for x in kv])
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
