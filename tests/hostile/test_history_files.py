"""Hostile history files (issue 36, parts 4 and 5): every `plan --from` input is untrusted, so each of these is
answered through the real CLI in one line, exit 2 (or planned, where the file is valid), never a traceback, a
hang or a memory blow-up: a 1.5-million-row CSV under a peak RSS bound, an AWR report of 125,000 unclosed
<table tags and text sections built to make regular expressions backtrack, deeply nested and oversized sysstat
JSON, /dev/zero, a FIFO with no writer, a symlink to /proc/self/environ, binary junk, UTF-16, NUL bytes and
endless lines. Timeouts are generous bounds, never timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blockfit.errors import InputError
from blockfit.history import readers
from blockfit.history.readers import read_history
from support.peak_rss import run_with_peak_rss

PLAN = ["plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8"]
TIMEOUT_S = 60  # generous: each case answers in a few seconds on an idle machine
ROWS = 1_500_000
RSS_BOUND_MB = 700
SECRET = "bf-secret-7d1f0c"


def plan_from(path: Path | str, *extra: str, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BLOCKFIT_HOSTILE_SECRET": SECRET}
    return subprocess.run([sys.executable, "-m", "blockfit", *PLAN, "--from", str(path), *extra],
                          capture_output=True, text=True, timeout=timeout, env=env)


def refused(path: Path | str, needle: str, timeout: float = TIMEOUT_S) -> str:
    """The one-line refusal of PATH (exit 2, no traceback), which must contain NEEDLE."""
    out = plan_from(path, timeout=timeout)
    err = out.stderr.strip()
    assert out.returncode == 2, (out.returncode, err[-2000:])
    assert "Traceback" not in out.stderr and "\n" not in err, err[-2000:]
    assert needle in err, err
    return err


def csv_rows(n: int, start: int = 0) -> tuple[str, np.ndarray, np.ndarray]:
    """N rows of 1-second intervals (a header first) and their IOPS and MB/s, computed here, not by blockfit."""
    i = np.arange(start, start + n)
    reads, writes = (i * 7919) % 5000 + 0.5, (i * 104729) % 3000 + 0.25
    rmb, wmb = (i % 97) * 1.5, (i % 89) * 2.25
    lines = ["timestamp,read IOPS,write IOPS,read MB/s,write MB/s"]
    for k, r, w, a, b in zip(i.tolist(), reads.tolist(), writes.tolist(), rmb.tolist(), wmb.tolist(), strict=True):
        d, s = divmod(k, 86400)
        lines.append(f"2024-01-{d + 1:02d}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}Z,{r},{w},{a},{b}")
    return "\n".join(lines) + "\n", reads + writes, rmb + wmb


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray]:
    path = tmp_path_factory.mktemp("hostile") / "history.csv"
    text, iops, mbps = csv_rows(ROWS)
    path.write_text(text)
    return path, iops, mbps


@pytest.mark.slow
def test_a_csv_of_1_5_million_rows_plans_under_the_rss_bound(big_csv: tuple[Path, np.ndarray, np.ndarray]) -> None:
    """Before: ~2 KB a row (3 GB here, MemoryError at 5 M rows). Now: float columns, peak RSS of the child measured
    apart from pytest's own (support.peak_rss), and the figures equal numpy's percentile of the rows as written."""
    path, iops, mbps = big_csv
    out_path, err_path = path.with_suffix(".out"), path.with_suffix(".err")
    with out_path.open("w") as out_file, err_path.open("w") as err_file:
        code, peak_kib = run_with_peak_rss([sys.executable, "-m", "blockfit", *PLAN, "--from", str(path), "--json"],
                                           out_file, err_file, 600)   # a bound, not a timing
    peak_mb = peak_kib / 1024
    out, err = out_path.read_text(), err_path.read_text()
    assert code == 0, err[-2000:]
    history = json.loads(out)["requirements"]["history"]
    assert history["samples"] == ROWS
    assert history["iops"] == pytest.approx(float(np.percentile(iops, 95)), rel=1e-12)
    assert history["mbps"] == pytest.approx(float(np.percentile(mbps, 95)), rel=1e-12)
    assert history["peak_iops_window"]["iops"] == pytest.approx(float(iops.max()))
    assert peak_mb < RSS_BOUND_MB, f"peak RSS {peak_mb:,.0f} MB for {ROWS:,} rows"


def test_awr_html_of_125000_unclosed_tables_is_answered_in_linear_time(tmp_path: Path) -> None:
    """Before: a lazy <table.*?</table> rescanned to the end for every tag (over 120 s); now one pass."""
    path = tmp_path / "awr.html"
    path.write_text("<html><body>WORKLOAD REPOSITORY report for\n" + "<table summary=\"x\" " * 125_000
                    + "<tr><td " * 50_000 + "\nEnd of Report\n</body></html>\n")
    refused(path, "Instance Activity Stats", timeout=30)


def test_awr_text_built_to_backtrack_is_answered_in_linear_time(tmp_path: Path) -> None:
    """Blank-line runs under ^\\s* anchors, a digit run under [\\d,]+\\.?\\d*, repeated IOStat headings without a
    TOTAL: each was quadratic (seconds at 20,000 lines, hours at these sizes)."""
    path = tmp_path / "awr.txt"
    path.write_text("WORKLOAD REPOSITORY report for\n" + "\n" * 400_000 + "Elapsed: " + "1" * 400_000 + "\n"
                    + "IOStat by Function summary\n" * 100_000 + "   Begin Snap:" + " " * 200_000 + "\nEnd of Report\n")
    refused(path, "--from", timeout=30)


def test_dev_zero_and_a_fifo_are_refused_at_once(tmp_path: Path) -> None:
    """Before: st_size 0 passed the cap; /dev/zero was read forever, a FIFO without a writer blocked forever."""
    assert "device" in refused("/dev/zero", "not a file", timeout=30)
    fifo = tmp_path / "history.fifo"
    os.mkfifo(fifo)
    assert "FIFO" in refused(fifo, "not a file", timeout=30)
    assert "directory" in refused(tmp_path, "not a file", timeout=30)


def test_proc_files_are_refused_without_showing_their_content(tmp_path: Path) -> None:
    link = tmp_path / "history.csv"
    link.symlink_to("/proc/self/environ")
    err = refused(link, "kernel")
    assert SECRET not in err and "BLOCKFIT_HOSTILE_SECRET" not in err
    assert SECRET not in refused("/proc/self/environ", "kernel")


@pytest.mark.parametrize("content, needle", [
    (bytes(range(256)) * 64, "not a text file"),
    (b"timestamp,read IOPS,write IOPS,read MB/s,write MB/s\n2024-01-01T00:00:00Z,1,2,3,4\x00\n", "not a text file"),
    (bytes(range(128, 256)) * 512, "--from"),
    (b"2024-01-01T00:00:00Z,1,2,3," + b"9" * (3 * 1024**2) + b"\n", "longer than"),
    (b"2024-01-01T00:00:00Z,1,2,3," + b"9" * 200_000 + b"\n", "not a CSV"),
    (b'{"sysstat": ' + b"[" * 200_000 + b"]" * 200_000 + b"}", "not valid JSON"),
    (b"", "empty"),
], ids=["binary", "nul-in-csv", "high-bytes", "endless-line", "huge-field", "deep-json", "empty"])
def test_junk_is_one_line(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "history"
    path.write_bytes(content)
    refused(path, needle)


@pytest.mark.parametrize("device_key, rates", [
    ("disk_device", {"r/s": 1.0, "w/s": 2.0, "rkB/s": 3.0, "wkB/s": 4.0}),
    ("disk-device", {"tps": 3.0, "rkB": 3.0, "wkB": 4.0}),
], ids=["iostat", "sadf"])
def test_sysstat_json_streams_past_the_whole_file_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      device_key: str, rates: dict[str, float]) -> None:
    """sysstat JSON is decoded a report at a time: a file past MAX_DOCUMENT_BYTES (set small here: 20 KB) reads
    as the whole-file parse does, one report past it is refused, and so is a second host after the reports."""
    reports = [json.dumps({"timestamp": {"interval": 10} if device_key == "disk-device" else
                           f"01/01/24 00:{k // 60:02d}:{k % 60:02d}",
                           "disk": [{device_key: "sda", **{key: v * (k + 1) for key, v in rates.items()}}]})
               for k in range(1000)]
    text = ('{"sysstat": {"hosts": [{"nodename": "h", "statistics": [\n' + ",\n".join(reports)
            + '], "restarts": []}]}}')
    path = tmp_path / "sysstat.json"
    path.write_text(text)
    whole = readers._sysstat(path, text)
    monkeypatch.setattr(readers, "MAX_DOCUMENT_BYTES", 20_000)
    streamed = read_history(path)
    assert len(text) > 5 * readers.MAX_DOCUMENT_BYTES
    assert list(streamed.samples) == list(whole.samples) and len(whole.samples) >= 999
    assert (streamed.format, streamed.skipped, streamed.notes) == (whole.format, whole.skipped, whole.notes)
    path.write_text(text.replace(reports[500], json.dumps({"disk": [{device_key: "x" * 30_000, **rates}]})))
    with pytest.raises(InputError, match="a report larger than 0 MB"):
        read_history(path)
    path.write_text(text[:-3] + ', {"nodename": "h2", "statistics": []}]}}')
    with pytest.raises(InputError, match="2 hosts in one file"):
        read_history(path)
    path.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match="not sysstat JSON"):
        read_history(path)


def test_oversized_json_export_is_refused_by_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON export other than sysstat is parsed whole: past MAX_DOCUMENT_BYTES it is refused (measured by
    reading), before the parser would hold several times its size."""
    point = {"Timestamp": "2024-01-01T00:00:00Z", "Sum": 1.0, "Unit": "Count"}
    path = tmp_path / "cloudwatch.json"
    path.write_text(json.dumps([{"Label": "VolumeReadOps", "Datapoints": [point] * 2000}]))
    monkeypatch.setattr(readers, "MAX_DOCUMENT_BYTES", 20_000)
    with pytest.raises(InputError, match="larger than 0 MB"):
        read_history(path)


