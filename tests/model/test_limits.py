"""model.limits: a cap's IOPS and MB/s at an I/O size, counted at its accounting size."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.model.limits import QUEUE_LIMITS, Cap, is_station

sizes = st.sampled_from([4096, 8192, 16384, 65536, 262144, 1 << 20])


@given(st.floats(1, 1e6), st.integers(4096, 1 << 20), sizes)
def test_an_io_larger_than_the_accounting_size_counts_as_several(ops: float, acct: int, io: int) -> None:
    cap = Cap("volume_iops", "d", ops=ops, accounting_bytes=acct)
    assert cap.iops_at(io) == pytest.approx(ops / max(math.ceil(io / acct), 1))


@given(st.floats(1, 1e6), sizes)
def test_sequential_ios_merge_only_where_the_cap_says(ops: float, io: int) -> None:
    merging = Cap("volume_iops", "d", ops=ops, accounting_bytes=1 << 20, merges_sequential=True)
    plain = Cap("volume_iops", "d", ops=ops, accounting_bytes=1 << 20)
    assert merging.iops_at(io, sequential=True) == pytest.approx(ops * (1 << 20) / io)
    assert plain.iops_at(io, sequential=True) == pytest.approx(ops)


@given(st.floats(1, 1e5), st.floats(1, 1e4), sizes)
def test_a_cap_on_both_holds_the_lower(ops: float, mbps: float, io: int) -> None:
    cap = Cap("volume", "d", ops=ops, mbps=mbps)
    assert cap.iops_at(io) == pytest.approx(min(ops, mbps * 1e6 / io))
    assert cap.mbps_at(io) == pytest.approx(cap.iops_at(io, sequential=True) * io / 1e6)
    assert cap.mbps_at(io) <= mbps * (1 + 1e-9)


def test_volume_caps_queue_and_the_others_do_not() -> None:
    assert is_station(Cap("volume_iops", "d", ops=1.0))
    assert not is_station(Cap("iscsi_path", "d", ops=1.0)) and not is_station(Cap("instance_iops", "d", ops=1.0))
    assert len(set(QUEUE_LIMITS)) == 3
