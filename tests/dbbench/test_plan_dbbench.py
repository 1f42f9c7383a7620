"""dbbench.plan: counterbalanced rounds and the progress a bench reports."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.plan import Plan, round_order


@given(st.lists(st.integers(), min_size=1, max_size=6), st.integers(1, 20))
def test_odd_rounds_run_as_given_and_even_ones_reversed(layouts: list[int], n: int) -> None:
    order = round_order(layouts, n)
    assert order == (layouts if n % 2 else layouts[::-1]) and sorted(order) == sorted(layouts)


def test_the_total_counts_each_stage_at_its_most_until_closed() -> None:
    seen: list[tuple[str, int, int]] = []
    plan: Plan[str] = Plan.make(2, ["dss", "load"], repeat=3, primes=True, progress=lambda *a: seen.append(a))
    assert list(plan.stages) == ["setup", "prime", "hook", "dss: warm-up", "dss: rounds", "load: warm-up",
                                 "load: rounds"]
    assert plan.total == 4 + 2 + 1 + 2 * (2 + 6)
    plan.step("dss: rounds", "round 1")
    plan.close("dss: rounds")   # stopped early: one step taken of six
    assert plan.done == 1 and plan.total == 4 + 2 + 1 + 2 + 1 + 2 + 6
    assert seen == [("round 1", 0, 23)]


def test_rounds_alternate_the_order() -> None:
    plan: Plan[str] = Plan.make(2, ["dss"], repeat=3, primes=False)
    plan.layouts = ["A", "B"]
    assert list(plan.rounds("dss")) == [(1, ["A", "B"]), (2, ["B", "A"]), (3, ["A", "B"])]
