"""plan.move: the layout under a mount point of an inventory, and the move from it onto a plan's first candidate."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import ValueProblem
from blockfit.plan.given import plan_for_layout
from blockfit.plan.move import find, with_move
from blockfit.specs import parse_instance, parse_layout
from support.inventory import SEED_LV_BYTES, seed_inventory

OCI = load_catalog("oci")


@pytest.mark.parametrize("mount", [None, "/u01", "u01/", "/./u01"])
def test_the_mount_point_is_found_however_it_is_spelt(mount: str | None) -> None:
    found = find(seed_inventory(used_bytes=10**12), mount)
    assert found.entry.mount_point == "/u01" and found.spec == "1x4.5T@balanced"
    assert found.device_bytes == SEED_LV_BYTES and found.used_bytes == 10**12


def test_an_unknown_mount_a_layout_it_could_not_tell_or_no_instance_is_refused() -> None:
    with pytest.raises(ValueProblem, match="not a mount point of the inventory .it has /u01"):
        find(seed_inventory(), "/u02")
    with pytest.raises(ValueProblem, match="its layout is unknown"):
        find(seed_inventory(spec=None), "/u01")
    inv = seed_inventory()
    inv = inv.model_copy(update={"instance": None, "layouts": [inv.layouts[0].model_copy(update={"instance": None})]})
    with pytest.raises(ValueProblem, match="give --instance"):
        find(inv, "/u01")
    assert find(inv, "/u01", need_instance=False).instance is None


def test_the_move_onto_the_first_candidate_carries_the_current_layout_and_its_methods() -> None:
    found = find(seed_inventory(used_bytes=2 * 10**12), "/u01")
    plan = plan_for_layout(parse_layout("4x1200G@balanced", "oci", OCI),
                           parse_instance("VM.Standard.E3.Flex:12", "oci", OCI), OCI, None)
    moved = with_move(plan, found, OCI)
    assert moved.current is not None and moved.current.mount_point == "/u01"
    assert moved.current.size_bytes == SEED_LV_BYTES and moved.current.used_bytes == 2 * 10**12
    assert moved.migrations and all(m.duration_s > 0 and m.rate_mbps > 0 for m in moved.migrations)
    for m in moved.migrations:
        assert m.duration_s == pytest.approx(m.data_bytes / (m.rate_mbps * 1e6), rel=1e-3)
