"""targets on float columns (issue 36 part 4): a history is summed, ordered and ranked by numpy, never one object
per interval; these properties check it against the plain per-object arithmetic it replaced (a dict of samples
per key, Python sums in source order, the same sort), on random sources of several members, with and without
start times, read/write splits and positional keys."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.errors import InputError
from blockfit.history.series import Sample, SampleTable, Series
from blockfit.history.targets import targets_from_series

KEYS = st.one_of(st.integers(0, 12), st.sampled_from(["2668-2669", "2669-2670", "a", "b"]))
RATE = st.floats(0, 1e6, allow_nan=False)


@st.composite
def a_series(draw: st.DrawFn, name: str) -> Series:
    positional = draw(st.booleans())
    members = draw(st.lists(st.sampled_from(["i1", "i2", "i3"]), min_size=1, max_size=3, unique=True))
    n = draw(st.integers(1, 25))
    rows = []
    for i in range(n):
        split = draw(st.booleans())
        r, w = draw(RATE), draw(RATE)
        rows.append(Sample(i if positional else draw(KEYS), draw(st.sampled_from(members)),
                           draw(st.one_of(st.none(), st.sampled_from([0.0, 60.0, 120.0, 3600.0]))), 10.0,
                           f"{name}-{i}", r if split else None, w if split else None, r + w, draw(RATE), draw(RATE)))
    if positional or draw(st.booleans()):
        table = SampleTable(positional_keys=positional)
        for x in rows:
            table.append(x)
        samples: list[Sample] | SampleTable = table
    else:
        samples = rows
    return Series(source=name, format="csv", member_kind="instance", samples=samples)


def reference(series: list[Series], percentile: float) -> tuple[int, float, float, str, float]:
    """(intervals, IOPS and MB/s percentiles, the IOPS peak's label, read share) the per-object way."""
    per_key = []
    for s in series:
        d: dict[object, list[Sample]] = {}
        for x in s.samples:
            d.setdefault(x.key, []).append(x)
        per_key.append(d)
    common = set(per_key[0]).intersection(*per_key[1:])
    totals = []
    for key in common:
        g = [x for d in per_key for x in d[key]]
        totals.append((key, min((x.start for x in g if x.start is not None), default=None), g[0].label,
                       sum(x.iops for x in g), sum(x.read_mbps for x in g) + sum(x.write_mbps for x in g),
                       sum(x.read_iops or 0.0 for x in g), sum(x.write_iops or 0.0 for x in g),
                       all(x.read_iops is not None and x.write_iops is not None for x in g),
                       sum(x.read_mbps for x in g), sum(x.write_mbps for x in g)))
    totals.sort(key=lambda t: (t[1] if t[1] is not None else math.inf, str(t[0])))
    if all(t[1] is None for t in totals):
        totals.sort(key=lambda t: (0, t[0]) if isinstance(t[0], (int, float)) else (1, str(t[0])))
    if not totals:
        return 0, 0.0, 0.0, "", 0.0
    iops = np.array([t[3] for t in totals])
    mbps = np.array([t[4] for t in totals])
    if all(t[7] for t in totals):
        reads = np.array([t[5] for t in totals])
        total = float(((reads + np.array([t[6] for t in totals])) * 10.0).sum())
        share = 100.0 * float((reads * 10.0).sum()) / total if total > 0 else 100.0
    else:
        rb = float((np.array([t[8] for t in totals]) * 10.0).sum())
        total = rb + float((np.array([t[9] for t in totals]) * 10.0).sum())
        share = 100.0 * rb / total if total > 0 else 100.0
    return (len(totals), float(np.percentile(iops, percentile)), float(np.percentile(mbps, percentile)),
            totals[int(np.argmax(iops))][2], share)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=3).flatmap(
    lambda seeds: st.tuples(*[a_series(f"src{i}") for i in range(len(seeds))])),
    st.sampled_from([50.0, 95.0, 99.9, 100.0]))
def test_columns_sum_and_rank_as_the_per_object_arithmetic(series: tuple[Series, ...], percentile: float) -> None:
    chosen = list(series)
    want = reference(chosen, percentile)
    try:
        got = targets_from_series(chosen, percentile=percentile)
    except InputError as exc:  # the cases the reader refuses: nothing shared, or no I/O at all
        assert want[0] == 0 or (want[1] <= 0 and want[2] <= 0), exc
        return
    assert (got.samples, got.iops, got.mbps, got.peak_iops_window.label) == want[:4]
    assert got.read_pct == want[4]
    assert len(got.series) == want[0]
