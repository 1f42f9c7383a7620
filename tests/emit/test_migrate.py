"""emit/migrate.py's arithmetic: the extents an online migration adds so the stripes divide them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from blockfit.emit.migrate import extents_to_add


@given(st.integers(min_value=1, max_value=10**8), st.integers(min_value=1, max_value=32))
def test_extents_to_add_makes_the_count_divisible(extents, stripes):
    add = extents_to_add(extents, stripes)
    assert 0 <= add < stripes
    assert (extents + add) % stripes == 0


def test_extents_to_add_matches_the_seed():
    # "Number of extents requested (1165823) needs to be divisible by 8": one more extent fixes it
    assert extents_to_add(1165823, 8) == 1
