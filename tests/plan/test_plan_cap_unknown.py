"""Known before unknown, for caps: a layout whose per-VM cap is unknown (GCP Hyperdisk: Google's per-VM table is not
in the catalog, so the cap is not applied) is never recommended as if the VM had none.

Before: `--instance any` at 40,000 IOPS recommended c4a-highcpu-1 with 14 Hyperdisk Balanced volumes ($192.29);
c3-standard-44 and c3-standard-176 were "feasible" at 5,000,000 IOPS. The caps are stripped from nothing here: GCP
Hyperdisk limits are simply absent, and each test first checks that they still are (a catalog that gains them makes
the test say so rather than pass for the wrong reason)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model.instance import instance_caps
from blockfit.plan import make_plan
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.planner import ranked_points
from blockfit.plan.shapes import ANY, CAP_UNKNOWN, ShapeQuery, plan_shapes
from blockfit.plan.space import default_space
from blockfit.schema import Instance, Requirements

GCP = load_catalog("gcp")
HYPERDISK = ("hyperdisk-balanced", "hyperdisk-extreme")


def cap_unknown(shape: str, vtype: str) -> bool:
    try:
        caps = instance_caps(GCP, Instance(cloud="gcp", shape=shape), vtype)
    except InputError:   # a type this size cannot attach (Hyperdisk Extreme under 88 vCPUs): not planned at all
        return False
    return caps.iops is None or caps.mbps is None


def req(iops: float, shape: str = ANY, **kw: object) -> Requirements:
    return Requirements(cloud="gcp", capacity_gb=2048, target_iops=iops, instance_shape=shape, **kw)


def test_the_premise_gcp_hyperdisk_caps_are_unknown_in_the_catalog():
    assert cap_unknown("c4a-highcpu-1", "hyperdisk-balanced")
    assert cap_unknown("c3-standard-44", "hyperdisk-balanced")
    assert cap_unknown("c3-standard-176", "hyperdisk-extreme")
    assert not cap_unknown("c3-standard-44", "pd-ssd")


def test_any_at_40000_iops_no_longer_recommends_a_1_vcpu_vm_on_unknown_caps():
    plan = plan_shapes(req(40_000), GCP, ShapeQuery(ANY))
    assert plan.feasible
    first = plan.candidates[0]
    assert first.instance != "c4a-highcpu-1"
    # what is recommended rests on caps that are known and meet the targets
    assert first.cap_known and first.meets_targets
    assert first.prediction.instance_iops_cap is not None and first.prediction.instance_iops_cap >= 40_000
    assert all(c.cap_known for c in plan.candidates[:1] + plan.pareto)
    assert plan.instance_search is not None
    dropped = [r for r in plan.instance_search.left_out if r.split(" ", 1)[1].startswith(CAP_UNKNOWN)]
    assert len(dropped) == 1 and int(dropped[0].split(" ", 1)[0]) > 0
    assert any(n.startswith("Left out: ") and CAP_UNKNOWN in n for n in plan.notes)
    assert all(o.instance != "c4a-highcpu-1" for o in plan.instance_search.cheapest)


def test_a_hyperdisk_only_vm_named_is_not_feasible_and_says_the_cap_is_unknown():
    plan = make_plan(req(40_000, "c4a-highcpu-1"), GCP)
    assert not plan.feasible and not plan.candidates
    assert plan.infeasible is not None and plan.infeasible.best is not None
    assert not plan.infeasible.best.cap_known
    assert "instance cap unknown" in plan.infeasible.reason
    # the alternatives advised rest on known caps that meet the targets
    assert all(a.cap_known and a.meets_targets for a in plan.infeasible.alternatives)


@pytest.mark.parametrize(("shape", "levels"), [("c3-standard-44", None), ("c3-standard-176", ["hyperdisk-extreme"])])
def test_5m_iops_is_not_plainly_feasible_on_a_named_vm(shape: str, levels: list[str] | None,
                                                       capsys: pytest.CaptureFixture[str]):
    plan = make_plan(req(5_000_000, shape, levels=levels), GCP)
    assert not plan.feasible and not plan.candidates and not plan.pareto
    inf = plan.infeasible
    assert inf is not None and inf.best is not None
    assert not inf.best.cap_known and inf.best.max_iops >= 5_000_000 * 0.999
    assert "not applied" in inf.reason and "instance cap unknown" in inf.reason
    assert all(a.cap_known for a in inf.alternatives)
    from blockfit.views.plan import render_infeasible
    render_infeasible(plan)
    err = capsys.readouterr().err
    assert "instance cap unknown: not applied" in err
    # JSON: the unknown cap is null, as an unknown price is
    doc = plan.model_dump(mode="json")
    assert doc["feasible"] is False
    assert doc["infeasible"]["best"]["prediction"]["instance_iops_cap"] is None


def test_a_named_vm_ranks_unknown_cap_layouts_after_known_ones(capsys: pytest.CaptureFixture[str]):
    """c3-standard-44 at 40,000 IOPS: Hyperdisk Balanced ($1,783.55 in all, cap unknown) is cheaper than pd-ssd
    ($1,967.07, cap known); the known one is recommended, the other listed apart and kept off the front."""
    plan = make_plan(req(40_000, "c3-standard-44"), GCP)
    assert plan.feasible
    known = [c.cap_known for c in plan.candidates]
    assert known[0] and not all(known) and known == sorted(known, reverse=True)
    cheapest_capless = min(c.ranked_cost for c in plan.candidates if not c.cap_known)
    assert cheapest_capless < plan.candidates[0].ranked_cost   # only the unknown cap put it behind
    assert all(c.cap_known for c in plan.pareto)
    assert any("hyperdisk-balanced left out (instance cap unknown" in n for n in plan.notes)
    from blockfit.cli.output import console
    from blockfit.views.plan import render_plan
    render_plan(plan, None, console)
    out = " ".join(capsys.readouterr().out.split())
    assert "instance cap unknown: not applied" in out
    assert out.index("instance cap unknown: not applied") < out.index("Recommended:")


def test_the_report_lists_unknown_cap_layouts_apart():
    from blockfit.report.plan import summary
    plan = make_plan(req(40_000, "c3-standard-44"), GCP)
    text = summary(plan)
    assert "instance cap unknown: not applied" in text
    capless = [c for c in plan.candidates if not c.cap_known]
    assert f"{len(capless)} more meet them only with the instance cap unknown" in text


def test_control_caps_known_the_plan_is_the_search_order_unchanged():
    """n2-standard-16 attaches pd types only, every cap known: no group, no note, the recommendation is the search's."""
    r = req(20_000, "n2-standard-16")
    space = default_space(GCP, r)
    assert space.unknown_cap == set()
    plan = make_plan(r, GCP)
    assert plan.feasible and all(c.cap_known for c in plan.candidates)
    first = ranked_points(Evaluator(GCP, r, space), space)[0]
    assert plan.candidates[0].prediction.cost.total == pytest.approx(first.cost, abs=0.01)
    assert not any("cap unknown" in n or "cap of" in n for n in plan.notes)


