"""dbbench/compare.py: the model's rate for a layout from the caps the bench was told (members x member cap, bounded
by the instance's), the model's ratio between two layouts, and how much of that rate the members delivered."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.compare import BASIS, cap_use, model_rate, model_ratio
from blockfit.schema.bench import KnownCaps, LayoutInfo

CAP = st.none() | st.floats(1, 1e6)


def layout(members: int, caps: KnownCaps | None) -> LayoutInfo:
    names = [f"vd{chr(98 + i)}" for i in range(members)]
    return LayoutInfo(label="A", dir="/a", mount_point="/a", fstype="xfs", source="/dev/x", devices=names,
                      members=names, caps=caps)


@given(st.integers(1, 8), CAP, CAP)
def test_the_model_rate_is_the_members_caps_bounded_by_the_instance(members: int, member: float | None,
                                                                     instance: float | None) -> None:
    rate = model_rate(layout(members, KnownCaps(member_iops=member, instance_iops=instance)), "iops")
    expected = [r for r in ((member or 0) * members, instance or 0) if r > 0]
    assert rate == (min(expected) if expected else None)
    assert rate is None or rate <= (member or rate) * members


def test_unknown_caps_give_no_model_rate_nor_ratio_nor_use() -> None:
    none = layout(3, None)
    capped = layout(1, KnownCaps(member_iops=1000, member_mbps=50))
    assert model_rate(none, "iops") is None and model_rate(layout(3, KnownCaps()), "mbps") is None
    assert model_ratio(none, capped, "oltp-select") is None and model_ratio(capped, none, "dss") is None
    assert cap_use(900.0, none, "iops") is None and cap_use(None, capped, "iops") is None


@pytest.mark.parametrize("measure", sorted(BASIS))
def test_the_ratio_of_a_three_way_stripe_to_one_volume_is_three_on_either_basis(measure: str) -> None:
    caps = KnownCaps(member_iops=250, member_mbps=20)
    one, three = layout(1, caps), layout(3, caps)
    assert model_ratio(one, three, measure) == pytest.approx(3.0)  # type: ignore[arg-type]
    assert model_ratio(three, one, measure) == pytest.approx(1 / 3)  # type: ignore[arg-type]
    basis = BASIS[measure]  # type: ignore[index]
    assert cap_use(750.0 if basis == "iops" else 60.0, three, basis) == pytest.approx(1.0)
