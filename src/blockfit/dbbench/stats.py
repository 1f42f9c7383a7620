"""How much faster one layout is: a CI of the speed ratio from interleaved pairs, runs until it is narrow, drift.

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
- A magnitude, not only a direction: the runs go on, round after round, until the interval is within the
  precision target (±10 % by default: high/ratio and ratio/low both at most 1.10) or the budget ends. The looks
  before the last only read the interval's width, never its position, so they do not test anything: the verdict
  is one test at the end. A width-based stop still favours stopping when the sample spread happens to be small,
  which costs coverage: simulated with pair noise of 2-16 %, 95 % intervals checked from the third pair on
  covered the true ratio only 91-95 % of the time. The interval is therefore given at 97.5 % and first checked
  at the fourth pair (MIN_PAIRS), which keeps its coverage at or above 95 % under that rule (96-98 %; an A/A
  ends in "no significant difference" as often; tests/dbbench/test_bench_stats.py simulates it with this module's
  own rule). What it costs: about one pair more than a 95 % interval needs.
- Negligible: a ratio within 3 % of 1 is not called a win even when its interval excludes 1. Each layout is one
  cluster, and two clusters on one device differ by more than their runs' noise: an A/A (the same device
  twice, the bench's own test) measured 0.982x [0.969x, 0.995x] in 4 pairs, its members delivering 1.00x the
  IOPS at 1.02x the device I/Os per transaction. No number of runs removes that, so a difference that small
  says "negligible difference", with its interval, rather than "slower".
- Drift: a layout's runs are fitted with a least-squares line of ln(score) over the run order; a slope whose t
  statistic passes the two-sided 95 % quantile (n − 2 degrees of freedom) is a trend larger than the noise, and
  the verdict says so (a warming series averaged into a ratio is not a ratio of two states).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from blockfit.units import fmt_times

ALPHA = 0.05
LEVEL = 0.975      # the verdict's interval (see above: the width-based stop costs coverage)
MIN_PAIRS = 4      # the first look at the interval's width
NEGLIGIBLE = 0.03  # a ratio within this of 1 is not called a win (see above)
TREND_LEVEL = 0.95  # a drift: a slope whose t statistic passes this two-sided quantile


def t_cdf(t: float, df: int) -> float:
    """Student's t CDF with df degrees of freedom (scipy.stats.t)."""
    from scipy.stats import t as student_t  # here: scipy.stats takes a few tenths of a second to load

    return float(student_t.cdf(t, df))


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df degrees of freedom (scipy.stats.t; a run asks for a few, cached)."""
    from scipy.stats import t as student_t

    return float(student_t.ppf(p, df))


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

    @property
    def half_width(self) -> float | None:
        """The interval's wider side relative to the ratio: 0.08 means within ±8 % (high/ratio and ratio/low
        both at most 1.08)."""
        if self.ratio is None or self.low is None or self.high is None:
            return None
        return max(self.high / self.ratio - 1.0, self.ratio / self.low - 1.0)

    def within(self, precision: float) -> bool:
        """The interval is within ±precision (a fraction) of the ratio."""
        return self.half_width is not None and self.half_width <= precision


def speeds(values: list[float], higher_is_better: bool) -> list[float]:
    return [v if higher_is_better else 1.0 / v for v in values]


def ratio_ci(baseline: list[float], other: list[float], higher_is_better: bool,
             level: float = LEVEL) -> RatioCI:
    """The speed ratio other/baseline over paired runs with its two-sided t interval at ``level``."""
    pairs = [(a, b) for a, b in zip(speeds(baseline, higher_is_better), speeds(other, higher_is_better),
                                    strict=False) if a > 0 and b > 0]
    if not pairs:
        return RatioCI(None, None, None, level, 0)
    d = [math.log(b / a) for a, b in pairs]
    mean = math.fsum(d) / len(d)
    if len(d) < 2:
        return RatioCI(math.exp(mean), None, None, level, len(d))
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1))  # statistics.stdev is exact, and 50x slower
    half = t_quantile(1.0 - (1.0 - level) / 2.0, len(d) - 1) * sd / math.sqrt(len(d))
    return RatioCI(math.exp(mean), math.exp(mean - half), math.exp(mean + half), level, len(d))


def enough(ci: RatioCI, precision: float | None) -> bool:
    """The stopping rule the runner and the simulation share: from MIN_PAIRS pairs on, stop once the interval is
    within ±precision; no precision (None): never early (every planned round runs)."""
    return precision is not None and ci.pairs >= MIN_PAIRS and ci.within(precision)


def fmt_ratio(r: float | None) -> str:
    """A speed ratio to three significant digits: '4.02×', '0.97×'."""
    return fmt_times(r, 3)


def verdict_text(ci: RatioCI, other: str, baseline: str) -> tuple[str, str]:
    """('faster' | 'slower' | 'negligible difference' | 'no significant difference', the sentence), the ratio and
    its interval first: 'B is 4.02× A [3.71×, 4.35×]: faster (97.5% CI, 6 pairs)'."""
    if ci.ratio is None:
        return "no significant difference", "no runs to compare"
    span = f"[{fmt_ratio(ci.low)}, {fmt_ratio(ci.high)}]" if ci.low is not None and ci.high is not None \
        else "[no interval]"
    if not ci.settled:
        verdict, why = "no significant difference", ""
    elif abs(math.log(ci.ratio)) < math.log(1 + NEGLIGIBLE):
        verdict, why = "negligible difference", f"under {NEGLIGIBLE * 100:g} %, "
    else:
        verdict, why = ("faster" if ci.ratio > 1.0 else "slower"), ""
    return verdict, (f"{other} is {fmt_ratio(ci.ratio)} {baseline} {span}: {verdict} "
                     f"({why}{ci.confidence:.1%} CI, {ci.pairs} pairs)")


@dataclass(frozen=True)
class Trend:
    """A least-squares line of ln(score) over a layout's runs in order."""

    change: float        # the line's change from the first run to the last, relative (0.12 = +12 %)
    first_last: float    # last run / first run - 1
    t: float | None      # the slope's t statistic (None: the runs lie exactly on the line, or too few)
    drifts: bool         # the slope is larger than the noise around the line (see the module docstring)


def trend(scores: list[float], level: float = TREND_LEVEL) -> Trend | None:
    """The trend of one layout's runs (None with fewer than 3 usable runs: no noise to weigh a slope against)."""
    y = [math.log(v) for v in scores if v > 0]
    n = len(y)
    if n < 3:
        return None
    xs = range(n)
    mx, my = (n - 1) / 2, math.fsum(y) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (v - my) for x, v in zip(xs, y, strict=True)) / sxx
    resid = [v - (my + slope * (x - mx)) for x, v in zip(xs, y, strict=True)]
    sse = sum(r * r for r in resid)
    se = math.sqrt(sse / (n - 2) / sxx)
    t = slope / se if se > 1e-12 else None
    crit = t_quantile(1.0 - (1.0 - level) / 2.0, n - 2)
    drifts = (abs(t) > crit) if t is not None else abs(slope) > 1e-9
    return Trend(change=math.exp(slope * (n - 1)) - 1.0, first_last=math.exp(y[-1] - y[0]) - 1.0, t=t,
                 drifts=drifts)
