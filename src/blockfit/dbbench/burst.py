"""Whether a bench's measured windows fell inside the burst of the cloud layout it ran on: a bench that fits
inside the burst from full credits may have measured burst figures, not the sustained ones production lives on.
The duration comes from the model (the CLI asks it); here only the arithmetic on the bench's own times."""

from __future__ import annotations

from blockfit.schema.bench import BenchResult, BurstCheck, LayoutInfo


def measured_span_s(info: LayoutInfo) -> float | None:
    """Seconds from the start of the layout's first warm-up window or measured run to the end of its last
    measured run, over every measure; None: nothing was measured."""
    starts: list[float] = []
    ends: list[float] = []
    for mr in info.measures:
        if mr.warmup is not None and mr.warmup.started_s is not None:
            starts.append(mr.warmup.started_s)
            ends.append(mr.warmup.started_s + mr.warmup.seconds)
        for run in mr.runs:
            starts.append(run.started_s)
            ends.append(run.started_s + run.seconds)
    if not starts:
        return None
    return max(ends) - min(starts)


def inside_burst(duration_s: float | None, elapsed_s: float) -> bool | None:
    """True: windows spanning elapsed_s fit inside a burst lasting duration_s from full credits; None: no burst."""
    if duration_s is None:
        return None
    return elapsed_s <= duration_s


def check_burst(result: BenchResult, layout: str, instance: str, duration_s: float | None) -> None:
    """Set burst_check on each layout that measured something (a partial result may have some that did not)."""
    for info in result.layouts:
        elapsed = measured_span_s(info)
        if elapsed is not None:
            info.burst_check = BurstCheck(layout=layout, instance=instance, duration_s=duration_s,
                                          elapsed_s=elapsed, inside=inside_burst(duration_s, elapsed))
