"""schema.cost: the copies each redundancy keeps, and OCI's own unit left out where a result has none."""

from __future__ import annotations

import typing

from blockfit.schema.cost import COPIES, Cost, CostItem, Redundancy, absent


def test_every_redundancy_has_its_copies_and_none_keeps_one() -> None:
    assert set(COPIES) == set(typing.get_args(Redundancy))
    assert COPIES["none"] == 1 and all(n >= 1 for n in COPIES.values())
    assert COPIES["high"] > COPIES["normal"]


def test_absent_is_none_only() -> None:
    assert absent(None) and not absent(0) and not absent(0.0) and not absent("")


def test_a_cost_round_trips_with_unknown_parts() -> None:
    item = CostItem(item="storage", quantity=1000, unit="GB-month", unit_price=None, monthly=None)
    cost = Cost(storage=None, compute=12.5, total=None, items=[item])
    assert Cost.model_validate_json(cost.model_dump_json()) == cost
    assert Cost(storage=1, compute=None, total=None).items == []
