"""Plans over provisioned types (Hyperdisk, Premium SSD v2, Ultra) with thousands of IOPS x throughput x member
offers, and Hyperdisk-only GCP series whose every type lacks a price (issue 27): the answers, not their speed."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import catalog_from_toml, load_catalog, load_catalog_file, raw_catalog
from blockfit.catalog.toml_out import dumps
from blockfit.plan import make_plan
from blockfit.plan.advice import pareto_points
from blockfit.plan.evaluate import Evaluator, Point
from blockfit.plan.planner import PARETO_OFFERS, _distinct, dominates
from blockfit.plan.search import brute_force, rank_key, search, tie_window
from blockfit.plan.space import LevelOption, default_space
from blockfit.schema import Requirements

GCP = load_catalog("gcp")


def gcp_hyperdisk_unpriced(tmp: Path) -> Path:
    """The newest GCP catalog with the Hyperdisk prices taken out (priced since issue 38's second and third
    passes), so that every type the Hyperdisk-only series attach lacks a price again."""
    path = tmp / "gcp-hyperdisk-unpriced.toml"
    path.write_text(dumps(_hyperdisk_unpriced_raw(), "Hyperdisk unpriced (a test fixture)"))
    return path


def _hyperdisk_unpriced_raw() -> dict:
    """Hyperdisk Extreme (priced since issue 38's second pass) and Balanced (third pass) without their prices."""
    raw = raw_catalog(GCP)
    for key in ("hyperdisk-extreme", "hyperdisk-balanced"):
        for field in ("price_per_gb", "price_per_iops", "price_per_tput", "price_region"):
            raw["volume_types"][key].pop(field, None)
            raw["volume_types"][key]["sources"].pop(field, None)
    return raw


GCP_HD_UNPRICED = catalog_from_toml(_hyperdisk_unpriced_raw())
AZURE = load_catalog("azure")


def _distinct_by_definition(points, same_option_only=True, tolerance=0.0):
    """_distinct's docstring, word for word: a point is dropped when an earlier kept one matches it."""
    kept = []
    for p in sorted(points, key=rank_key):
        if not any((q.option == p.option or not same_option_only) and q.iops >= p.iops * (1 - tolerance)
                   and q.mbps >= p.mbps * (1 - tolerance) and (q.members <= p.members or not same_option_only)
                   for q in kept):
            kept.append(p)
    return kept


OPTIONS = [LevelOption("t", iops=i) for i in (1, 2, 3)]
points = st.builds(lambda o, m, c, i, b: Point(OPTIONS[o], m, 100, None, c, i, b),
                   st.integers(0, 2), st.integers(1, 4), st.sampled_from([1.0, 2.0, 2.5, 3.0, 7.0]),
                   st.sampled_from([100.0, 150.0, 200.0, 201.0, 300.0, 1000.0]),
                   st.sampled_from([10.0, 20.0, 20.3, 40.0, 80.0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(points, max_size=40), st.booleans(), st.sampled_from([0.0, 0.02]))
def test_distinct_keeps_exactly_what_its_definition_keeps(pts, same_option_only, tolerance):
    assert _distinct(pts, same_option_only, tolerance) == _distinct_by_definition(pts, same_option_only, tolerance)


def _search_by_definition(ev, space, keep):
    """search() as first written (every pair searched, options cheapest first, the list re-sorted after each): the
    reference for the insertion version that also passes over the pairs of an unpriced type with more volumes."""
    best: list[Point] = []
    outer = float("inf")
    from blockfit.plan.search import _cheap_first, cheapest_for
    for option in _cheap_first(ev, space):
        for members in space.members:
            bound = max(best[keep - 1].cost, tie_window(best[0])) + 1e-9 if len(best) >= keep else outer
            point = cheapest_for(ev, space, option, members, bound)
            if point is not None:
                best.append(point)
                best.sort(key=rank_key)
                window = tie_window(best[0])
                best = best[:keep] + [p for p in best[keep:] if p.cost <= window]
    return best


@pytest.mark.parametrize(("cat", "shape", "level", "iops", "mbps", "keep"), [
    (AZURE, "Standard_E32s_v5", "premium-v2", 40_000, None, 20),    # storage unpriced, compute priced: all tie
    (AZURE, "Standard_E16s_v5", "premium-v1,premium-v2", 20_000, 400, 5),
    (AZURE, "Standard_E16s_v5", "premium-v1", 20_000, None, 1),
    (GCP, "c3-standard-22", "hyperdisk-balanced", 20_000, 300, 20),
    (GCP, "n2-standard-16", None, 15_000, None, 4),
])
def test_search_returns_what_it_returned_before_it_was_made_fast(cat, shape, level, iops, mbps, keep):
    req = Requirements(cloud=cat.cloud, capacity_gb=2048, instance_shape=shape, target_iops=iops,
                       target_mbps=mbps, levels=level.split(",") if level else None, max_volumes=8)
    space = default_space(cat, req)
    found = search(Evaluator(cat, req, space), space, keep=keep)
    assert found == _search_by_definition(Evaluator(cat, req, space), space, keep)
    assert found and [rank_key(p) for p in found] == sorted(rank_key(p) for p in found)


@pytest.mark.parametrize(("iops", "mbps"), [(20_000, None), (50_000, 900), (8_000, 2_000)])
def test_hyperdisk_plan_on_c3_is_the_brute_force_cheapest(iops, mbps):
    """The issue's plan (c3-standard-22, Hyperdisk Balanced, its price taken out): the recommendation is the first
    point of the whole space (a few sizes around the capacity, every provisioning step, up to 3 members) by brute
    force, in the order plan states for a type without a price: known compute, fewest volumes, least provisioned."""
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape="c3-standard-22", target_iops=iops,
                       target_mbps=mbps, levels=["hyperdisk-balanced"], max_volumes=3)
    full = default_space(GCP_HD_UNPRICED, req)
    sizes = [s for s in full.sizes["hyperdisk-balanced"] if s in (683, 700, 1024, 1100, 2048, 2100, 4096)]
    space = dataclasses.replace(full, sizes={"hyperdisk-balanced": sizes})
    every = brute_force(Evaluator(GCP_HD_UNPRICED, req, space), space)
    assert every
    found = search(Evaluator(GCP_HD_UNPRICED, req, space), space, keep=1)
    assert rank_key(found[0]) == min(rank_key(p) for p in every)
    assert found[0].members == min(p.members for p in every)
    plan = make_plan(req, GCP_HD_UNPRICED)
    # Hyperdisk's per-VM cap on c3 is unknown: met only with it not applied, the plan is infeasible and shows the
    # search's first layout as its best (it was "feasible", the unknown cap taken as none)
    assert not plan.feasible and plan.infeasible is not None and "instance cap unknown" in plan.infeasible.reason
    first = plan.infeasible.best
    assert first is not None and not first.cap_known
    assert first.meets_targets and first.cost.storage is None     # planned on performance, its cost unknown
    assert first.max_iops >= iops * 0.999 and (mbps is None or first.max_mbps >= mbps * 0.999)


@pytest.mark.parametrize(("name", "shape", "level", "priced"), [
    ("aws", "x2idn.32xlarge", None, True), ("gcp", "c3-standard-22", "hyperdisk-balanced", True),
    ("gcp-hyperdisk-unpriced", "c3-standard-22", "hyperdisk-balanced", False)])
def test_pareto_over_more_offers_than_it_predicts_is_a_front(name, shape, level, priced):
    """More distinct offers than the table predicts (PARETO_OFFERS per row): the rows are still a front (none
    dominated), at most the limit plus the recommendation; priced, the recommendation is among them. A type with
    no price: nothing to order its layouts by, so the table is empty and a note says why."""
    cat = {"aws": load_catalog("aws"), "gcp": GCP, "gcp-hyperdisk-unpriced": GCP_HD_UNPRICED}[name]
    req = Requirements(cloud=cat.cloud, capacity_gb=2048, instance_shape=shape, target_iops=20_000,
                       levels=[level] if level else None)
    space = default_space(cat, req)
    offers = _distinct(pareto_points(req, cat, space), same_option_only=False, tolerance=0.02)
    assert len(offers) > PARETO_OFFERS * 12      # the thinning is exercised
    plan = make_plan(req, cat)
    front = plan.pareto
    if cat.cloud == "gcp":    # Hyperdisk's per-VM cap on c3 is unknown: no row rests on it, and the plan says why
        assert front == [] and plan.infeasible is not None and "instance cap unknown" in plan.infeasible.reason
        return
    if not priced:            # no price: no row, said in the notes
        assert front == [] and any(f"{level} left out" in n for n in plan.notes), plan.notes
        return
    assert 1 <= len(front) <= 13
    assert not any(dominates(a, b) for a in front for b in front if a is not b)
    assert [r.ranked_cost for r in front] == sorted(r.ranked_cost for r in front)
    if plan.candidates[0].cost.total is not None:
        assert plan.candidates[0].layout in [r.layout for r in front]


@pytest.mark.parametrize("instance", ["c4-standard-16", "c4", "n4-standard-16", "m4"])
def test_hyperdisk_only_series_say_the_price_is_missing_and_how_to_plan(instance, tmp_path):
    """Every type the series attaches lacks a price: the answer says so (not 'no layout holds 2,048 GB'), and
    following it (--levels) plans on performance with the cost stated unknown, as --levels premium-v2 on Azure."""
    unpriced = load_catalog_file(str(gcp_hyperdisk_unpriced(tmp_path)))
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape=instance, target_iops=20_000)
    plan = make_plan(req, unpriced)
    assert not plan.feasible and plan.infeasible is not None
    reason = plan.infeasible.reason
    assert "holds" not in reason
    assert "has a price in the gcp catalog" in reason and "--levels hyperdisk-balanced" in reason
    named = make_plan(req.model_copy(update={"levels": ["hyperdisk-balanced"]}), unpriced)
    # planned on performance, its cost unknown; the series' per-VM Hyperdisk cap is unknown too, so not feasible
    assert not named.feasible and named.infeasible is not None and named.infeasible.best is not None
    assert named.infeasible.best.cost.storage is None and not named.infeasible.best.cap_known
    assert "instance cap unknown" in named.infeasible.reason
    assert any("hyperdisk-balanced: no price" in n for n in named.notes)


def test_c4d_unpriced_says_the_price_is_missing_and_plans_on_its_known_per_vm_cap(tmp_path):
    """C4D's per-VM Hyperdisk Balanced cap is known (since 2026-11-28): named with --levels, the plan is feasible on
    performance, its cost unknown, where the series above stay "instance cap unknown"."""
    unpriced = load_catalog_file(str(gcp_hyperdisk_unpriced(tmp_path)))
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape="c4d-highmem-32", target_iops=20_000)
    plan = make_plan(req, unpriced)
    assert not plan.feasible and plan.infeasible is not None
    assert "has a price in the gcp catalog" in plan.infeasible.reason
    named = make_plan(req.model_copy(update={"levels": ["hyperdisk-balanced"]}), unpriced)
    assert named.feasible and named.candidates
    first = named.candidates[0]
    assert first.cap_known and first.prediction.instance_iops_cap == 75_000 and first.cost.storage is None
    assert any("hyperdisk-balanced: no price" in n for n in named.notes)


