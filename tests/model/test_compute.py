"""model.compute: the instance's monthly price from the catalog: per hour, or per OCPU (vCPU) and GB of memory
within the shape's bounds; an unknown price is None, never 0."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import ValueProblem
from blockfit.model.compute import check_memory, compute_cost, memory_for, monthly
from blockfit.schema.cost import HOURS_PER_MONTH

AWS, OCI = load_catalog("aws"), load_catalog("oci")
E4 = "VM.Standard.E4.Flex"
E4_PRICE = OCI.compute_prices[E4]


def test_a_fixed_shape_is_its_hourly_price_for_730_hours() -> None:
    cost = compute_cost(AWS, "m6i.large", None)
    per_hour = AWS.compute_prices["m6i.large"].per_hour
    assert per_hour is not None and cost.monthly == round(per_hour * HOURS_PER_MONTH, 2)
    assert cost.source is not None and cost.source.url


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 64), st.floats(0, 64))
def test_a_flexible_shape_is_ocpus_plus_memory_at_least_its_minimum(ocpus: int, per_ocpu: float) -> None:
    assert E4_PRICE.per_ocpu_hour is not None and E4_PRICE.per_gb_hour is not None
    assert E4_PRICE.memory_min_gb_per_ocpu is not None and E4_PRICE.memory_max_gb_per_ocpu is not None
    memory = min(per_ocpu, E4_PRICE.memory_max_gb_per_ocpu) * ocpus
    cost = compute_cost(OCI, E4, float(ocpus), memory)
    billed = max(memory, ocpus * E4_PRICE.memory_min_gb_per_ocpu)
    assert cost.memory_gb == pytest.approx(billed)
    assert cost.monthly == pytest.approx(
        (ocpus * E4_PRICE.per_ocpu_hour + billed * E4_PRICE.per_gb_hour) * HOURS_PER_MONTH, abs=0.011)


def test_memory_beyond_what_the_shape_sells_is_refused_with_its_bound() -> None:
    assert E4_PRICE.memory_max_gb_per_ocpu is not None
    top = E4_PRICE.memory_max_gb_per_ocpu * 2
    check_memory(OCI, E4, 2.0, top)
    with pytest.raises(ValueProblem, match=f"takes at most {top:g} GB"):
        check_memory(OCI, E4, 2.0, top + 1)


def test_without_a_count_or_a_price_the_cost_is_unknown() -> None:
    assert compute_cost(OCI, E4, None).monthly is None
    unknown = compute_cost(AWS, "no-such.shape", None)
    assert unknown.monthly is None and unknown.note is not None and "no compute price" in unknown.note
    assert monthly(AWS, "no-such.shape", None) is None


def test_the_billed_memory_is_the_users_raised_to_the_minimum() -> None:
    floor = 4 * (E4_PRICE.memory_min_gb_per_ocpu or 0)
    assert memory_for(OCI, E4, 4, None) == floor
    assert memory_for(OCI, E4, 4, floor / 2) == floor and memory_for(OCI, E4, 4, floor * 3) == floor * 3
