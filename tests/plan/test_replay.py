"""plan.replay: the recorded demand run through a candidate's credit buckets from full: below the sustained rate
nothing is spent; a long stretch above it runs the credits out, and says where."""

from __future__ import annotations

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.plan.replay import replay
from blockfit.schema.history import DerivedTargets, HistoryPoint
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")
GP2 = predict(parse_layout("1x100G@gp2", "aws", AWS), parse_instance("m6i.2xlarge", "aws", AWS), None, AWS)


def _history(iops: list[float], step_s: float = 600) -> DerivedTargets:
    series = [HistoryPoint(t=i * step_s, duration_s=step_s, label=f"i{i}", read_iops=x, write_iops=0,
                           read_mbps=x * 8192 / 1e6, write_mbps=0) for i, x in enumerate(iops)]
    return DerivedTargets(sources=[], samples=len(iops), interval_s=step_s, percentile=100, percentile_name="peak",
                          peak_factor=1, peak_factor_source="x", headroom_pct=0, iops=max(iops), mbps=1, read_pct=100,
                          target_iops=max(iops), target_mbps=1, series=series)


def test_a_layout_that_does_not_burst_or_a_history_without_series_has_no_replay() -> None:
    oci = load_catalog("oci")
    steady = predict(parse_layout("1x100G@balanced", "oci", oci), parse_instance("VM.Standard.E4.Flex:16", "oci", oci),
                     None, oci)
    assert steady.burst is None and replay(steady, _history([100.0]), "balanced") is None
    assert GP2.burst is not None
    assert replay(GP2, _history([100.0]).model_copy(update={"series": []}), "gp2") is None


def test_demand_below_the_sustained_rate_meets_the_targets_without_a_stretch() -> None:
    got = replay(GP2, _history([100.0] * 12), "gp2")
    assert got is not None and got.meets_targets and got.stretches == 0 and got.drops == [] and got.intervals == 12


def test_a_short_stretch_above_it_spends_part_of_the_credits() -> None:
    got = replay(GP2, _history([100.0, 1000.0, 100.0, 100.0]), "gp2")
    assert got is not None and got.meets_targets and got.stretches == 1
    assert got.worst is not None and 0 < got.worst.budget_used_pct < 100 and got.worst.peak_iops == 1000.0


def test_a_long_stretch_above_it_runs_the_credits_out_and_says_when() -> None:
    got = replay(GP2, _history([100.0] + [2500.0] * 12), "gp2")
    assert got is not None and not got.meets_targets and got.drops
    drop = got.drops[0]
    assert drop.t >= 600 and drop.asked_iops == 2500.0 and drop.delivered_iops < drop.asked_iops
    assert got.worst is not None and got.worst.budget_used_pct == 100
