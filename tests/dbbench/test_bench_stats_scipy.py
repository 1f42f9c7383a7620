"""The bench's Student-t intervals come from scipy.stats.t; the hand-written incomplete-beta CDF and bisection
quantile they replace are kept here as the reference. On many drawn inputs both give the same quantiles to 1e-9 and
the same verdicts, sentences, stopping decisions and trends: a user sees the same bench result."""

from __future__ import annotations

import functools
import math
import random

import pytest

from blockfit.dbbench import stats

# ---- the replaced implementation, verbatim (the reference)

def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-12:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln) * _betacf(b, a, 1.0 - x) / b


def old_t_cdf(t: float, df: int) -> float:
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=256)   # as the replaced one was
def old_t_quantile(p: float, df: int) -> float:
    lo, hi = -1e4, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2
        if old_t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# ----

LEVELS = (stats.LEVEL, 1.0 - (1.0 - stats.LEVEL) / 2.0, 1.0 - (1.0 - stats.TREND_LEVEL) / 2.0)


def test_quantiles_agree_with_the_reference() -> None:
    rng = random.Random(20261207)
    ps = [*LEVELS, *(rng.uniform(0.55, 0.999) for _ in range(12))]
    worst = max(abs(stats.t_quantile(p, df) - old_t_quantile(p, df)) / old_t_quantile(p, df)
                for p in ps for df in (*range(1, 13), 20, 39, 60, 120, 500))
    assert worst < 1e-9


def test_cdf_agrees_with_the_reference() -> None:
    rng = random.Random(7)
    cases = [(rng.uniform(-8, 8), rng.randint(1, 200)) for _ in range(500)]
    assert max(abs(stats.t_cdf(t, df) - old_t_cdf(t, df)) for t, df in cases) < 1e-10


def _bench_outputs(rng: random.Random) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for _ in range(1500):
        n = rng.randint(2, 12)
        true = math.exp(rng.uniform(-0.3, 0.3))
        noise = rng.choice((0.01, 0.03, 0.08, 0.16))
        base = [1000 * math.exp(rng.gauss(0, noise)) for _ in range(n)]
        other = [b * true * math.exp(rng.gauss(0, noise)) for b in base]
        higher = rng.random() < 0.5
        ci = stats.ratio_ci(base, other, higher)
        tr = stats.trend(other)
        out.append((stats.verdict_text(ci, "B", "A"), stats.fmt_ratio(ci.low), stats.fmt_ratio(ci.high),
                    stats.enough(ci, 0.10), stats.enough(ci, 0.05), None if tr is None else tr.drifts))
    return out


def test_bench_verdicts_are_the_same_as_with_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """1,500 drawn A/B comparisons (2-12 pairs, 1-16 % noise, ratios 0.74x-1.35x): every verdict sentence, interval
    bound as printed, stopping decision and drift flag is the same with the replaced quantile."""
    new = _bench_outputs(random.Random(42))
    monkeypatch.setattr(stats, "t_quantile", old_t_quantile)
    old = _bench_outputs(random.Random(42))
    assert len(new) == 1500
    assert {v[0][0] for v in new} >= {"faster", "slower", "no significant difference"}
    assert [i for i, (a, b) in enumerate(zip(new, old, strict=True)) if a != b] == []
