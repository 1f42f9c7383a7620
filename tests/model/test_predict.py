"""model.predict: the figures are the tightest of the limits it lists, each limit sits at or above them, and the
latency curve never beats the maximum."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.model.predict import predict, touched_members
from blockfit.schema import Prediction, Workload
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


def _predict(spec: str, vm: str = "m6i.8xlarge", **wl: object) -> Prediction:
    return predict(parse_layout(spec, "aws", AWS), parse_instance(vm, "aws", AWS), Workload(**wl), AWS)  # type: ignore[arg-type]


@pytest.mark.parametrize(("spec", "vm"), [("4x500G@gp3", "m6i.8xlarge"), ("8x1T@gp3:16000:1000", "m6i.large"),
                                          ("2x4T@io2:30000", "m6i.32xlarge"), ("1x2T@st1", "m6i.8xlarge")])
def test_the_figures_are_the_tightest_listed_limit(spec: str, vm: str) -> None:
    p = _predict(spec, vm)
    assert p.max_iops == pytest.approx(min(lim.iops for lim in p.limits))
    assert p.max_mbps == pytest.approx(min(lim.mbps for lim in p.limits))
    names = {lim.name for lim in p.limits}
    assert p.iops_limited_by in names and p.mbps_limited_by in names
    assert all(lim.iops_headroom_pct >= -1e-6 and lim.mbps_headroom_pct >= -1e-6 for lim in p.limits)


def test_the_curve_rises_to_the_maximum_and_never_beyond() -> None:
    p = _predict("4x500G@gp3")
    iops = [pt.iops for pt in p.curve]
    assert iops and max(iops) <= p.max_iops * (1 + 1e-6)
    assert all(b >= a * (1 - 1e-9) for a, b in zip(iops, iops[1:], strict=False))


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 8))
def test_another_member_never_lowers_the_figures(members: int) -> None:
    fewer, more = _predict(f"{members}x500G@gp3"), _predict(f"{members + 1}x500G@gp3")
    assert more.max_iops >= fewer.max_iops * (1 - 1e-9) and more.max_mbps >= fewer.max_mbps * (1 - 1e-9)


def test_a_prediction_round_trips_and_names_its_cost() -> None:
    p = _predict("2x500G@gp3")
    assert Prediction.model_validate_json(p.model_dump_json()) == p
    assert p.cost.storage is not None and p.cost.storage > 0 and p.usable_gb == 1000


@given(st.integers(1, 16), st.sampled_from([64 * 1024, 256 * 1024, 1 << 20]), st.integers(512, 8 << 20))
def test_an_io_spans_the_stripe_units_it_covers(members: int, stripe: int, io: int) -> None:
    lay = parse_layout(f"{members}x500G@gp3", "aws", AWS, stripe_size=stripe)
    n = touched_members(lay, io)
    assert 1 <= n <= members
    assert n == (1 if members == 1 else min(members, -(-io // stripe)))
