"""dbbench.oltp: nearest-rank percentiles of pgbench's per-transaction latencies, read from its log files."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.oltp import percentile, read_latencies


@given(st.lists(st.floats(0, 1e4), min_size=1, max_size=200), st.floats(0.01, 100))
def test_the_percentile_is_a_value_with_at_least_p_percent_at_or_below(values: list[float], p: float) -> None:
    xs = sorted(values)
    v = percentile(xs, p)
    assert v in xs
    assert sum(x <= v for x in xs) >= math.ceil(p * len(xs) / 100 - 1e-9)


def test_the_ends_and_an_empty_list() -> None:
    assert percentile([1.0, 2.0, 3.0], 100) == 3.0 and percentile([1.0, 2.0, 3.0], 0.001) == 1.0
    assert percentile([], 50) == 0.0


def test_latencies_come_from_every_threads_log_in_ms_and_the_logs_go(tmp_path: Path) -> None:
    prefix = tmp_path / "pgbench_log"
    (tmp_path / "pgbench_log.101").write_text("0 1 2500 0 1700000000 1\n0 2 1500 0 1700000000 2\n")
    (tmp_path / "pgbench_log.101.1").write_text("1 1 500 0 1700000000 3\nnoise line\n")
    (tmp_path / "other.1").write_text("0 1 9 0 0 0\n")
    assert read_latencies(prefix) == [0.5, 1.5, 2.5]
    assert [p.name for p in tmp_path.iterdir()] == ["other.1"]
