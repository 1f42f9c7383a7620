"""Issue 38 follow-up: GCP per-VM Hyperdisk Balanced caps, for the series a citable copy of Google's table covers.

Only C4D's rows were found (a third-party copy of Google's table, GCP-HDB-VM-C4D-3P); C3, C3D, C4, C4A, N4, M3 and
M4 keep "instance cap unknown" (no copy found; see the source's note). Before, every C4D Hyperdisk Balanced layout
was planned with the instance cap not applied: `plan --capacity 3T --target-iops 40000 --target-mbps 1000
--instance c4d-highmem-16` exited 3 ("instance cap unknown for hyperdisk-balanced")."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from blockfit.catalog import catalog_from_toml, load_catalog, raw_catalog
from blockfit.model import predict
from blockfit.model.instance import instance_caps
from blockfit.plan import make_plan
from blockfit.schema import Instance, Requirements, Workload
from blockfit.specs import parse_instance, parse_layout

GCP = load_catalog("gcp")
SOURCE = "GCP-HDB-VM-C4D-3P"
MIB = 1.048576   # MB per MiB: the catalog keeps Google's MiB/s, the model works in MB/s
C4D_TYPES = [f"c4d-{family}-{v}" for family, mf in GCP.shapes["c4d"].machine_families.items() for v in mf.vcpus]


def quoted() -> dict[int, tuple[int, int]]:
    """The source note's rows, 'c4d-*-N IOPS / MiB/s', as vCPUs -> (IOPS, MiB/s); the bare-metal row is not a VM."""
    note = GCP.sources[SOURCE].note or ""
    rows = re.findall(r"c4d-\*-(\d+) ([\d,]+) / ([\d,]+)", note)
    return {int(v): (int(i.replace(",", "")), int(m.replace(",", ""))) for v, i, m in rows}


def hdb(layout: str, vm: str):
    return predict(parse_layout(layout, "gcp", GCP), parse_instance(vm, "gcp", GCP), Workload(), GCP,
                   with_curve=False)


def test_the_source_quotes_a_row_for_every_c4d_size_the_catalog_sells():
    rows = quoted()
    assert set(rows) == {v for mf in GCP.shapes["c4d"].machine_families.values() for v in mf.vcpus}
    assert rows[16] == (75_000, 1_200) and rows[384] == (320_000, 12_500)   # spot check against the copy


@pytest.mark.parametrize("vm", C4D_TYPES)
def test_every_c4d_machine_type_has_the_quoted_caps_cited_to_their_own_source(vm):
    vcpus = int(vm.rsplit("-", 1)[1])
    iops, mib = quoted()[vcpus]
    caps = instance_caps(GCP, Instance(cloud="gcp", shape=vm), "hyperdisk-balanced")
    assert caps.iops == iops and caps.mbps == pytest.approx(mib * MIB)
    assert caps.iops_cite is not None and caps.iops_cite.id == SOURCE and caps.mbps_cite == caps.iops_cite
    assert caps.iops_cite.url == GCP.sources[SOURCE].url
    # the volume count beside it keeps the source that gives it
    assert caps.attach_cite is not None and caps.attach_cite.id == "GCP-GP"
    assert caps.direction == "combined" and not caps.warnings


@settings(max_examples=25, deadline=None)
@example(vm="c4d-standard-8", members=4, iops=20_000, mib=400)   # 80,000 IOPS / 1,600 MiB/s over 50,000 / 800
@given(vm=st.sampled_from(C4D_TYPES), members=st.integers(1, 4), iops=st.integers(3_000, 160_000),
       mib=st.integers(140, 2_400))
