"""model.stripe: which stripe sizes LVM and mdadm can build, and the bound on any a plan file carries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import InputError
from blockfit.model.stripe import LVM_MAX, MAX_STRIPE, MIN_STRIPE, buildable_stripe, check_stripe


@given(st.integers(min_value=1, max_value=2 * MAX_STRIPE))
def test_buildable_means_a_power_of_two_within_the_planners_range(size: int) -> None:
    power_of_two = size & (size - 1) == 0
    assert buildable_stripe(size) == (power_of_two and MIN_STRIPE <= size <= LVM_MAX)


def test_the_range_ends_are_buildable_and_just_outside_them_not() -> None:
    assert buildable_stripe(MIN_STRIPE) and buildable_stripe(LVM_MAX)
    assert not buildable_stripe(MIN_STRIPE // 2) and not buildable_stripe(LVM_MAX * 2)


@given(st.integers(min_value=512, max_value=MAX_STRIPE), st.integers(1, 64))
def test_sizes_from_512_bytes_to_1_gib_pass_unchanged(size: int, members: int) -> None:
    assert check_stripe(size, members, "stripe_size") == size


@pytest.mark.parametrize("size", [511, MAX_STRIPE + 1, -4096, 2**64])
def test_sizes_outside_are_refused_naming_the_field(size: int) -> None:
    with pytest.raises(InputError, match="^plan stripe_size .*expected a stripe size from 512 bytes to 1 GiB"):
        check_stripe(size, 4, "plan stripe_size")


def test_a_huge_size_is_said_by_its_digits_and_none_or_zero_for_one_volume_pass() -> None:
    with pytest.raises(InputError, match="a 20-digit number"):
        check_stripe(2**64, 2, "s")
    assert check_stripe(None, 4, "s") is None and check_stripe(0, 1, "s") == 0
    with pytest.raises(InputError):
        check_stripe(0, 2, "s")