def test_a_utf16_csv_plans_as_its_utf8_twin(tmp_path: Path) -> None:
    text, iops, _ = csv_rows(500)
    utf8, utf16 = tmp_path / "a.csv", tmp_path / "b.csv"
    utf8.write_text(text)
    utf16.write_bytes(text.encode("utf-16"))
    a, b = read_history(utf8), read_history(utf16)
    assert [s.iops for s in a.samples] == [s.iops for s in b.samples] == iops.tolist()
    out = plan_from(utf16, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["requirements"]["history"]["iops"] == pytest.approx(float(np.percentile(iops, 95)))


def test_caps_on_bytes_and_rows_are_stated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The caps are read from the module at each call: small ones here stand for 512 MB and 3 million rows."""
    text, _, _ = csv_rows(2000)
    path = tmp_path / "h.csv"
    path.write_text(text)
    monkeypatch.setattr(readers, "MAX_SAMPLES", 1000)
    with pytest.raises(InputError, match="more than 1,000 rows"):
        read_history(path)
    monkeypatch.setattr(readers, "MAX_SAMPLES", 10_000)
    monkeypatch.setattr(readers, "MAX_HISTORY_BYTES", 50_000)
    with pytest.raises(InputError, match="larger than 0 MB \\(measured by reading\\)"):
        read_history(path)
    monkeypatch.setattr(readers, "MAX_HISTORY_BYTES", 10**9)
    assert len(read_history(path).samples) == 2000


def recording(samples: int, devices: bool = True) -> str:
    """A `blockfit record --pg` recording: a header and SAMPLES 1-second samples, counters growing steadily."""
    header = {"type": "header", "format": "blockfit-pg-recording", "version": 1, "host": "h",
              "started": "2025-01-01T00:00:00Z", "interval_s": 1.0, "server_version": 160004,
              "server_counters": "pg_stat_io", "block_size": 8192,
              "devices": [{"name": "vdb", "major_minor": "252:16", "paths": ["/data"]}] if devices else []}
    lines = [json.dumps(header)]
    for k in range(samples):
        r, w = 2000 * k, 500 * k
        lines.append(json.dumps({"type": "sample", "t": float(k), "pg": {"reads": 2600.0 * k, "writes": 900.0 * k},
                                 "diskstats": [f"252 16 vdb {r} 0 {r * 16} 0 {w} 0 {w * 32} 0 0 0 0"]}))
    return "\n".join(lines) + "\n"


def test_a_recording_streams_under_its_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recording is read line by line (past the 64 MB of whole-file formats), its samples and lines capped."""
    path = tmp_path / "rec.jsonl"
    path.write_text(recording(3000))
    series = read_history(path)
    assert len(series.samples) == 2999 and {s.iops for s in series.samples} == {2500.0}
    monkeypatch.setattr(readers, "MAX_DOCUMENT_BYTES", 1000)  # whole-file formats only: the recording streams
    assert len(read_history(path).samples) == 2999
    monkeypatch.setattr(readers, "MAX_SAMPLES", 1000)
    with pytest.raises(InputError, match="more than 1,000 samples"):
        read_history(path)
    long = tmp_path / "long.jsonl"
    long.write_text(recording(3).replace('"type": "sample"', '"pad": "' + "x" * (2 * readers.MAX_LINE) + '", '
                                         '"type": "sample"', 1))
    with pytest.raises(InputError, match="line 2 is longer than"):
        read_history(long)
