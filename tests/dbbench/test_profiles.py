"""dbbench/profiles.py: each profile's longest warm-up window and measured run fit its budgets (the share left for
evidence and the stop rule included), and the server's settings follow the profile."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.profiles import PROFILES, SHARE, Profile


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_windows_and_runs_fill_at_most_their_share_of_the_budgets(name: str) -> None:
    p = PROFILES[name]
    assert p.name == name
    window = p.longest_window()
    assert window >= p.warmup_seconds
    assert window == p.warmup_seconds or window * 2 * p.steady_windows == pytest.approx(SHARE * p.warmup_budget_s)
    for layouts in (1, 2, 3, 5):
        run = p.longest_run(layouts)
        assert run >= p.run_seconds
        assert run == p.run_seconds or run * layouts * p.planned_pairs == pytest.approx(SHARE * p.rounds_budget_s)


@given(st.integers(1, 20), st.floats(1, 600), st.floats(10, 3600))
def test_a_run_gets_shorter_with_more_layouts_down_to_the_profiles_own(layouts: int, run_s: float,
                                                                      budget: float) -> None:
    p = Profile("t", 1, "1MB", 1, 1, run_s, 1, 1, (1,), 1, rounds_budget_s=budget)
    assert p.longest_run(layouts) >= p.longest_run(layouts + 1) >= run_s
    assert p.longest_run(0) == p.longest_run(1)   # no layout is counted as one


def test_server_settings_follow_the_profile() -> None:
    for p in PROFILES.values():
        s = p.server_settings()
        assert s["shared_buffers"] == p.shared_buffers
        assert int(s["max_connections"]) > p.oltp_clients
        assert s["jit"] == "off"
