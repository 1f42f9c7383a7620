"""dbbench.burst: did a layout's measured windows fit inside the burst of the cloud layout it stands for?"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.burst import check_burst, inside_burst, measured_span_s
from blockfit.schema.bench import BenchResult, BenchRun, LayoutInfo, MeasureResult, Warmup


def _info(label: str, runs: list[tuple[float, float]], warm: tuple[float, float] | None = None) -> LayoutInfo:
    warmup = None if warm is None else Warmup(unit="transaction", outcome="steady", steady_windows=3, steady_pct=5,
                                              budget_s=600, started_s=warm[0], seconds=warm[1], work=1, text="t")
    mr = MeasureResult(measure="oltp-select", unit="TPS", higher_is_better=True, warmup=warmup,
                       runs=[BenchRun(index=i + 1, started_s=s, seconds=d, score=1) for i, (s, d) in enumerate(runs)])
    return LayoutInfo(label=label, dir="/x", mount_point="/x", fstype="xfs", source="/dev/x", devices=["x"],
                      measures=[mr])


def test_the_span_runs_from_the_warm_up_to_the_last_runs_end() -> None:
    assert measured_span_s(_info("A", [(100, 30), (200, 30)], warm=(10, 60))) == 230 - 10
    assert measured_span_s(_info("A", [(100, 30), (50, 10)])) == 130 - 50
    assert measured_span_s(_info("A", [])) is None


@given(st.floats(0, 1e6), st.floats(0, 1e6))
def test_inside_means_no_longer_than_the_burst(duration: float, elapsed: float) -> None:
    assert inside_burst(duration, elapsed) == (elapsed <= duration)
    assert inside_burst(None, elapsed) is None


def test_only_layouts_that_measured_get_a_check() -> None:
    result = BenchResult.model_construct(layouts=[_info("A", [(0, 100)]), _info("B", [])])
    check_burst(result, "2x500G@gp2", "m6i.large", 1800.0)
    a, b = result.layouts
    assert a.burst_check is not None and a.burst_check.inside is True and a.burst_check.elapsed_s == 100
    assert b.burst_check is None
