"""A command's own peak memory, measured apart from the test process that starts it.

`wait4` on a child of pytest reports the child's ru_maxrss, and Linux keeps the larger of that and the memory the
child had before exec: a forked (or vforked) pytest process of 650 MB made a 85 MB `blockfit` look like 645 MB, so a
memory bound depended on which tests ran before. A small launcher process starts the command instead and reports
RUSAGE_CHILDREN: the command is forked from the launcher (a bare interpreter), so its peak is its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

_LAUNCHER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "with open(sys.argv[1], 'w') as fh:\n"
    "    fh.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(code)\n"
)


class StillRunning(Exception):
    """The command ran past its bound (it and its launcher were killed)."""


def run_with_peak_rss(args: list[str], stdout: IO[bytes] | IO[str], stderr: IO[bytes] | IO[str],
                      bound_s: float, env: dict[str, str] | None = None) -> tuple[int, int]:
    """Run ARGS to the end: (exit code, its peak RSS in KiB). Past BOUND_S the whole group is killed and
    StillRunning raised (a bound against a hang, not a timing)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "peak"
        proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(report), *args], stdout=stdout, stderr=stderr,
                                env=env, start_new_session=True)
        deadline = time.monotonic() + bound_s
        try:
            while proc.poll() is None:
                if time.monotonic() > deadline:
                    raise StillRunning(f"still running after {bound_s:g} s: {args[:4]}")
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        return proc.returncode, int(report.read_text())
