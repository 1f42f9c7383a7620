"""history.pg_recording: a recording read as the devices' rates (or the server's blocks without them); time that
does not run forward and counters that go down are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockfit.errors import ValueProblem
from blockfit.history import pg_recording


def _diskstats(reads: int, writes: int, queue_ms: int) -> str:
    # major minor name reads merged sectors ms writes merged sectors ms in_flight io_ms weighted_ms
    return f"   8      16 sdb {reads} 0 {reads * 16} 0 {writes} 0 {writes * 8} 0 0 0 {queue_ms}"


def _recording(samples: list[dict[str, Any]], devices: bool = True) -> list[str]:
    header = {"type": "header", "format": pg_recording.FORMAT, "version": pg_recording.VERSION,
              "started": "2026-11-23T10:00:00Z", "interval_s": 10, "server_version": 160000,
              "server_counters": "pg_stat_io", "block_size": 8192,
              "devices": [{"name": "sdb", "major_minor": "8:16", "paths": ["/var/lib/pg"]}] if devices else []}
    return [json.dumps(header), *(json.dumps({"type": "sample", **s}) for s in samples)]


def _sample(t: float, reads: int, writes: int, blocks: int = 0, reset: str | None = None) -> dict[str, Any]:
    pg: dict[str, Any] = {"reads": blocks, "read_bytes": blocks * 8192, "writes": blocks, "write_bytes": blocks * 8192}
    if reset:
        pg["reset"] = reset
    return {"t": t, "pg": pg, "diskstats": [_diskstats(reads, writes, 20 * reads)]}


def _read(lines: list[str]) -> Any:
    return pg_recording.read_lines(Path("rec.jsonl"), iter(lines))


def test_device_rates_are_the_counters_growth_over_the_interval() -> None:
    series = _read(_recording([_sample(0, 0, 0), _sample(10, 1000, 500, 400), _sample(20, 3000, 500, 800)]))
    assert series.format == "pg-recording" and series.member_kind == "device" and series.members == ["sdb"]
    a, b = series.samples
    assert (a.read_iops, a.write_iops, a.duration_s) == (100.0, 50.0, 10.0)
    assert a.read_mbps == pytest.approx(1000 * 16 * 512 / 10 / 1e6)
    assert b.read_iops == 200.0 and b.write_iops == 0.0
    assert a.outstanding == pytest.approx(20 * 1000 / (10 * 1000))
    assert "device/server" in series.notes[1]


def test_without_devices_the_server_blocks_are_the_series_with_a_warning() -> None:
    series = _read(_recording([_sample(0, 0, 0), _sample(10, 0, 0, 500)], devices=False))
    (s,) = series.samples
    assert series.member_kind == "series" and s.read_iops == 50.0 and s.write_iops == 50.0
    assert series.warnings and "overstates" in series.warnings[0]


def test_an_interval_across_a_statistics_reset_is_skipped() -> None:
    series = _read(_recording([_sample(0, 0, 0, 0), _sample(10, 10, 10, 10), _sample(20, 20, 20, 5, reset="r2"),
                               _sample(30, 30, 30, 9, reset="r2")]))
    assert len(series.samples) == 2 and series.skipped == ["1 interval(s) across a statistics reset"]


@pytest.mark.parametrize(("samples", "message"), [
    ([_sample(0, 0, 0), _sample(0, 1, 1)], "does not run forward"),
    ([_sample(0, 5, 5), _sample(10, 1, 5)], "went down"),
    ([_sample(0, 0, 0, 9), _sample(10, 1, 1, 3)], "went down"),
    ([_sample(0, 0, 0)], "expected at least two"),
])
def test_a_recording_that_cannot_be_rates_is_refused(samples: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        _read(_recording(samples))


def test_a_foreign_header_or_version_is_refused() -> None:
    lines = _recording([_sample(0, 0, 0), _sample(10, 1, 1)])
    with pytest.raises(ValueProblem, match="not a blockfit PostgreSQL recording header"):
        _read(['{"format": "other"}', *lines[1:]])
    header = json.loads(lines[0]) | {"version": pg_recording.VERSION + 1}
    with pytest.raises(ValueProblem, match="this blockfit reads version"):
        _read([json.dumps(header), *lines[1:]])


def test_more_samples_than_allowed_are_refused() -> None:
    lines = _recording([_sample(t, t, t) for t in range(0, 50, 10)])
    with pytest.raises(ValueProblem, match="more than 3 samples"):
        pg_recording.read_lines(Path("rec.jsonl"), iter(lines), max_samples=3)
