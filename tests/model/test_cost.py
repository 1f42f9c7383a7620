"""model.cost: a layout's storage is its members' line items summed; a part without a price makes the total
None; two regions are named, never passed off as one."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model.cost import layout_cost, region_name, storage_items
from blockfit.model.resolve import volume_type
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


@pytest.mark.parametrize("members", [1, 3, 8])
def test_storage_is_one_members_items_times_the_members(members: int) -> None:
    one = parse_layout("1x500G@gp3:6000:500", "aws", AWS)
    many = parse_layout(f"{members}x500G@gp3:6000:500", "aws", AWS)
    vt = volume_type(AWS, one.volume)
    a, b = storage_items(AWS, vt, one), storage_items(AWS, vt, many)
    assert [i.quantity * members for i in a] == pytest.approx([i.quantity for i in b])
    assert sum(i.monthly or 0 for i in b) == pytest.approx(members * sum(i.monthly or 0 for i in a), abs=0.01 * len(a))


def test_the_total_is_storage_plus_compute_when_both_are_known() -> None:
    lay = parse_layout("2x1T@gp3", "aws", AWS)
    cost = layout_cost(AWS, volume_type(AWS, lay.volume), lay, parse_instance("m6i.2xlarge", "aws", AWS))
    assert cost.storage is not None and cost.storage > 0
    if cost.compute is None:
        assert cost.total is None
    else:
        assert cost.total == pytest.approx(cost.storage + cost.compute, abs=0.01)


@pytest.mark.parametrize(("text", "expected"), [("eastus (as the copy's names match East US)", "eastus"),
                                                ("us-east-1", "us-east-1"), (None, None), ("", None)])
def test_a_region_is_read_without_its_remark(text: str | None, expected: str | None) -> None:
    assert region_name(text) == expected
