"""schema.inventory: what a host has, read from the documented example and back."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from pydantic import ValidationError

from blockfit.schema.inventory import BlockNode, Inventory, NodeKind

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "inventory.json"


def test_the_documented_example_round_trips() -> None:
    inv = Inventory.model_validate_json(EXAMPLE.read_text())
    assert inv.kind == "inventory" and inv.devices
    assert Inventory.model_validate_json(inv.model_dump_json()) == inv


def test_every_member_a_node_names_is_a_node_of_the_example() -> None:
    inv = Inventory.model_validate_json(EXAMPLE.read_text())
    names = {d.name for d in inv.devices}
    for d in inv.devices:
        assert set(d.members) <= names
    for lay in inv.layouts:
        assert lay.device in names


@pytest.mark.parametrize("kind", typing.get_args(NodeKind))
def test_each_node_kind_is_accepted(kind: str) -> None:
    assert BlockNode.model_validate({"name": "sdb", "kind": kind, "size_bytes": 512}).kind == kind


def test_a_node_refuses_an_unknown_kind_or_a_size_in_words() -> None:
    with pytest.raises(ValidationError):
        BlockNode.model_validate({"name": "sdb", "kind": "zfs", "size_bytes": 512})
    with pytest.raises(ValidationError):
        BlockNode.model_validate({"name": "sdb", "kind": "disk", "size_bytes": "big"})


def test_an_empty_inventory_has_fresh_empty_lists() -> None:
    a, b = Inventory(), Inventory()
    a.warnings.append("x")
    assert b.warnings == [] and b.devices == [] and b.cloud is None
