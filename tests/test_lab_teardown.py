"""The lab leaves nothing behind: not after Ctrl-C, not after a guest that hangs, not after success."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from blockfit.lab.disks import Disk, Throttle, create
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from lab_helpers import BLOCKFIT, assert_nothing_left, lab_env, processes_mentioning, run_lab_cli

pytestmark = [pytest.mark.slow, pytest.mark.lab]


def _default_sigint() -> None:
    """Children of a background job start with SIGINT ignored; a user's terminal Ctrl-C is not ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupt_mid_run_kills_qemu_and_removes_files(tmp_path: Path) -> None:
    ensure_kernel()  # a cold cache would make the wait below time out on the download
    runs = tmp_path / "runs"
    proc = subprocess.Popen([BLOCKFIT, "lab", "--cloud", "oci", "--layout", "4x500G@balanced",
                             "--instance", "VM.Standard.E3.Flex:12", "--json"], env=lab_env(runs),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + 120
        # wait until the guest is running its script (disk files exist, qemu is up, fio under way)
        while time.monotonic() < deadline:
            progress = list(runs.glob("*/progress"))
            if progress and "measuring" in progress[0].read_text() and processes_mentioning(str(runs)):
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.5)
        else:
            pytest.fail("the guest never started measuring")
        assert list(runs.glob("*/m1.raw"))
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert_nothing_left(runs)


def test_hung_guest_is_stopped_at_its_timeout(tmp_path: Path) -> None:
    kernel = ensure_kernel()
    work = tmp_path / "work"
    work.mkdir()
    disks = [Disk("m1", work / "m1.raw", 64 << 20, Throttle("vol_m1", 100, 1_000_000))]
    create(disks)
    started = time.monotonic()
    outcome = run_script(kernel, work, "echo hanging >> \"$(dirname \"$0\")/progress\"; sleep 3600\n", disks,
                         None, timeout_s=40)
    assert outcome.timed_out and not outcome.ok
    assert "timeout" in (outcome.failure or "")
    assert time.monotonic() - started < 90
    assert (work / "progress").read_text().strip() == "hanging"  # the script did run before it hung
    assert processes_mentioning(str(work)) == []


def test_mdadm_and_ext4_stripe_small(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    r = run_lab_cli(runs, "--cloud", "oci", "--layout", "2x500G@balanced", "--instance", "VM.Standard.E3.Flex:12",
                    "--manager", "mdadm", "--fs", "ext4", "--runtime", "3s", "--no-single")
    steps = {s["name"]: s for s in r["steps"]}
    assert steps["mdadm raid0"]["ok"] and "raid0 2 4096" in steps["mdadm raid0"]["detail"]
    assert steps["ext4 check"]["ok"]
    assert r["single"] is None
    assert 0.85 <= r["measured_iops"] / r["predicted_iops"] <= 1.15
    assert_nothing_left(runs)
