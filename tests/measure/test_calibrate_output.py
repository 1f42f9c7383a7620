"""What calibrate shows a person: the curve table's columns, and the progress bar on a terminal beside --json."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console

from blockfit.cli.calibrate import _table
from blockfit.schema.measurement import MeasuredPoint, Measurement


def measurement(percentile: float) -> Measurement:
    point = MeasuredPoint(phase="small", outstanding=4, io_size=8192, iops=1000.0, mbps=8.2, p50_ms=1.111,
                          p95_ms=2.222, p99_ms=3.333, percentile_ms=4.444, avg_ms=1.5, within_bound=True,
                          steady=True, iops_cv=0.01, seconds=3.0, ios=3000)
    return Measurement(targets=["/dev/x"], max_iops=1000.0, max_mbps=0.0, latency_ms=4.444, avg_latency_ms=1.5,
                       outstanding_at_max_iops=4, outstanding_at_max_mbps=0, saturation_iops=1000.0, bound_met=True,
                       max_latency_ms=5.0, percentile=percentile, small_io=8192, large_io=2**20, curve=[point],
                       fio_version="fio-3.33", engine="io_uring", direct=True, kernel="6.1",
                       duration_budget_s=60.0, elapsed_s=60.0)


def headers(percentile: float) -> list[str]:
    return [str(c.header) for c in _table(measurement(percentile)).columns]


@pytest.mark.parametrize("percentile", [50, 95, 99])
def test_a_standard_percentile_gets_no_second_column(percentile: float) -> None:
    cols = headers(percentile)
    assert len(cols) == len(set(cols))
    assert [c for c in cols if c.endswith(" ms") and c.startswith("p")] == ["p50 ms", "p95 ms", "p99 ms"]


def test_another_percentile_gets_its_own_column_with_its_value() -> None:
    cols = headers(99.9)
    assert [c for c in cols if c.endswith(" ms") and c.startswith("p")] == ["p50 ms", "p95 ms", "p99 ms", "p99.9 ms"]
    console = Console(record=True, width=200)
    console.print(_table(measurement(99.9)))
    text = console.export_text()
    assert "p99.9 <= 5 ms" in text
    assert text.index("3.333") < text.index("4.444")  # p99 then p99.9, in column order


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fio") is None, reason="needs fio")
def test_progress_goes_to_a_terminal_on_stderr_and_json_stays_clean(tmp_path: Path) -> None:
    """--json > file with stderr on a terminal: the bar is drawn there, stdout holds nothing but the JSON."""
    master, slave = os.openpty()
    drawn = bytearray()

    def drain() -> None:  # keep reading, or a full pty buffer would stall the child
        with contextlib.suppress(OSError):
            while chunk := os.read(master, 4096):
                drawn.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        proc = subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", "calibrate",
                               str(tmp_path), "--size", "64M", "--duration", "5s", "--json"],
                              stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, timeout=120,
                              env={**os.environ, "TERM": "xterm"})  # not a dumb terminal, whatever CI has
    finally:
        os.close(slave)
        reader.join(timeout=10)
        os.close(master)
    assert proc.returncode == 0, drawn.decode(errors="replace")[-500:]
    assert json.loads(proc.stdout)["max_iops"] > 0
    assert b"calibrate" in drawn
    assert list(tmp_path.iterdir()) == []
