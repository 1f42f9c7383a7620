"""Pieces of `blockfit bench` that need no server: workload names, pgbench log parsing, CPU-bound evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.dbbench import evidence, oltp
from blockfit.dbbench.runner import parse_workloads
from blockfit.errors import InputError
from blockfit.schema.bench import DbCounters


def test_workloads_expand_in_a_fixed_order() -> None:
    assert parse_workloads("load,oltp") == ["oltp-select", "oltp-tpcb", "load"]
    assert parse_workloads("dss,oltp-select") == ["oltp-select", "dss"]
    with pytest.raises(InputError, match="'tpcc'"):
        parse_workloads("oltp,tpcc")


def test_pgbench_per_transaction_logs_of_every_thread_are_read_and_removed(tmp_path: Path) -> None:
    prefix = tmp_path / "pgbench-A-select"
    (tmp_path / "pgbench-A-select.123").write_text("0 1 1000 0 1700000000 1\n1 1 3000 0 1700000000 2\n")
    (tmp_path / "pgbench-A-select.123.1").write_text("2 1 2000 0 1700000000 3\n3 1 100000 0 1700000000 4\n")
    lat = oltp.read_latencies(prefix)
    assert lat == [1.0, 2.0, 3.0, 100.0]
    assert oltp.percentile(lat, 50) == 2.0 and oltp.percentile(lat, 99) == 100.0
    assert list(tmp_path.iterdir()) == []


def test_without_a_device_cap_a_busy_cpu_is_named_and_the_run_is_not_io_bound() -> None:
    busy = evidence.judge(None, 97.0, None, DbCounters(), None)
    assert busy.binding == "cpu" and not busy.io_bound and "97 %" in busy.binding_detail
    idle = evidence.judge(None, 20.0, None, DbCounters(), None)
    assert idle.binding == "unknown" and not idle.io_bound


def test_db_deltas_give_the_buffer_hit_ratio() -> None:
    before = dict.fromkeys(evidence.DB_FIELDS, 0)
    after = {**before, "blks_read": 250, "blks_hit": 750, "wal_bytes": 8192}
    d = evidence.db_delta(before, after)
    assert d.hit_ratio == 0.75 and d.wal_bytes == 8192
