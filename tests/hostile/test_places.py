"""A value from a file or an option never becomes a command, nor a read outside its place.

- A diagnose capture's device names: its advice writes `echo none > /sys/block/NAME/queue/scheduler` for the DBA to
  run; a hand-made capture naming a device `x;reboot;#` or `$(reboot)` had that command printed. Every name is now
  held to the kernel's spelling when the capture is read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.inproc import run


def capture(path: Path, name: str, slaves: list[str] | None = None) -> Path:
    """A capture of one non-rotational device on bfq at 20,000 IOPS (diagnose's bfq advice names it), as
    `diagnose --record` writes one: a header, then raw /proc/diskstats lines a second apart."""
    dev = {"name": name, "kind": "disk", "dev": "259:0", "size_bytes": 10**11, "slaves": slaves or [],
           "holders": [], "queue": {"scheduler": "bfq", "rotational": False, "nr_requests": 64}}
    header = {"type": "header", "version": 1, "hostname": "h", "kernel": "6.1", "started": "2026-01-01T00:00:00+00:00",
              "interval_s": 1.0, "selected": [name], "devices": {name: dev}, "mounts": [], "geometry": [], "caps": []}
    lines = [json.dumps(header)]
    for t in range(12):
        reads = 20_000 * t
        lines.append(json.dumps({"type": "sample", "t": float(t), "lines": [
            f"259 0 {name} {reads} 0 {reads * 8} {reads // 10} 0 0 0 0 1 {t * 900} {t * 2000}"]}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_kernel_name_gets_the_scheduler_advice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The capture below does reach the advice that writes a device's name into a command."""
    code, out, err = run(["diagnose", "--replay", str(capture(tmp_path / "c.jsonl", "nvme0n1")), "--json"], capsys)
    assert code == 0, err
    advice = [f["recommendation"] for f in json.loads(out)["findings"] if f["kind"] == "scheduler_readahead"]
    assert advice and "echo none > /sys/block/nvme0n1/queue/scheduler" in advice[0], advice


@pytest.mark.parametrize("name", ["x;reboot;#", "$(reboot)", "`id`", "sda|sh", "a>b", "..", ".", "-x", "sda'",
                                  "a" * 65])
def test_a_capture_naming_a_device_as_shell_text_is_refused(name: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = capture(tmp_path / "c.jsonl", name)
    code, out, err = run(["diagnose", "--replay", str(path), "--json"], capsys)
    assert code == 2, (code, out[-600:])
    assert len(err.strip().splitlines()) == 1 and "not a kernel device name" in err, err
    assert "/sys/block/" not in out


@pytest.mark.parametrize("slave", ["../../etc", "a/b", "x\ny", "$(id)"])
def test_a_name_in_the_capture_header_alone_is_refused(slave: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = capture(tmp_path / "c.jsonl", "md0", slaves=[slave])
    code, _out, err = run(["diagnose", "--replay", str(path)], capsys)
    assert code == 2 and "devices.md0.slaves" in err and "not a kernel device name" in err, err
