"""Shared helpers for the lab's guest tests: run the CLI, and find what a run might leave behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from blockfit.lab.run import LabRequest

BLOCKFIT = str(Path(sys.executable).parent / "blockfit")


def lab_env(runs: Path) -> dict[str, str]:
    """Environment that puts the run's work dirs under RUNS, so a test can check they are gone."""
    return {**os.environ, "BLOCKFIT_LAB_RUNS": str(runs)}


def run_lab_cli(runs: Path, *args: str, timeout: float = 3600) -> dict[str, Any]:
    """`blockfit lab ARGS --json` as a user runs it; TIMEOUT is a safety net over the guest's own (a busy host
    fits a small scale, and its windows take longer)."""
    proc = subprocess.run([BLOCKFIT, "lab", *args, "--json"], capture_output=True, text=True, env=lab_env(runs),
                          stdin=subprocess.DEVNULL, timeout=timeout)
    assert proc.returncode == 0, f"blockfit lab failed ({proc.returncode}): {proc.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def processes_mentioning(text: str) -> list[int]:
    """PIDs whose command line contains TEXT (qemu's names the run's work dir)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            pids.append(int(entry.name))
    return pids


def mounts_mentioning(text: str) -> list[str]:
    return [line for line in Path("/proc/mounts").read_text().splitlines() if text in line]


def assert_nothing_left(runs: Path) -> None:
    assert processes_mentioning(str(runs)) == [], "a qemu process outlived the lab run"
    assert mounts_mentioning(str(runs)) == [], "a mount outlived the lab run"
    leftovers = list(runs.rglob("*")) if runs.exists() else []
    assert leftovers == [], f"files outlived the lab run: {leftovers[:5]}"


def interrupt_lab_when(runs: Path, args: list[str], marker: str, wait_s: float) -> tuple[int, str]:
    """Start `blockfit lab ARGS`, press Ctrl-C once the guest's progress shows MARKER; (exit code, stderr)."""
    import signal
    import time

    proc = subprocess.Popen([BLOCKFIT, "lab", *args], env=lab_env(runs), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            progress = list(runs.glob("*/progress"))
            if progress and marker in progress[0].read_text() and processes_mentioning(str(runs)):
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.5)
        else:
            raise AssertionError(f"the lab never reached {marker!r} within {wait_s:.0f} s")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


def assert_valid_bash(script: Path, text: str) -> None:
    """Write TEXT to SCRIPT; bash must parse it and shellcheck (where installed) find no warning."""
    import shutil

    script.write_text(text)
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    if shutil.which("shellcheck"):
        proc = subprocess.run(["shellcheck", "-S", "warning", str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout


def render_lab_script(work: Path, **values: Any) -> str:
    """lab.sh.j2 rendered as run.py renders it, for a 3-member stripe and its single volume; VALUES override."""
    from blockfit.lab.session import render
    from blockfit.lab.windows import REFERENCE_PLAN

    defaults: dict[str, Any] = dict(
        use_build=True, rerun_check=True, expected_devices=["/dev/vda", "/dev/vdb", "/dev/vdc"], mount="/mnt/x",
        work=str(work), members=3, member_serials=["m1", "m2", "m3"], single_serial="single", manager="lvm",
        fs="xfs", paths=None, map_prefix="bfmp_", writes=False, md_level="raid0", stripe_kib=4096, check_mib=8,
        ramp_s=2, reference_ramp_s=1, caps=str(work / "caps" / "lab-caps"),
        measurements=[(f"{side}-{kind}", side.upper()) for side in ("single", "stripe") for kind in ("iops", "mbps")],
        reference=REFERENCE_PLAN.guest_args())
    return render("lab.sh.j2", **(defaults | values))


def assert_matches_model(f: dict[str, Any], kind: str, tolerance: float) -> None:
    """F's measured IOPS or MB/s within TOLERANCE of the model, measured precisely enough to say so (its 95 %
    interval narrower than the tolerance). The failure says which was the case: one window, too noisy, the emulator
    (its own speed in the same guest was not well above the cap) or the layout's caps."""
    from blockfit.lab.figures import emulator_headroom, judge
    from blockfit.schema.lab import LabFigures

    figures = LabFigures.model_validate(f)
    headroom = emulator_headroom(figures, kind)  # type: ignore[arg-type]  # kind: "iops" or "mbps"
    spread = f[f"{kind}_spread"]
    print(f"{f['layout']} {kind}: ratio {f[f'measured_{kind}'] / f[f'predicted_{kind}']:.3f} "
          f"±{2 * spread if spread is not None else float('nan'):.3f} over {f[f'{kind}_windows']} sub-windows, "
          f"emulator headroom {headroom if headroom is not None else float('nan'):.2f}")
    verdict = judge(figures, kind, tolerance)  # type: ignore[arg-type]
    assert verdict is None, verdict


def lab_request(cloud: str | None = None, layout: str | None = None, instance: str | None = None,
                plan: Path | None = None, catalog: str | None = None, **options: Any) -> LabRequest:
    """A LabRequest as `blockfit lab` builds it, through the CLI's own edge (cli.lab.lab_target: the plan file read
    and checked, or the specs parsed, on the catalog loaded once); OPTIONS are the lab's own (manager, ...)."""
    from blockfit.cli.lab import lab_target

    target = lab_target(None if plan is None else Path(plan), cloud, catalog, layout, instance,
                        options.get("manager", "lvm"))
    return LabRequest(target=target, **options)


def run_blockfit(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed `blockfit` with ARGS, its output captured as text."""
    return subprocess.run([BLOCKFIT, *args], capture_output=True, text=True)


def write_rates(path: Path, rates: list[float], seconds: float = 2.0, io_size: int = 4096) -> None:
    """Counter snapshots (time, I/Os, sectors) whose sub-windows run at RATES I/Os per second."""
    t, ios, sectors, lines = 100.0, 0.0, 0.0, []
    lines.append(f"{t:.6f} {ios:.0f} {sectors:.0f}")
    for r in rates:
        t, ios, sectors = t + seconds, ios + r * seconds, sectors + r * seconds * io_size / 512
        lines.append(f"{t:.6f} {ios:.0f} {sectors:.0f}")
    path.write_text("\n".join(lines) + "\n")


# the RAID10 rig the window, verdict and Fit tests share
RAID10 = lab_request(cloud="oci", layout="4x50G@balanced", instance="VM.Standard.E4.Flex:8", manager="mdadm",
                     redundancy="raid10")
