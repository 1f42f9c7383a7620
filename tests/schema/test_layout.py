"""schema/layout.py: what a layout holds after its redundancy, an instance's count in the cloud's own unit and the
spec it prints, the workload's read share; and `ocpus` written only where the cloud has OCPUs."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.schema import Instance, Layout, Volume, Workload
from blockfit.schema.cost import COPIES
from blockfit.schema.layout import Cloud
from blockfit.specs import parse_instance


@given(st.integers(1, 64), st.floats(1, 65536), st.sampled_from(sorted(COPIES)))
def test_usable_capacity_is_the_raw_capacity_over_the_copies(members: int, size: float, redundancy: str) -> None:
    layout = Layout(members=members, volume=Volume(cloud="aws", type="gp3", size_gb=size),
                    redundancy=redundancy)  # type: ignore[arg-type]
    assert layout.total_gb == members * size
    assert layout.usable_gb * COPIES[redundancy] == pytest.approx(layout.total_gb)
    assert layout.usable_gb <= layout.total_gb


@given(st.sampled_from(["oci", "aws", "azure", "gcp"]), st.none() | st.integers(1, 512))
def test_an_instance_counts_in_the_clouds_unit_and_its_spec_says_so(cloud: Cloud, count: int | None) -> None:
    ocpus = count if cloud == "oci" else None
    vcpus = None if count is None else (2 * count if cloud == "oci" else count)
    inst = Instance(cloud=cloud, shape="x", vcpus=vcpus, ocpus=ocpus)
    assert inst.count == count
    assert inst.spec == ("x" if count is None else f"x:{count}")
    written = json.loads(inst.model_dump_json())
    assert ("ocpus" in written) == (ocpus is not None)


def test_the_spec_an_instance_prints_parses_back_to_it() -> None:
    from blockfit.catalog import load_catalog

    cat = load_catalog("oci")
    inst = parse_instance("VM.Standard.E4.Flex:8", "oci", cat)
    again = parse_instance(inst.spec, "oci", cat)
    assert (again.shape, again.count, again.vcpus) == (inst.shape, inst.count, inst.vcpus) == \
        (inst.shape, 8, 16)


@given(st.floats(0, 100))
def test_the_read_share_is_the_percentage_as_a_fraction(pct: float) -> None:
    assert Workload(read_pct=pct).read_share == pct / 100
