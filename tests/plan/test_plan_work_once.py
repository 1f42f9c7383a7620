"""The plan search does each piece of work once: the Pareto table evaluates each point once, a search over shapes
prices each volume option once per catalog (not once per shape), and evaluate's shortcut (the instance's ceilings
kept per count and type) gives exactly the figures of `ceilings` over every cap, the slow path, on every cloud."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model.limits import ceilings
from blockfit.plan import space as space_mod
from blockfit.plan.advice import pareto_points
from blockfit.plan.evaluate import Evaluator, Point
from blockfit.plan.planner import split_by_cap, split_by_price
from blockfit.plan.shapes import ANY, ShapeQuery, candidate_shapes
from blockfit.plan.space import LevelOption, default_space
from blockfit.schema import Requirements

CLOUDS = ("aws", "azure", "gcp", "oci")
SHAPES = {"oci": ["VM.Standard.E4.Flex", "VM.Standard.E5.Flex"], "aws": ["r7i.4xlarge", "m5.12xlarge"],
          "azure": ["Standard_E16s_v5", "Standard_E64s_v5"], "gcp": ["n2-standard-16", "c3-standard-44"]}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_pareto_evaluates_each_point_once(cloud: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cat = load_catalog(cloud)   # a catalog of this test's own: no member is already kept
    req = Requirements(cloud=cloud, capacity_gb=2048, instance_shape=SHAPES[cloud][0])
    priced, _ = split_by_price(split_by_cap(default_space(cat, req))[0])
    asked: list[tuple[LevelOption, int, int, float | None]] = []
    evaluate = Evaluator.evaluate

    def counted(self: Evaluator, option: LevelOption, members: int, size_gb: int, ocpus: float | None) -> Point | None:
        asked.append((option, members, size_gb, ocpus))
        return evaluate(self, option, members, size_gb, ocpus)

    monkeypatch.setattr(Evaluator, "evaluate", counted)
    points = pareto_points(req, cat, priced)
    assert points and asked
    assert len(asked) == len(set(asked)), f"{len(asked) - len(set(asked))} of {len(asked)} evaluations repeated"


def test_a_search_over_shapes_prices_each_option_once(monkeypatch: pytest.MonkeyPatch) -> None:
    cat = load_catalog("azure")
    req = Requirements(cloud="azure", capacity_gb=2048, target_iops=20_000, instance_shape=ANY)
    names, _left = candidate_shapes(cat, ShapeQuery(ANY), req)
    assert len(names) > 20
    asked: list[LevelOption] = []
    priced_sizes = space_mod.priced_sizes

    def counted(c: object, option: LevelOption, sizes: list[int]) -> list[int]:
        asked.append(option)
        return priced_sizes(c, option, sizes)  # type: ignore[arg-type]

    monkeypatch.setattr(space_mod, "priced_sizes", counted)
    spaces = []
    for name in names:
        try:
            spaces.append(default_space(cat, req.model_copy(update={"instance_shape": name})))
        except InputError:
            continue
    options = {o for s in spaces for o in s.options}
    assert options
    assert len(asked) == len(set(asked)), f"{len(asked)} look-ups for {len(set(asked))} options"
    # what each shape got is its own: changing one space's lists changes no other's
    spaces[0].options.clear()
    spaces[0].sizes.clear()
    spaces[0].unknown_price.add("x")
    again = default_space(cat, req.model_copy(update={"instance_shape": spaces[0].shape}))
    assert again.options and again.sizes and "x" not in again.unknown_price


def test_another_catalog_gets_its_own_priced_options() -> None:
    """Kept with the catalog, never across catalogs: a copy of it (sharing its kept values, as a shallow
    model_copy does) whose prices differ gets its own answer, and the original keeps its own."""
    cat = load_catalog("azure")
    req = Requirements(cloud="azure", capacity_gb=2048, instance_shape="Standard_E16s_v5")
    before = default_space(cat, req)
    vtype = next(o.type for o in before.options)
    unpriced = cat.volume_types[vtype].model_copy(
        update={"price_per_gb": None, "price_tiers": [], "price_per_iops": None, "price_per_tput": None})
    other = cat.model_copy(update={"volume_types": {**cat.volume_types, vtype: unpriced}})
    after = default_space(other, req)
    assert vtype in {o.type for o in before.options}
    assert vtype not in {o.type for o in after.options}
    assert default_space(cat, req).options == before.options


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(data=st.data(), cloud=st.sampled_from(CLOUDS), read_pct=st.sampled_from([100, 70, 30]),
       redundancy=st.sampled_from(["none", "normal"]))
def test_evaluate_equals_ceilings_over_every_cap(data: st.DataObject, cloud: str, read_pct: int,
                                                 redundancy: str) -> None:
    cat = load_catalog(cloud)
    shape = data.draw(st.sampled_from(SHAPES[cloud]), label="shape")
    req = Requirements(cloud=cloud, capacity_gb=100, instance_shape=shape, read_pct=read_pct, redundancy=redundancy)
    space = default_space(cat, req)
    ev = Evaluator(cat, req, space)
    option = data.draw(st.sampled_from(space.options), label="option")
    members = data.draw(st.sampled_from(space.members), label="members")
    size = data.draw(st.sampled_from(space.sizes[option.type]), label="size")
    ocpus = data.draw(st.sampled_from(space.ocpus), label="ocpus")
    got = ev.evaluate(option, members, size, ocpus)
    m = ev.member(option, size, members)
    try:
        caps = ev.caps(ocpus, option.type)
    except InputError:
        assert got is None
        return
    if got is None:
        return   # not valid here (attach limit, size, one disk does): nothing to compare
    att = ev.attachment(option, m.perf, ocpus, caps)   # type: ignore[union-attr]
    slow = ceilings(m.perf, members, caps, req.small_io, req.large_io, att, req.read_share,  # type: ignore[union-attr]
                    req.redundancy)
    assert (got.iops, got.mbps) == slow
    assert dataclasses.replace(got, iops=slow[0], mbps=slow[1]) == got
