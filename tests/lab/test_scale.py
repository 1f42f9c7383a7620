"""The lab's scale: the factor that brings the plan's rates within what the emulator can do, and --scale's values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import InputError
from blockfit.lab.scale import IOPS_BUDGET, MBPS_BUDGET, choose_scale, parse_scale

rates = st.floats(min_value=1.0, max_value=5e6, allow_nan=False)


@given(st.lists(rates, min_size=1, max_size=4), st.lists(rates, min_size=1, max_size=4))
def test_scale_keeps_totals_within_budget_and_is_not_needlessly_small(iops: list[float], mbps: list[float]) -> None:
    f = choose_scale(iops, mbps)
    assert 0 < f <= 1
    assert max(iops) * f <= IOPS_BUDGET * (1 + 1e-9)
    assert max(mbps) * f <= MBPS_BUDGET * (1 + 1e-9)
    if f < 1:  # rounded down to two significant digits: never more than ~10 % below the exact factor
        exact = min(IOPS_BUDGET / max(iops), MBPS_BUDGET / max(mbps))
        assert f >= exact * 0.9 - 1e-12


@pytest.mark.parametrize("bad", ["0", "-1", "1.5", "fast", ""])
def test_parse_scale_rejects_bad_factors(bad: str) -> None:
    with pytest.raises(InputError, match=r"expected ('auto' or )?a factor in \(0, 1\]") as caught:
        parse_scale(bad)
    assert str(caught.value).startswith(repr(bad))   # the value; the command line names --scale


def test_parse_scale_auto_and_number() -> None:
    assert parse_scale("auto") is None
    assert parse_scale("0.02") == 0.02