def test_control_aws_shape_search_drops_nothing_for_unknown_caps():
    aws = load_catalog("aws")
    r = Requirements(cloud="aws", capacity_gb=2048, target_iops=40_000, instance_shape="r7i")
    plan = plan_shapes(r, aws, ShapeQuery("r7i"))
    assert plan.feasible and plan.candidates[0].cap_known
    assert plan.instance_search is not None
    assert not any(CAP_UNKNOWN in r for r in plan.instance_search.left_out)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(vcpus=st.sampled_from([4, 8, 22, 44, 88, 176]), iops=st.integers(3_000, 400_000))
def test_a_feasible_plan_never_recommends_a_cap_it_does_not_know(vcpus: int, iops: int):
    """Any c3 size, any IOPS: feasible means the recommendation's caps are known; every known layout comes first."""
    shape = f"c3-standard-{vcpus}"
    plan = make_plan(req(iops, shape), GCP)
    space = default_space(GCP, req(iops, shape))
    assert space.unknown_cap == {t for t in HYPERDISK if t in {o.type for o in space.options}
                                 and cap_unknown(shape, t)}
    if plan.feasible:
        known = [c.cap_known for c in plan.candidates]
        assert known[0] and known == sorted(known, reverse=True)
        assert all(c.cap_known for c in plan.pareto)
    else:
        assert plan.infeasible is not None
        best = plan.infeasible.best
        assert best is None or best.cap_known or "instance cap unknown" in plan.infeasible.reason
