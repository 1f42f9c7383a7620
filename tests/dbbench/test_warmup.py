"""dbbench.warmup: a warm-up is steady once the last windows agree with the ones before, on throughput and on
device I/Os per unit of work; runs are sized to a number of device I/Os."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.warmup import MIN_IOS, change, rate, sized, steady
from blockfit.schema.bench import WarmupWindow


def _w(tput: float, per_unit: float | None = 2.0, ios: int | None = 1000, **kw: object) -> WarmupWindow:
    return WarmupWindow.model_validate({"seconds": 10, "work": tput * 10, "throughput": tput, "device_ios": ios,
                                        "ios_per_unit": per_unit, **kw})


def test_change_is_the_relative_move_of_the_mean() -> None:
    assert change([100, 100], [110, 110]) == pytest.approx(0.10)
    assert change([100], [90]) == pytest.approx(0.10)
    assert change([0, 0], [5]) == 0.0


def test_steady_needs_both_blocks_and_agreement_on_throughput_and_ios_per_unit() -> None:
    assert steady([_w(100), _w(101), _w(100), _w(102)], 2, 5)
    assert not steady([_w(100), _w(101), _w(100)], 2, 5)   # one window short
    assert not steady([_w(100), _w(100), _w(120), _w(120)], 2, 5)
    assert not steady([_w(100, 2.0), _w(100, 2.0), _w(100, 3.0), _w(100, 3.0)], 2, 5)
    assert not steady([_w(100), _w(100), _w(100), _w(100, failed="OOM")], 2, 5)


def test_a_cpu_bound_warm_up_is_judged_on_ios_per_unit_alone_and_few_ios_say_nothing() -> None:
    cpu = [_w(100, binding="cpu"), _w(100), _w(150), _w(150)]
    assert steady(cpu, 2, 5)
    few = [_w(100, 2.0, MIN_IOS - 1), _w(100, 2.0), _w(100, 9.0), _w(100, 9.0)]
    assert steady(few, 2, 5)


def test_the_rate_counts_only_counted_windows_and_needs_enough_ios() -> None:
    assert rate([_w(1, ios=600), _w(1, ios=400), _w(1, ios=None)]) == pytest.approx(1000 / 20)
    assert rate([_w(1, ios=MIN_IOS - 1)]) is None and rate([]) is None


@given(st.integers(1, 10**7), st.floats(1, 1e6), st.floats(1, 100), st.floats(100, 1000))
def test_a_sized_run_lasts_between_its_floor_and_its_most(target: int, iops: float, floor: float,
                                                          most: float) -> None:
    s = sized(target, iops, floor, most)
    assert floor <= s <= max(floor, most)
    assert s == max(floor, min(target / iops, most))
    assert sized(None, iops, floor, most) == floor and sized(target, None, floor, most) == floor
