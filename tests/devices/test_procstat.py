"""The CPU line of /proc/stat: busy and total jiffies, iowait counted as idle."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from blockfit.devices import procstat


def test_a_real_line() -> None:
    # a 4-CPU Debian 12 host: user nice system idle iowait irq softirq steal guest guest_nice
    t = procstat.parse_cpu("cpu  4705 356 584 3699 23 23 0 0 7 0")
    assert t.total == 4705 + 356 + 584 + 3699 + 23 + 23  # guest time is inside user: not added again
    assert t.busy == t.total - 3699 - 23


def test_an_old_kernel_line_without_iowait() -> None:
    t = procstat.parse_cpu("cpu 10 0 5 100")
    assert (t.busy, t.total) == (15, 115)


def test_this_host_counts_up_while_busy() -> None:
    a = procstat.cpu_times()
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
    b = procstat.cpu_times()
    assert 0 <= a.busy <= a.total and b.total >= a.total and b.busy > a.busy


def test_a_process_named_with_parentheses_and_spaces_counts_its_cpu_and_zero_once_gone(tmp_path: Path) -> None:
    """utime and stime are counted after the name's last ')': a name like 'py) 1 2 (x' shifts a split by spaces."""
    link = tmp_path / "py) 1 2 (x"  # the kernel names the process after the file it ran
    link.symlink_to(sys.executable)
    code = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\ninput()"
    child = subprocess.Popen([str(link), "-c", code], stdin=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while procstat.process_cpu_seconds(child.pid) < 0.3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert procstat.process_cpu_seconds(child.pid) >= 0.3
        assert Path(f"/proc/{child.pid}/comm").read_text().strip() == "py) 1 2 (x"
    finally:
        child.communicate("\n", timeout=60)
    assert procstat.process_cpu_seconds(child.pid) == 0.0  # reaped: its /proc entry is gone
