"""lab.run without a guest: the subject resolved from a request or a plan, fio's depth, and the scale Fit
against a real qemu's throttle groups."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blockfit.errors import InputError
from blockfit.lab.caps import CapControl
from blockfit.lab.figures import EMULATOR_HEADROOM
from blockfit.lab.qemu import QEMU
from blockfit.lab.qmp import Qmp
from blockfit.lab.run import Fit, Rig, iodepth_for, measurements, resolve
from blockfit.lab.windows import MIN_SUB_WINDOWS, MIN_WINDOW_IOS
from blockfit.units import KIB
from support.lab import RAID10, lab_request
from support.lab import run_blockfit as _cli
from support.lab import write_rates as _write_rates


def test_iodepth_grows_with_members_within_bounds() -> None:
    assert iodepth_for(1, "iops") == 32
    assert iodepth_for(9, "iops") == 144
    assert iodepth_for(64, "iops") == 256
    assert iodepth_for(9, "mbps") == 72


def test_single_alternative_is_one_volume_of_the_same_total_size() -> None:
    subject = resolve(lab_request(cloud="oci", layout="9x500G@balanced", instance="VM.Standard.E3.Flex:12"))
    assert subject.single is not None
    assert subject.single.layout_detail.members == 1
    assert subject.single.layout_detail.volume.size_gb == 4500


def test_plan_file_is_resolved_as_its_first_candidate(tmp_path: Path) -> None:
    from blockfit.schema import Plan

    out = tmp_path / "plan.json"
    proc = subprocess.run([str(Path(sys.executable).parent / "blockfit"), "plan", "--example", "part3", "--out",
                           str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    best = Plan.model_validate_json(out.read_text()).candidates[0]
    subject = resolve(lab_request(plan=out))
    assert subject.layout == best.layout_detail
    assert subject.stripe_size == best.layout_detail.stripe_size
    assert subject.stripe.max_iops == pytest.approx(best.max_iops, rel=1e-6)
    assert subject.instance.spec == best.instance


def test_a_plan_whose_stripe_the_build_cannot_make_is_input_error(tmp_path: Path) -> None:
    """`blockfit build` stripes with a power of two: a hand-edited 96 KiB plan is refused before the guest boots
    (it used to fail inside the run, exit 5), and --stripe-size replaces it."""
    out = tmp_path / "plan.json"
    proc = _cli("plan", "--example", "part3", "--json")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    plan["candidates"][0]["prediction"]["layout_detail"]["stripe_size"] = 96 * KIB
    out.write_text(json.dumps(plan))
    proc = _cli("lab", "--plan", str(out))
    assert proc.returncode == 2 and "--plan" in proc.stderr and "power of two" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert resolve(lab_request(plan=out, stripe_size=256 * KIB)).stripe_size == 256 * KIB


def test_paths_reach_the_prediction_and_the_emulation() -> None:
    from blockfit.lab.run import emulated_paths

    base = dict(cloud="oci", layout="1x1000G@120vpu", instance="VM.Standard.E4.Flex:32")
    four = resolve(lab_request(**base, paths=4))  # type: ignore[arg-type]
    assert four.layout.paths == 4 and four.stripe.paths == 4 and emulated_paths(four) == 4
    assert four.single is not None and four.single.paths == 4
    plain = resolve(lab_request(**base))  # type: ignore[arg-type]
    assert emulated_paths(plain) is None  # no --paths/--attachment: disks as before, no multipath
    with pytest.raises(InputError, match="^2 paths: attachments with paths are modelled for oci, not aws"):
        resolve(lab_request(cloud="aws", layout="2x500G@gp3", instance="m5.12xlarge", paths=2))


@pytest.fixture
def throttle_groups(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A real qemu (no machine) holding the RAID10 rig's throttle groups behind a QMP monitor."""
    rig = Rig(subject=resolve(RAID10), work=tmp_path, paths=None, single=resolve(RAID10).single)
    sock = tmp_path / "q.sock"
    argv = [QEMU, "-machine", "none", "-nodefaults", "-display", "none", "-qmp", f"unix:{sock},server=on,wait=off"]
    for g in rig.groups(0.2):
        argv += ["-object", f"throttle-group,id={g.name},x-iops-total={g.iops or 0},x-bps-total={g.bps or 0}"]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    try:
        with Qmp(sock) as qmp:
            yield rig, qmp
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("explicit", [False, True], ids=["auto", "explicit"])
def test_fit_scales_every_cap_to_the_emulators_own_speed(throttle_groups, explicit: bool) -> None:  # type: ignore[no-untyped-def]
    """The emulator did 1,000 IOPS uncapped on the stripe (the budgets' scale 0.2 asks 1,200): the auto scale drops
    to 1,000 / 2 / 6,000 = 0.083 -> 0.083, every cap follows it over QMP, and the guest is told its sub-windows."""
    rig, qmp = throttle_groups
    jobs = measurements(rig)
    work = rig.work
    emulator = {"single-iops": 5000.0, "single-mbps": 400.0, "stripe-iops": 1000.0, "stripe-mbps": 300.0}
    for m in jobs:  # uncapped references: IOPS for -iops, MB/s (1 MiB I/Os) for -mbps
        rate = emulator[m.name] if m.kind == "iops" else emulator[m.name] * 1e6 / m.io_size
        _write_rates(work / f"rate-ref-{m.name}.txt", [rate] * 3, seconds=1.0, io_size=m.io_size)
    caps = CapControl(work, rig.groups(0.2), qmp=qmp)
    said: list[str] = []
    fit = Fit(rig=rig, jobs=jobs, caps=caps, runtime_s=8, scale=0.2, explicit=explicit, say=said.append)
    fit()
    stripe_iops = next(m for m in jobs if m.name == "stripe-iops")
    assert stripe_iops.rate_at_one == pytest.approx(6000, rel=1e-3)
    if explicit:
        assert fit.scale == 0.2
    else:
        assert fit.scale == pytest.approx(0.083)
        for m in jobs:  # every predicted rate at most 1/EMULATOR_HEADROOM of the emulator's
            predicted = m.rate_at_one * fit.scale
            assert predicted * EMULATOR_HEADROOM <= emulator[m.name] * (1 + 1e-9), m.name
    member = rig.caps(fit.scale).member
    assert qmp.limits("vol_m1")["iops-total"] == member.iops
    assert qmp.limits("vol_single")["bps-total"] == rig.caps(fit.scale).single.bps  # type: ignore[union-attr]
    out = subprocess.run(["bash", "-c", f'. "{work}/windows.env"; echo "${{WIN[stripe-mbps]}}|$FIT"'],
                         capture_output=True, text=True, check=True).stdout.strip()
    seconds, least, most = out.split("|")[0].split()
    stripe_mbps = next(m for m in jobs if m.name == "stripe-mbps")
    assert float(seconds) * stripe_mbps.ios_per_s(fit.scale) >= MIN_WINDOW_IOS * 0.99
    assert int(least) >= MIN_SUB_WINDOWS and int(most) > int(least)
    assert out.split("|")[1].startswith(f"scale {fit.scale:g}") and said


def test_fit_refuses_a_device_the_emulator_did_not_move(throttle_groups) -> None:  # type: ignore[no-untyped-def]
    rig, qmp = throttle_groups
    jobs = measurements(rig)
    for m in jobs:
        _write_rates(rig.work / f"rate-ref-{m.name}.txt", [0.0 if m.name == "stripe-iops" else 500.0] * 3, 1.0)
    fit = Fit(rig=rig, jobs=jobs, caps=CapControl(rig.work, rig.groups(0.2), qmp=qmp), runtime_s=8, scale=0.2,
              explicit=False, say=lambda _m: None)
    with pytest.raises(ValueError, match="stripe-iops: the emulator did no I/O"):
        fit()
    assert not (rig.work / "windows.env").exists()
