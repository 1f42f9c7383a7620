"""plan.reach: whether an instance's own caps could carry the targets at all, before a search."""

from __future__ import annotations

from blockfit.catalog import load_catalog
from blockfit.plan.reach import instance_allows
from blockfit.schema import Requirements

AWS = load_catalog("aws")


def _req(**kw: object) -> Requirements:
    return Requirements.model_validate({"cloud": "aws", "capacity_gb": 500, "instance_shape": "m6i.4xlarge",
                                        **kw})


def test_a_modest_target_is_within_reach() -> None:
    assert instance_allows(_req(target_iops=1000, target_mbps=50), AWS)


def test_a_target_past_every_instance_cap_is_not() -> None:
    assert not instance_allows(_req(target_iops=1e9), AWS)
    assert not instance_allows(_req(target_mbps=1e7), AWS)


def test_reach_grows_with_the_instance() -> None:
    """What a small m6i cannot carry a large one can (instance caps grow with size), never the other way."""
    for iops in (5e3, 2e4, 4e4, 8e4, 2e5):
        if instance_allows(_req(instance_shape="m6i.large", target_iops=iops), AWS):
            assert instance_allows(_req(instance_shape="m6i.32xlarge", target_iops=iops), AWS)
    assert instance_allows(_req(instance_shape="m6i.32xlarge", target_iops=8e4), AWS)
    assert not instance_allows(_req(instance_shape="m6i.large", target_iops=8e4), AWS)
