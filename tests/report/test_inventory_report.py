"""report.inventory: the inspect section, a row per layout and per device, from the result alone."""

from __future__ import annotations

from pathlib import Path

from blockfit.report.inventory import section, summary
from blockfit.schema import Inventory

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "inventory.json"


def _example() -> Inventory:
    return Inventory.model_validate_json(EXAMPLE.read_text())


def test_a_row_per_layout_and_per_device() -> None:
    inv = _example()
    s = section(inv, "inventory.json")
    layouts, devices = s.tables
    assert [r[1] for r in layouts.rows] == [e.device for e in inv.layouts]
    assert [r[0] for r in devices.rows] == [d.name for d in inv.devices]
    assert [r[2] for r in devices.rows] == [f"{d.size_bytes:,}" for d in inv.devices]


def test_the_summary_counts_devices_and_known_layouts() -> None:
    inv = _example()
    known = sum(1 for e in inv.layouts if e.spec is not None)
    assert f"{len(inv.devices)} block devices, {len(inv.layouts)} layouts, {known} of them known" in summary(inv)


def test_an_empty_inventory_says_what_it_could_not_tell() -> None:
    inv = Inventory(warnings=["no /sys"], unmatched_volumes=["vol-1"])
    s = section(inv, "x.json")
    assert s.tables == [] and ("Warnings", ["no /sys"]) in s.lists
    assert any("vol-1" in items for _, items in s.lists)
    assert "the host (no cloud identity seen, an instance it could not tell)" in summary(inv)
