"""report.plan: the plan section: the chosen layout first, then the front; an infeasible plan shows the best it
reached; a feasible plan without candidates is refused."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.plan.planner import make_plan as search
from blockfit.report.figures import FigureSink
from blockfit.report.plan import section, summary
from blockfit.schema import Plan, Requirements
from support.build import make_layout, make_plan


@pytest.fixture(scope="module")
def infeasible() -> Plan:
    req = Requirements(cloud="aws", capacity_gb=500, target_iops=2e6, instance_shape="m6i.large")
    return search(req, load_catalog("aws"))


def test_the_chosen_layout_is_the_first_row_and_no_price_draws_no_figure() -> None:
    plan = make_plan(make_layout(members=4))
    s = section(plan, "plan.json", FigureSink())
    assert s.figures == []   # no storage price: nothing to draw the layouts against
    table = s.tables[0]
    assert table.rows[0][0] == plan.candidates[0].layout and table.strong_rows == {0}
    assert ("Why this stripe size", [plan.candidates[0].stripe_reason]) in s.lists
    assert plan.candidates[0].layout in summary(plan)


def test_a_feasible_plan_without_candidates_is_refused() -> None:
    plan = make_plan(make_layout()).model_copy(update={"candidates": []})
    with pytest.raises(InputError, match="plan.json: a feasible plan with no candidates"):
        section(plan, "plan.json", FigureSink())


def test_an_infeasible_plan_shows_the_best_it_reached_greyed(infeasible: Plan) -> None:
    assert not infeasible.feasible and infeasible.infeasible is not None
    s = section(infeasible, "plan.json", FigureSink())
    text = summary(infeasible)
    assert text.startswith("Nothing meets") and "m6i.large" in text
    best = infeasible.infeasible.best
    assert best is not None and s.tables[0].rows[0][0].startswith(best.layout)
    assert "misses a target" in s.tables[0].caption
