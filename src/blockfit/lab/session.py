"""One way to run a lab guest and read its result: a work dir that goes away, the guest run, its recorded steps,
and the result files read back, or the console log kept and one line saying why.

`lab` (run.py) and `lab --bench` (bench.py) both go through here; only their scripts and results differ.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from blockfit.errors import EnvironmentProblem, LabFailed
from blockfit.lab.cache import cache_dir, runs_dir
from blockfit.lab.caps import CapControl
from blockfit.lab.disks import Disk, Throttle
from blockfit.lab.guest import GuestOutcome, run_script
from blockfit.lab.kernel import GuestKernel
from blockfit.lab.render import TEMPLATES as TEMPLATES  # lab.bench and its tests use these two names here
from blockfit.lab.render import render as render
from blockfit.schema.lab import LabStep

Progress = Callable[[str], None]
T = TypeVar("T")

@contextmanager
def work_dir(keep: bool) -> Iterator[Path]:
    """A fresh work dir under the runs dir (shared with the guest at the same path), removed afterwards unless KEEP."""
    parent = runs_dir()
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="blockfit-lab-", dir=parent))
    try:
        yield work
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def read_steps(path: Path) -> list[LabStep]:
    steps = []
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            name, ok, detail = (line.split("\t", 2) + ["", ""])[:3]
            steps.append(LabStep(name=name, ok=ok == "1", detail=detail))
    return steps


def keep_console(outcome: GuestOutcome) -> Path | None:
    """Copy the guest console log (and the script's own log) out of the work dir before it is removed."""
    logs = cache_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept: Path | None = None
    for src, name in ((outcome.console_log, "console"), (outcome.script_log, "script")):
        if src.exists():
            dst = logs / f"{name}-{stamp}-{src.parent.name}.log"
            shutil.copyfile(src, dst)
            kept = kept or dst
    return kept


@dataclass
class GuestRun:
    """A guest that ran its script to the end: what it recorded, and its files to read."""

    outcome: GuestOutcome
    steps: list[LabStep]

    def read(self, what: str, reader: Callable[[], T]) -> T:
        """READER's result; EnvironmentProblem naming WHAT (console log kept) when the files are missing or bad."""
        try:
            return reader()
        except (OSError, ValueError, KeyError) as exc:
            kept = keep_console(self.outcome)
            raise EnvironmentProblem(f"lab: could not read {what} ({exc}); console log kept at {kept}") from None

    @property
    def seconds(self) -> float:
        return round(self.outcome.elapsed_s, 1)

    def console_log(self, keep: bool) -> str | None:
        return str(self.outcome.console_log) if keep else None


def run_guest(kernel: GuestKernel, work: Path, script: str, disks: list[Disk], instance: Throttle | None,
              timeout_s: float, say: Progress, caps: CapControl | None = None,
              pollers: Sequence[Callable[[], None]] = (), idle_s: float | None = None) -> GuestRun:
    """Boot the guest, run SCRIPT, stop it; LabFailed naming the failed step (console log kept) if the run failed."""
    outcome = run_script(kernel, work, script, disks, instance, timeout_s=timeout_s, progress=say, caps=caps,
                         pollers=pollers, idle_s=idle_s)
    steps = read_steps(work / "steps.tsv")
    if not outcome.ok:
        kept = keep_console(outcome)
        failed = next((s for s in steps if not s.ok), None)
        what = f"step '{failed.name}' failed: {failed.detail}" if failed else (outcome.failure or "unknown failure")
        raise LabFailed(f"lab: {what} (guest console log kept at {kept})")
    return GuestRun(outcome=outcome, steps=steps)
