"""When one layout is faster: a CI of the speed ratio from interleaved pairs, and an honest early stop.

The choice, and why:
- Runs are interleaved in counterbalanced rounds (A B, B A, A B …), so run k of A and run k of B are
  neighbours in time. We compare them as a *pair*: d_k = ln(speed_B,k / speed_A,k). Pairing cancels slow drift
  that hits both (other tenants, a checkpoint cycle, thermal); flipping the order each round keeps a drift
  within a round from favouring the layout that always runs second; the log makes "B 25 % faster" and
  "A 20 % slower" the same size and turns the ratio into a mean.
- The interval is Student's t on the mean of d (exp() gives the ratio and its bounds). With the few runs a
  database bench can afford (3–10), the alternatives fail: a bootstrap of 3 pairs has only 10 distinct
  resamples and covers far less than 95 %; a sign-flip permutation test of 3 pairs has 8 arrangements, so
  its smallest two-sided p-value is 0.25 and it can never call a winner. t is exact for normal log ratios
  and robust enough for the near-symmetric run-to-run noise of a throttled device.
- Sequential stopping: the comparison is looked at a few planned times (e.g. after 3, 6 and 10 runs). Each
  look uses level 1 − α/K for K planned looks (Bonferroni), so the chance of *any* false verdict over all
  looks stays ≤ α = 5 %. It is conservative, but simple and valid whatever the correlation between looks.
  A look stops the runs as soon as the interval excludes zero (the verdict is settled); a layout compared
  with itself (A/A) keeps going to --repeat and ends in "no significant difference" ≥ 95 % of the time.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass

ALPHA = 0.05
FIRST_LOOK = 3


def looks_at(repeat: int) -> list[int]:
    """Planned run counts for the interim looks: after 3 runs, halfway (only when --repeat is above 6) and at
    --repeat. Few looks keep the Bonferroni penalty small; each look costs width at every other look."""
    if repeat <= FIRST_LOOK:
        return [repeat]
    if repeat <= 6:
        return [FIRST_LOOK, repeat]
    return [FIRST_LOOK, (FIRST_LOOK + repeat + 1) // 2, repeat]


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
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
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: int) -> float:
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df degrees of freedom (bisection on the CDF)."""
    lo, hi = -1e4, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class RatioCI:
    ratio: float | None         # speed other / baseline (geometric mean of the pairs)
    low: float | None
    high: float | None
    confidence: float
    pairs: int

    @property
    def settled(self) -> bool:
        """The interval excludes 1 (no difference): a verdict can be given."""
        return self.low is not None and self.high is not None and (self.low > 1.0 or self.high < 1.0)


def speeds(values: list[float], higher_is_better: bool) -> list[float]:
    return [v if higher_is_better else 1.0 / v for v in values]


def ratio_ci(baseline: list[float], other: list[float], higher_is_better: bool, looks: int,
             alpha: float = ALPHA) -> RatioCI:
    """The speed ratio other/baseline over paired runs with its (1 − α/looks) two-sided t interval."""
    pairs = [(a, b) for a, b in zip(speeds(baseline, higher_is_better), speeds(other, higher_is_better),
                                    strict=False) if a > 0 and b > 0]
    level = 1.0 - alpha / max(1, looks)
    if not pairs:
        return RatioCI(None, None, None, level, 0)
    d = [math.log(b / a) for a, b in pairs]
    mean = statistics.fmean(d)
    if len(d) < 2:
        return RatioCI(math.exp(mean), None, None, level, len(d))
    half = t_quantile(1.0 - (1.0 - level) / 2.0, len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))
    return RatioCI(math.exp(mean), math.exp(mean - half), math.exp(mean + half), level, len(d))


def verdict_text(ci: RatioCI, other: str, baseline: str) -> tuple[str, str]:
    """('faster' | 'slower' | 'no significant difference', the sentence)."""
    if ci.ratio is None:
        return "no significant difference", "no runs to compare"
    pct = lambda r: f"{(r - 1) * 100:+.0f} %"  # noqa: E731
    span = f"[{pct(ci.low)}, {pct(ci.high)}]" if ci.low is not None and ci.high is not None else "[no interval]"
    level = f"{ci.confidence:.1%} CI, {ci.pairs} pairs"
    if ci.settled and ci.ratio > 1.0:
        return "faster", f"{other} faster by {(ci.ratio - 1) * 100:.0f} % {span} than {baseline} ({level})"
    if ci.settled:
        return "slower", f"{other} slower by {(1 - ci.ratio) * 100:.0f} % {span} than {baseline} ({level})"
    return "no significant difference", (f"no significant difference: {other} vs {baseline} {pct(ci.ratio)} "
                                         f"{span} ({level})")
