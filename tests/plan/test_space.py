"""plan.space: what one shape's search covers: attachable levels, member counts from the copies a mirror needs,
priced sizes; a requirement the shape cannot take is named by its field."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.plan.space import LevelOption, default_space, option_problem, space_checks
from blockfit.schema import Requirements

AWS = load_catalog("aws")


def _req(**kw: object) -> Requirements:
    return Requirements.model_validate({"cloud": "aws", "capacity_gb": 500, "instance_shape": "m6i.2xlarge", **kw})


def test_members_start_at_the_copies_a_mirror_keeps() -> None:
    assert default_space(AWS, _req()).members[0] == 1
    assert default_space(AWS, _req(redundancy="high")).members[0] == 3


def test_the_levels_named_are_the_options_and_each_has_sizes() -> None:
    space = default_space(AWS, _req(levels=["gp3", "io2"], max_volumes=4))
    assert {o.type for o in space.options} == {"gp3", "io2"}
    assert space.members == [1, 2, 3, 4]
    assert all(space.sizes[o.type] for o in space.options)


def test_an_option_is_the_volume_it_buys() -> None:
    v = LevelOption(type="gp3", iops=6000, tput=500).volume("aws", 200)
    assert (v.type, v.size_gb, v.provisioned_iops, v.provisioned_throughput) == ("gp3", 200, 6000, 500)


def test_a_requirement_the_shape_cannot_take_is_named() -> None:
    assert option_problem(AWS, _req()) is None
    problem = option_problem(AWS, _req(max_volumes=10_000))
    assert problem is not None and problem.startswith("max volumes 10000: m6i.2xlarge attaches at most")
    with pytest.raises(InputError):
        space_checks(AWS, _req(levels=["nvme-magic"]))["levels"]()