def test_a_c4d_prediction_is_held_to_the_vm_cap_and_names_it(vm, members, iops, mib):
    iops = max(iops, 4 * mib)   # Hyperdisk Balanced: at most 1 MiB/s per 4 provisioned IOPS (not what is tested)
    p = hdb(f"{members}x2T@hyperdisk-balanced:{iops}:{mib}", vm)
    cap_iops, cap_mib = quoted()[int(vm.rsplit("-", 1)[1])]
    assert p.instance_iops_cap == cap_iops
    assert p.max_iops <= min(members * iops, cap_iops) + 0.5
    # at the workload's 8 KiB, the volumes' own MiB/s also bounds their IOPS (128 per MiB/s)
    if members * iops > cap_iops and members * mib * 128 > cap_iops:
        assert p.max_iops == pytest.approx(cap_iops, abs=0.5)
        assert p.iops_limited_by == "instance_iops"
        assert holding(p, "instance_iops").startswith("per-VM hyperdisk-balanced IOPS (c4d")
    assert p.max_mbps <= cap_mib * MIB + 0.5
    if members * mib > cap_mib:
        assert p.mbps_limited_by == "instance_mbps"
        assert holding(p, "instance_mbps").startswith("per-VM hyperdisk-balanced throughput (c4d")


def holding(p, name: str) -> str:
    """The description of the limit `name`, which must cite the C4D source."""
    limit = next(lim for lim in p.limits if lim.name == name)
    assert [s.id for s in limit.sources] == [SOURCE]
    return limit.description


def req(iops: float, mbps: float, vm: str) -> Requirements:
    return Requirements(cloud="gcp", capacity_gb=3072, target_iops=iops, target_mbps=mbps, instance_shape=vm)


def test_the_issue_case_on_c4d_is_feasible_priced_and_rests_on_the_known_cap():
    plan = make_plan(req(40_000, 1_000, "c4d-highmem-16"), GCP)
    assert plan.feasible and plan.candidates
    first = plan.candidates[0]
    assert first.cap_known and first.meets_targets
    assert first.prediction.instance_iops_cap == 75_000
    assert first.prediction.instance_mbps_cap == pytest.approx(1_200 * MIB)
    assert first.cost.storage is not None and first.cost.compute is not None and first.cost.total is not None
    assert first.max_iops >= 40_000 and first.max_mbps >= 1_000


def test_above_the_c4d_cap_the_plan_is_infeasible_on_the_named_cap_not_an_unknown_one():
    """c4d-*-16: 75,000 IOPS per VM. 80,000 was "met with the cap not applied" before; now no layout meets it."""
    plan = make_plan(req(80_000, 500, "c4d-highmem-16"), GCP)
    assert not plan.feasible and not plan.candidates
    assert plan.infeasible is not None
    assert "instance cap unknown" not in plan.infeasible.reason
    best = plan.infeasible.best
    assert best is None or (best.cap_known and best.max_iops <= 75_000 + 0.5)


def shipped_raw() -> dict:
    return copy.deepcopy(raw_catalog(GCP))


@pytest.mark.parametrize(("edit", "message"), [
    (lambda c4d: c4d.__setitem__("tier_sources", {"hyperdisk-balanced": "NO-SUCH"}), "unknown source 'NO-SUCH'"),
    (lambda c4d: c4d.__setitem__("tier_sources", {"pd-ssd": SOURCE}), "does not attach 'pd-ssd'"),
    (lambda c4d: c4d["tiers"][3].pop("hyperdisk-balanced"), "every tier must give hyperdisk-balanced"),
    (lambda c4d: c4d["tiers"][0]["hyperdisk-balanced"].pop("mbps"), "every tier must give hyperdisk-balanced"),
    (lambda c4d: c4d["tiers"][0]["hyperdisk-balanced"].__setitem__("iops", "many"), "each at least 1"),
])
def test_a_per_type_source_that_does_not_hold_is_refused_when_the_catalog_loads(edit, message):
    raw = shipped_raw()
    edit(raw["shapes"]["c4d"])
    with pytest.raises(ValueError, match=re.escape(message)):
        catalog_from_toml(raw)


def test_the_shipped_catalog_loads_with_its_per_type_source():
    assert catalog_from_toml(shipped_raw()).shapes["c4d"].tier_sources == {"hyperdisk-balanced": SOURCE}
