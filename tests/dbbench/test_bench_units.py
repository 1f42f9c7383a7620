"""Pieces of `blockfit bench` that need no server: workload names, pgbench log parsing, CPU-bound evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.dbbench import evidence, oltp
from blockfit.dbbench.runner import parse_workloads
from blockfit.errors import InputError
from blockfit.schema.bench import IO_BINDINGS, DbCounters, DeviceEvidence


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


def _device(role: str, util: float, queue: float, name: str = "dm-0") -> DeviceEvidence:
    return DeviceEvidence(device=name, role=role, read_iops=0, write_iops=112, mbps=18.6, r_await_ms=0,
                          w_await_ms=356, aqu_sz=queue, util_pct=util)


def test_a_layout_whose_own_device_never_waits_is_held_by_storage_below_any_known_cap() -> None:
    """The lab bench's stripe DSS runs (2026-11-26): dm-0 busy 100 % of the time with 45-52 writes in flight at
    18.6-22.6 MB/s, its members 74-100 % busy, against an instance cap of 23.04 MB/s the emulator reached in some
    runs only. The database never left the layout idle: storage held the run, not the CPU (34-48 % busy)."""
    stripe = [_device("top", 100, 52.5), _device("member", 74, 9.4, "vde")]
    assert evidence.busy_device(stripe) is stripe[0]
    assert "device_busy" in IO_BINDINGS and "unknown" not in IO_BINDINGS and "cpu" not in IO_BINDINGS
    # a hot member of an otherwise idle stripe is a hot spot, not the layout's limit
    assert evidence.busy_device([_device("top", 40, 0.8), _device("member", 100, 12, "vdb")]) is None
    # always busy but one I/O at a time: the database's own latency held it, not the device's throughput
    assert evidence.busy_device([_device("device", 95, 1.0, "vda")]) is None
    # a single volume's device counts like a stripe's top
    assert evidence.busy_device([_device("device", 92, 3.0, "vda")]) is not None


def test_the_report_counts_every_storage_binding_as_storage() -> None:
    """The instance's cap and a busy device held the run as much as a volume's cap does: the report's summary
    must not list them among 'the rest'."""
    from blockfit.report.bench import summary
    from blockfit.schema.bench import BenchResult

    r = BenchResult.model_validate_json((Path(__file__).parents[2] / "docs" / "examples" / "bench.json").read_text())
    pairs = [m for lay in r.layouts for m in lay.measures]
    for m, b in zip(pairs, ["instance_cap", "device_busy", "cpu", "iops_cap"], strict=False):
        m.binding = b  # type: ignore[assignment]
    text = summary(r)
    held = sum(1 for m in pairs if m.binding in IO_BINDINGS)
    assert f"Storage held {held} of the {len(pairs)}" in text, text
    assert "instance_cap" not in text.split("the rest were held by")[-1], text
