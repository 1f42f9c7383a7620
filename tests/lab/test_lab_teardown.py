"""The lab leaves nothing behind: not after Ctrl-C, not after a guest that hangs, not after success."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from blockfit.lab.disks import Disk, Throttle, create
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from support.lab import (
    assert_matches_model,
    assert_nothing_left,
    interrupt_lab_when,
    processes_mentioning,
)

pytestmark = [pytest.mark.slow, pytest.mark.lab]


def test_interrupt_mid_run_kills_qemu_and_removes_files(tmp_path: Path) -> None:
    ensure_kernel()  # a cold cache would make the wait below time out on the download
    runs = tmp_path / "runs"
    code, err = interrupt_lab_when(runs, ["--cloud", "oci", "--layout", "4x500G@balanced",
                                          "--instance", "VM.Standard.E3.Flex:12", "--json"], "measuring", 120)
    assert code == 130, err
    assert "interrupted" in err
    assert_nothing_left(runs)


def test_hung_guest_is_stopped_once_idle(tmp_path: Path) -> None:
    kernel = ensure_kernel()
    work = tmp_path / "work"
    work.mkdir()
    disks = [Disk("m1", work / "m1.raw", 64 << 20, Throttle("vol_m1", 100, 1_000_000))]
    create(disks)
    started = time.monotonic()
    # the lab's way: no deadline a busy host could miss, but a limit on doing nothing (the wall timeout is a
    # safety net far above it)
    outcome = run_script(kernel, work, "echo hanging >> \"$(dirname \"$0\")/progress\"; sleep 3600\n", disks,
                         None, timeout_s=1800, idle_s=20)
    assert outcome.timed_out and not outcome.ok
    assert "did nothing for 20 s" in (outcome.failure or ""), outcome.failure
    assert time.monotonic() - started < 1800
    assert (work / "progress").read_text().strip() == "hanging"  # the script did run before it hung
    assert processes_mentioning(str(work)) == []


def test_mdadm_and_ext4_stripe_small(small_lab: tuple[dict[str, Any], Path, Path]) -> None:
    r, runs, _ = small_lab
    steps = {s["name"]: s for s in r["steps"]}
    assert steps["mdadm raid0"]["ok"] and "raid0 2 4096" in steps["mdadm raid0"]["detail"]
    assert steps["ext4 check"]["ok"]
    assert r["single"] is None
    assert_matches_model(r, "iops", 0.15)
    assert_nothing_left(runs)