def test_a_real_capacity_shortfall_still_says_capacity():
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape="c4-standard-16", target_iops=20_000,
                       levels=["hyperdisk-balanced"], max_volumes=1)
    big = req.model_copy(update={"capacity_gb": GCP.volume_types["hyperdisk-balanced"].max_gb * 2})
    plan = make_plan(big, GCP)
    assert not plan.feasible and "holds" in plan.infeasible.reason


def test_cli_c4_exit_3_with_the_reason(tmp_path):
    out = subprocess.run([sys.executable, "-m", "blockfit", "plan", "--cloud", "gcp", "--capacity", "2T",
                          "--instance", "c4-standard-16", "--target-iops", "20000", "--json",
                          "--catalog", str(gcp_hyperdisk_unpriced(tmp_path))],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 3, out.stderr
    reason = json.loads(out.stdout)["infeasible"]["reason"]
    assert "hyperdisk-balanced, hyperdisk-extreme" in reason and "holds" not in reason


@pytest.mark.parametrize("series", ["n4", "c4", "c4a", "c4d", "m4", "n2"])
def test_catalog_show_gives_the_attach_limit_set_per_size(series):
    shape = GCP.shapes[series]
    out = subprocess.run([sys.executable, "-m", "blockfit", "catalog", "show", "gcp"], capture_output=True,
                         text=True, check=True, env={**os.environ, "COLUMNS": "250"})
    row = next(line for line in out.stdout.splitlines() if line.startswith(f"│ {series} "))
    cells = [c.strip() for c in row.strip("│").split("│")]
    attach = cells[7]
    if shape.attach_max:
        assert attach == str(shape.attach_max)
        return
    counts = [t.get("attach_max") for t in shape.tiers]
    known = sorted({int(c) for c in counts if c is not None})
    assert attach.startswith(f"{known[0]}-{known[-1]} by size")
    assert ("some unknown" in attach) == (None in counts)
    # per-VM Hyperdisk IOPS / MB/s: not found, said so; C4D's Hyperdisk Balanced rows are in its tiers
    assert cells[5] == cells[6] == ("per tier" if series == "c4d" else "unknown")
