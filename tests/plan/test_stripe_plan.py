"""plan.stripe: the recommended stripe unit holds a large I/O on one member and is one the build can make."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from blockfit.model.stripe import LVM_MAX, buildable_stripe
from blockfit.plan.stripe import ASM_AUS, recommend_stripe

io_sizes = st.integers(min_value=512, max_value=64 * 1024 * 1024)


@given(st.integers(2, 64), st.sampled_from(["lvm", "mdadm"]), io_sizes)
def test_lvm_and_mdadm_stripes_are_buildable_and_hold_the_large_io_up_to_4_mib(members: int, manager: str,
                                                                                large: int) -> None:
    stripe, reason = recommend_stripe(members, manager, 8192, large)   # type: ignore[arg-type]
    assert buildable_stripe(stripe)
    assert stripe >= min(large, LVM_MAX)
    assert stripe < 2 * large or stripe == 64 * 1024
    assert ("LVM -I" if manager == "lvm" else "mdadm --chunk") in reason and f"{members} members" in reason


@given(st.integers(1, 64), io_sizes)
def test_an_asm_unit_is_a_listed_au_of_at_least_4_mb_when_striped(members: int, large: int) -> None:
    au, reason = recommend_stripe(members, "asm", 8192, large)
    assert au in ASM_AUS and reason.startswith("ASM AU")
    assert au >= min(large, ASM_AUS[-1])
    if members > 1:
        assert au >= 4 * 1024 * 1024


def test_one_volume_is_not_striped() -> None:
    assert recommend_stripe(1, "lvm", 8192, 1 << 20) == (0, "single volume: no striping.")


def test_the_lvm_extent_bound_is_said_when_it_holds() -> None:
    stripe, reason = recommend_stripe(4, "lvm", 8192, 16 * 1024 * 1024)
    assert stripe == LVM_MAX and "extent size" in reason
