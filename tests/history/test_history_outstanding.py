"""The I/Os in flight a workload keeps, from its history (iostat aqu-sz, /proc/diskstats' time-weighted queue), and
`plan --from` planning at that depth unless --outstanding says otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blockfit.history import derive_targets, pg_recording

QUEUE = [1.5, 2.0, 2.5, 3.0, 3.5]   # per device and report; two devices: 3, 4, 5, 6, 7 together


def blockfit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=300)


def iostat(path: Path, key: str | None = "aqu-sz") -> Path:
    def report(k: int) -> dict[str, object]:
        disks = []
        for dev in ("sda", "sdb"):
            row: dict[str, object] = {"disk_device": dev, "r/s": 1000.0, "w/s": 500.0, "rkB/s": 8000.0,
                                      "wkB/s": 4000.0}
            if key is not None:
                row[key] = QUEUE[k]
            disks.append(row)
        return {"timestamp": f"2026-11-23T10:00:{10 * k:02d}+0000", "disk": disks}
    doc = {"sysstat": {"hosts": [{"nodename": "db1", "statistics": [report(k) for k in range(5)]}]}}
    path.write_text(json.dumps(doc))
    return path


def test_iostat_queues_of_the_chosen_devices_sum_per_interval(tmp_path: Path) -> None:
    # the first report is dropped (since boot): 4, 5, 6, 7 remain; p50 = 5.5, the peak 7
    path = iostat(tmp_path / "i.json")
    t = derive_targets(path, ["sda", "sdb"], percentile=50)
    assert t.outstanding == pytest.approx(5.5)
    assert t.outstanding_from == "iostat's aqu-sz"
    assert derive_targets(path, ["sda", "sdb"], percentile=100).outstanding == pytest.approx(7.0)
    assert derive_targets(path, ["sda"], percentile=100).outstanding == pytest.approx(3.5)


def test_the_old_avgqu_sz_is_read_and_a_history_without_a_queue_says_none(tmp_path: Path) -> None:
    old = derive_targets(iostat(tmp_path / "old.json", "avgqu-sz"), ["sda", "sdb"], percentile=100)
    assert old.outstanding == pytest.approx(7.0)
    none = derive_targets(iostat(tmp_path / "none.json", None), ["sda", "sdb"], percentile=100)
    assert none.outstanding is None and none.outstanding_from is None


def test_a_postgresql_recording_reads_the_weighted_queue_of_its_devices(tmp_path: Path) -> None:
    """/proc/diskstats field 14 (weighted ms) grows by 2,500 ms over a 1 s interval: 2.5 I/Os in flight."""
    def line(reads: int, weighted: int) -> str:
        return f"259 0 nvme1n1 {reads} 0 {reads * 16} 0 0 0 0 0 0 {reads} {weighted}"
    header = {"format": pg_recording.FORMAT, "version": pg_recording.VERSION, "started": "2026-11-23T10:00:00Z",
              "interval_s": 1, "server_version": 150000, "server_counters": "pg_stat_database+bgwriter+wal",
              "devices": [{"name": "nvme1n1"}]}
    samples = [{"t": t, "pg": {"reads": 100 * t, "writes": 0}, "diskstats": [line(1000 * t, 2500 * t)]}
               for t in range(4)]
    path = tmp_path / "rec.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [header, *samples]) + "\n")
    t = derive_targets(path, ["nvme1n1"], percentile=100)
    assert t.outstanding == pytest.approx(2.5)


@pytest.mark.slow
def test_plan_from_history_plans_at_its_depth_and_says_so(tmp_path: Path) -> None:
    """3,000 IOPS of 8k at 7 I/Os in flight: gp3's 1.05 ms per I/O gives 7 / 1.05 ms = 6,667 IOPS at most, so the
    plan meets it; --outstanding 2 (1,905 at most) cannot, and says the depth is why."""
    path = iostat(tmp_path / "i.json")
    args = ["plan", "--cloud", "aws", "--capacity", "500G", "--instance", "r7i.2xlarge", "--levels", "gp3",
            "--from", str(path), "--devices", "sda,sdb", "--percentile", "peak"]
    out = blockfit(*args, "--json")
    assert out.returncode == 0, out.stderr
    req = json.loads(out.stdout)["requirements"]
    assert req["outstanding"] == 7 and req["outstanding_from"] == "history"
    assert req["history"]["outstanding"] == pytest.approx(7.0)
    text = blockfit(*args)
    assert text.returncode == 0, text.stderr
    assert "7 outstanding I/Os (the history's: 7 in flight at peak, iostat's aqu-sz" in " ".join(text.stdout.split())
    low = blockfit(*args, "--outstanding", "2", "--json")
    assert low.returncode == 3, low.stderr
    doc = json.loads(low.stdout)
    assert doc["requirements"]["outstanding"] == 2 and doc["requirements"]["outstanding_from"] == "option"
    assert "2 outstanding I/Os offered by the workload" in doc["infeasible"]["reason"]
