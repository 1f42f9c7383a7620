"""schema/plan.py's Requirements: the raw capacity to buy, and counts in the unit the cloud sells compute in (OCI's
OCPUs where given, else vCPUs), for the instance and the search range alike."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.schema import Requirements
from blockfit.schema.cost import COPIES


@given(st.floats(1, 1e6), st.floats(0, 300), st.sampled_from(sorted(COPIES)))
def test_needed_capacity_grows_by_the_growth_and_the_copies(capacity: float, growth: float, redundancy: str) -> None:
    req = Requirements(cloud="aws", capacity_gb=capacity, growth_pct=growth, instance_shape="r7i.2xlarge",
                       redundancy=redundancy)  # type: ignore[arg-type]
    assert req.needed_gb == pytest.approx(capacity * (1 + growth / 100) * COPIES[redundancy])
    assert req.needed_gb >= capacity


def test_counts_are_ocpus_on_oci_and_vcpus_elsewhere() -> None:
    oci = Requirements(cloud="oci", capacity_gb=100, instance_shape="VM.Standard.E4.Flex", instance_vcpus=16,
                       instance_ocpus=8, vcpus_min=4, vcpus_max=64, ocpus_min=2, ocpus_max=32)
    assert (oci.instance_count, oci.count_min, oci.count_max) == (8, 2, 32)
    aws = Requirements(cloud="aws", capacity_gb=100, instance_shape="r7i", instance_vcpus=16, vcpus_min=4,
                       vcpus_max=64)
    assert (aws.instance_count, aws.count_min, aws.count_max) == (16, 4, 64)
    open_count = Requirements(cloud="aws", capacity_gb=100, instance_shape="r7i")
    assert (open_count.instance_count, open_count.count_min, open_count.count_max) == (None, None, None)


def test_ocpus_are_written_only_where_given() -> None:
    aws = Requirements(cloud="aws", capacity_gb=100, instance_shape="r7i", instance_vcpus=16)
    assert not {"instance_ocpus", "ocpus_min", "ocpus_max"} & set(aws.model_dump(mode="json", exclude_none=False))
    oci = Requirements(cloud="oci", capacity_gb=100, instance_shape="VM.Standard.E4.Flex", instance_ocpus=8)
    assert oci.model_dump(mode="json")["instance_ocpus"] == 8
