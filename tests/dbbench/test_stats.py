"""dbbench.stats: the speed ratio's interval over paired runs, the verdict in words, and drift across runs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.dbbench.stats import MIN_PAIRS, RatioCI, enough, ratio_ci, speeds, trend, verdict_text


@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(1, 1e4), min_size=2, max_size=12), st.floats(0.2, 5))
def test_a_constant_factor_is_its_own_ratio(base: list[float], k: float) -> None:
    ci = ratio_ci(base, [b * k for b in base], higher_is_better=True)
    assert ci.ratio == pytest.approx(k) and ci.pairs == len(base)
    assert ci.low == pytest.approx(k) and ci.high == pytest.approx(k)


def test_lower_is_better_measures_invert_to_speeds() -> None:
    assert speeds([2.0, 4.0], higher_is_better=False) == [0.5, 0.25]
    ci = ratio_ci([10.0, 10.0, 10.0], [5.0, 5.0, 5.0], higher_is_better=False)
    assert ci.ratio == pytest.approx(2.0)


def test_the_interval_holds_the_ratio_and_one_pair_has_none() -> None:
    ci = ratio_ci([100, 102, 98, 101], [120, 118, 125, 119], True)
    assert ci.low is not None and ci.high is not None and ci.low < ci.ratio < ci.high   # type: ignore[operator]
    assert ci.settled and ratio_ci([1.0], [2.0], True).low is None
    assert ratio_ci([], [], True).ratio is None


def test_enough_needs_the_pairs_and_the_precision() -> None:
    narrow = RatioCI(2.0, 1.98, 2.02, 0.975, MIN_PAIRS)
    assert enough(narrow, 0.05) and not enough(narrow, None)
    assert not enough(RatioCI(2.0, 1.98, 2.02, 0.975, MIN_PAIRS - 1), 0.05)
    assert narrow.half_width == pytest.approx(max(2.02 / 2 - 1, 2 / 1.98 - 1))


@pytest.mark.parametrize(("ci", "verdict"), [(RatioCI(1.5, 1.4, 1.6, 0.975, 6), "faster"),
                                             (RatioCI(0.6, 0.5, 0.7, 0.975, 6), "slower"),
                                             (RatioCI(1.01, 1.005, 1.015, 0.975, 6), "negligible difference"),
                                             (RatioCI(1.1, 0.9, 1.3, 0.975, 6), "no significant difference")])
def test_the_verdict_follows_the_interval(ci: RatioCI, verdict: str) -> None:
    got, text = verdict_text(ci, "B", "A")
    assert got == verdict and text.startswith("B is ") and f": {verdict} (" in text and "6 pairs" in text


def test_a_drift_is_a_slope_above_the_noise() -> None:
    assert trend([1.0, 2.0]) is None
    up = trend([100 * 1.05**i + (-1) ** i for i in range(8)])
    flat = trend([100 + (-1) ** i * 3 for i in range(8)])
    assert up is not None and up.drifts and up.change > 0
    assert flat is not None and not flat.drifts
    exact = trend([math.e ** i for i in range(5)])
    assert exact is not None and exact.t is None
