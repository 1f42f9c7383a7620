"""The bench's statistics: Student t quantiles, the paired ratio CI, and the sequential stopping rule's error rate."""

from __future__ import annotations

import math
import random

import pytest

from blockfit.dbbench.runner import round_order
from blockfit.dbbench.stats import LEVEL, MIN_PAIRS, RatioCI, enough, ratio_ci, t_quantile, trend, verdict_text


@pytest.mark.parametrize(("p", "df", "expected"), [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 9, 2.2622),
                                                   (0.995, 4, 4.6041), (0.9917, 2, 7.6)])
def test_t_quantiles_match_published_tables(p: float, df: int, expected: float) -> None:
    assert t_quantile(p, df) == pytest.approx(expected, rel=2e-3 if df > 2 or p != 0.9917 else 1e-2)


def test_ratio_is_a_speed_ratio_for_times_too() -> None:
    ci = ratio_ci([10.0, 10.2, 9.9], [5.0, 5.1, 5.0], higher_is_better=False)
    assert ci.ratio == pytest.approx(2.0, rel=0.02) and ci.settled and ci.low is not None and ci.low > 1
    verdict, text = verdict_text(ci, "B", "A")
    assert verdict == "faster" and text.startswith("B is 1.99× A [1.95×, 2.04×]: faster (97.5% CI, 3 pairs)")


def test_the_interval_comes_first_and_its_half_width_is_its_wider_side() -> None:
    ci = RatioCI(4.0, 3.7, 4.3, LEVEL, 6)
    assert verdict_text(ci, "B", "A")[1].startswith("B is 4× A [3.7×, 4.3×]: faster")
    assert ci.half_width == pytest.approx(4.0 / 3.7 - 1)  # ratio/low is the wider side here
    assert ci.within(0.09) and not ci.within(0.08)
    assert verdict_text(RatioCI(1.01, 0.97, 1.05, LEVEL, 5), "B", "A")[0] == "no significant difference"
    # the A/A that failed a CI run: settled, but under 3 %: no win is called, and the text says why
    verdict, text = verdict_text(RatioCI(0.982, 0.969, 0.995, LEVEL, 4), "warm", "cold")
    assert verdict == "negligible difference" and "(under 3 %, 97.5% CI, 4 pairs)" in text, text
    assert verdict_text(RatioCI(0.965, 0.95, 0.98, LEVEL, 4), "B", "A")[0] == "slower"  # 3.5 %: called
    assert verdict_text(RatioCI(1.035, 1.02, 1.05, LEVEL, 4), "B", "A")[0] == "faster"


def _measure(rng: random.Random, true_ratio: float, noise: float, repeat: int, precision: float | None,
             order: bool = False) -> tuple[RatioCI, int]:
    """Rounds until the runner's own stopping rule (stats.enough) says the interval is narrow enough. A drift
    shared by a pair (pairing must cancel it); with ``order``, whoever runs second in a round gains 2 %."""
    a: list[float] = []
    b: list[float] = []
    ci = ratio_ci(a, b, True)
    for n in range(1, repeat + 1):
        drift = math.exp(rng.gauss(0, 0.1))
        second = round_order(["A", "B"], n)[1] if order else None
        a.append(100 * drift * math.exp(rng.gauss(0, noise)) * (1.02 if second == "A" else 1.0))
        b.append(100 * true_ratio * drift * math.exp(rng.gauss(0, noise)) * (1.02 if second == "B" else 1.0))
        ci = ratio_ci(a, b, True)
        if enough(ci, precision):
            break
    return ci, len(a)


@pytest.mark.parametrize("noise", [0.02, 0.05, 0.08, 0.12])
def test_stopping_once_narrow_keeps_the_interval_honest(noise: float) -> None:
    """Stopping when the interval is narrow favours a small sample spread; at 97.5 % from the fourth pair on the
    interval still covers the true ratio at least 95 % of the time, and an A/A says 'no significant difference'
    as often (a 95 % interval checked from the third pair covered 91-95 %)."""
    rng = random.Random(int(noise * 1000))
    trials = [_measure(rng, 1.0, noise, 12, 0.10) for _ in range(1500)]
    covered = sum(ci.low is not None and ci.high is not None and ci.low <= 1.0 <= ci.high for ci, _ in trials)
    assert covered / len(trials) >= 0.95, covered / len(trials)
    assert all(n >= MIN_PAIRS for _, n in trials)


def test_a_clear_difference_is_measured_to_the_target_in_few_rounds() -> None:
    rng = random.Random(7)
    runs = [_measure(rng, 4.0, 0.02, 10, 0.10) for _ in range(200)]  # 2 % noise per run
    assert all(verdict_text(ci, "B", "A")[0] == "faster" and ci.within(0.10) for ci, _ in runs)
    assert sum(n == MIN_PAIRS for _, n in runs) / len(runs) >= 0.9
    assert all(0.90 <= (ci.ratio or 0) / 4.0 <= 1.10 for ci, _ in runs)


def test_without_a_target_every_round_runs() -> None:
    ci, n = _measure(random.Random(1), 4.0, 0.01, 8, None)
    assert n == 8 and ci.pairs == 8


def test_rounds_flip_order_so_a_within_round_drift_is_no_winner() -> None:
    assert round_order(["A", "B", "C"], 1) == ["A", "B", "C"]
    assert round_order(["A", "B", "C"], 2) == ["C", "B", "A"]
    rng = random.Random(3)
    flipped = [_measure(rng, 1.0, 0.005, 10, 0.10, order=True)[0] for _ in range(500)]
    assert sum(verdict_text(ci, "B", "A")[0] in ("faster", "slower") for ci in flipped) / 500 <= 0.05


def test_a_warming_series_is_a_drift_and_noise_is_not() -> None:
    warming = trend([148.0, 170.0, 186.0, 195.0, 197.0])  # the slower layout, filling its cache
    assert warming is not None and warming.drifts and warming.change > 0.2
    rng = random.Random(5)
    flat = [trend([200 * math.exp(rng.gauss(0, 0.03)) for _ in range(6)]) for _ in range(400)]
    assert sum(t is not None and t.drifts for t in flat) / len(flat) <= 0.07  # a 5 % test, by chance
    assert trend([100.0, 101.0]) is None  # two runs: no noise to weigh a slope against
