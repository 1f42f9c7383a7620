"""The public API: ``run_lab(request) -> LabResult``.

What a lab run does: predict the stripe and its single-volume alternative with the model, choose one
scale factor, give the guest one capped disk per member plus one capped like the single volume (all
under the shared instance cap), boot, measure the single volume, build the stripe and its filesystem,
measure the stripe, and tear everything down (qemu, disk files, work dir) whatever happens.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import jinja2

from blockfit import __version__
from blockfit.errors import EnvironmentProblem, InputError, LabFailed
from blockfit.lab import disks as disk_files
from blockfit.lab.cache import cache_dir, runs_dir
from blockfit.lab.disks import Disk, Throttle
from blockfit.lab.guest import GuestOutcome, run_script
from blockfit.lab.kernel import GuestKernel, ensure_kernel
from blockfit.lab.scale import choose_scale
from blockfit.schema import Candidate, Instance, Layout, Plan, Prediction, Requirements, Workload
from blockfit.schema.lab import LabCaps, LabFigures, LabLimits, LabResult, LabStep
from blockfit.units import KIB, MB, MIB, fmt_io_size

Kind = Literal["iops", "mbps"]
Progress = Callable[[str], None]

DEFAULT_STRIPE = 4 * MIB
RAMP_S = 2
CHECK_MIB = 32
GUEST_MOUNT = "/mnt/blockfit-lab"

_env = jinja2.Environment(loader=jinja2.PackageLoader("blockfit.lab", "templates"), keep_trailing_newline=True,
                          undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


@dataclass
class LabRequest:
    cloud: str | None = None
    layout: str | None = None
    instance: str | None = None
    plan: Path | None = None
    scale: float | None = None  # None: choose automatically
    manager: str = "lvm"
    fs: str = "xfs"
    keep: bool = False
    runtime_s: int = 8
    single: bool = True  # also measure the single-volume alternative
    rerun_check: bool = False  # rerun the build scripts and check that nothing changes


@dataclass
class Subject:
    """What the lab emulates: the stripe, its single-volume alternative, the instance, and their predictions."""

    cloud: str
    layout: Layout
    instance: Instance
    stripe: Prediction
    single: Prediction | None
    stripe_size: int


def resolve(req: LabRequest) -> Subject:
    """Turn the request (a plan file, or cloud + layout + instance specs) into predictions."""
    from blockfit.model import predict
    from blockfit.specs import parse_instance, parse_layout

    if req.manager not in ("lvm", "mdadm"):
        raise InputError(f"--manager {req.manager!r}: expected lvm or mdadm")
    if req.fs not in ("xfs", "ext4"):
        raise InputError(f"--fs {req.fs!r}: expected xfs or ext4")
    if req.plan is not None:
        try:
            plan = Plan.model_validate_json(Path(req.plan).read_text())
        except FileNotFoundError:
            raise InputError(f"--plan {req.plan}: file not found") from None
        except ValueError as exc:
            raise InputError(f"--plan {req.plan}: not a blockfit plan.json ({str(exc).splitlines()[0]})") from None
        if not plan.candidates:
            raise InputError(f"--plan {req.plan}: the plan has no candidates")
        best = plan.candidates[0]
        cloud, layout = plan.cloud, best.layout_detail
        instance = parse_instance(best.instance, cloud)
        workload = best.prediction.workload
        stripe_size = best.stripe_size_bytes
    else:
        if not (req.cloud and req.layout and req.instance):
            raise InputError("lab: give --plan plan.json, or all of --cloud, --layout and --instance")
        cloud = req.cloud
        layout = parse_layout(req.layout, cloud, manager="lvm" if req.manager == "lvm" else "mdadm")
        instance = parse_instance(req.instance, cloud)
        workload = Workload()
        stripe_size = layout.stripe_size or DEFAULT_STRIPE
    if stripe_size % (4 * KIB) or stripe_size < 64 * KIB:
        raise InputError(f"stripe size {stripe_size} bytes: expected a multiple of 4 KiB, at least 64 KiB")
    stripe = predict(layout, instance, workload)
    single: Prediction | None = None
    if layout.members > 1:
        one = layout.model_copy(update={
            "members": 1, "volume": layout.volume.model_copy(update={"size_gb": layout.total_gb})})
        try:
            single = predict(one, instance, workload)
        except InputError:
            single = None  # no single volume that big exists on this cloud
    else:
        single = stripe
    return Subject(cloud=cloud, layout=layout, instance=instance, stripe=stripe, single=single,
                   stripe_size=stripe_size)


def builder() -> str | None:
    """The `blockfit` executable that writes the build scripts; None when this installation has no `build`.

    Without it the lab sets the stripe up with plain commands so it can still measure.
    """
    if importlib.util.find_spec("blockfit.emit") is None:
        return None
    exe = Path(sys.executable).parent / "blockfit"
    return str(exe) if exe.is_file() else None


def guest_device_names(count: int) -> list[str]:
    """/dev/vda, /dev/vdb, ...: the names the guest kernel gives virtio disks in qemu's command-line order."""
    names = []
    for i in range(count):
        suffix = ""
        n = i
        while True:
            suffix = chr(ord("a") + n % 26) + suffix
            n = n // 26 - 1
            if n < 0:
                break
        names.append(f"/dev/vd{suffix}")
    return names


def write_build_scripts(exe: str, work: Path, plan_text: str, manager: str, fs: str, devices: list[str]) -> None:
    """Run `blockfit build` as a user would, for the guest's device names, into WORK/build."""
    (work / "plan.json").write_text(plan_text)
    cmd = [exe, "build", "--plan", str(work / "plan.json"), "--manager", manager, "--devices", ",".join(devices),
           "--mount", GUEST_MOUNT, "--fs", fs, "--out", str(work / "build")]
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    (work / "build-command.log").write_text(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise LabFailed(f"lab: 'blockfit build' refused the plan: {proc.stderr.strip()[-400:]}")


def plan_for(subject: Subject) -> Plan:
    """A one-candidate plan.json for `blockfit build`, when the lab was given a layout instead of a plan."""
    pred = subject.stripe
    layout = subject.layout.model_copy(update={"stripe_size": subject.stripe_size})
    return Plan(
        blockfit_version=__version__, created=datetime.now(UTC), cloud=subject.cloud,
        catalog_version=pred.catalog_version,
        requirements=Requirements(cloud=subject.cloud, capacity_gb=layout.total_gb,
                                  instance_shape=subject.instance.shape, instance_ocpus=subject.instance.ocpus,
                                  manager=layout.manager),
        candidates=[Candidate(
            layout=pred.layout, layout_detail=layout, instance=subject.instance.spec, max_iops=pred.max_iops,
            max_mbps=pred.max_mbps, cost_per_month=pred.cost_per_month or 0.0,
            stripe_size=fmt_io_size(subject.stripe_size), stripe_size_bytes=subject.stripe_size,
            stripe_reason="given to blockfit lab", limited_by=pred.iops_limited_by, prediction=pred)],
        notes=["written by blockfit lab for the build scripts it runs in the guest"])


def _caps(pred: Prediction, scale: float, tag: str) -> Throttle:
    return Throttle(name=f"vol_{tag}", iops=max(1, round(pred.member_iops * scale)),
                    bps=max(4096, round(pred.member_mbps * MB * scale)), iops_size=pred.member_io_accounting_bytes)


def _instance_caps(pred: Prediction, scale: float) -> Throttle | None:
    iops = round(pred.instance_iops_cap * scale) if pred.instance_iops_cap else None
    bps = round(pred.instance_mbps_cap * MB * scale) if pred.instance_mbps_cap else None
    return Throttle(name="instance", iops=iops, bps=bps) if (iops or bps) else None


def iodepth_for(members: int, kind: Kind) -> int:
    """Enough I/Os in flight that every member stays busy: throttled members need a queue, not CPU."""
    per_member, low, high = (16, 32, 256) if kind == "iops" else (8, 16, 96)
    return max(low, min(high, per_member * members))


def nearest_limit(pred: Prediction, measured: float, kind: Kind, scale: float,
                  member_total: float | None, instance: float | None) -> str:
    """Name the emulated limit the measurement sits on, in the model's vocabulary where it has one.

    The lab emulates volume limits and the instance limit; among the model's limit rows of those two kinds,
    the one nearest (in ratio) to the measured rate is the one that binds.
    """
    rows = [r for r in pred.limits if r.name.startswith(("volume", "instance"))]
    options: list[tuple[str, float]] = [
        (r.name, (r.iops_at_small_io if kind == "iops" else r.mbps_at_large_io) * scale) for r in rows]
    if not options:
        options = [(n, v) for n, v in (("volume", member_total), ("instance", instance)) if v]
    options = [(n, v) for n, v in options if v and v > 0]
    if not options or measured <= 0:
        return "unknown"
    return min(options, key=lambda o: abs(math.log(measured / o[1])))[0]


@dataclass
class WindowRate:
    """A measurement window's rates: the median of its one-second rates, and their spread."""

    iops: float
    mbps: float
    iops_spread: float  # relative standard error of the median (1.25 sd / sqrt(n) / median)
    mbps_spread: float


def _median_and_spread(values: list[float]) -> tuple[float, float]:
    med = statistics.median(values)
    if len(values) < 2 or med <= 0:
        return med, 0.0
    return med, 1.25 * statistics.stdev(values) / math.sqrt(len(values)) / med


def _window_rate(path: Path) -> WindowRate:
    """Rates over the measurement window, from the device's stat counters snapshotted once a second.

    Why not fio's own totals: with deep queues of slow (throttled) I/Os they mix in the queue's fill and
    final drain (io_bytes and total_ios disagree by 20 % and more), and the per-interval sample means are
    coarse when a window holds a handful of 1 MiB I/Os. Why the median of one-second rates: a stall of the
    shared host (a few hundred ms under TCG) costs one of them, not the whole window's mean.
    """
    snaps = [tuple(float(x) for x in line.split()) for line in path.read_text().splitlines() if line.strip()]
    iops, mbps = [], []
    for (t1, r1, s1), (t2, r2, s2) in itertools.pairwise(snaps):
        if t2 > t1:
            iops.append((r2 - r1) / (t2 - t1))
            mbps.append((s2 - s1) * 512 / (t2 - t1) / MB)
    if not iops:
        raise ValueError(f"{path.name}: empty measurement window")
    (i, i_spread), (m, m_spread) = _median_and_spread(iops), _median_and_spread(mbps)
    return WindowRate(iops=i, mbps=m, iops_spread=i_spread, mbps_spread=m_spread)


def _figures(pred: Prediction, work: Path, prefix: str, scale: float, throttle: Throttle,
             instance: Throttle | None) -> LabFigures:
    small = _window_rate(work / f"rate-{prefix}-iops.txt")
    large = _window_rate(work / f"rate-{prefix}-mbps.txt")
    iops, mbps = small.iops, large.mbps
    members = pred.layout_detail.members
    predicted_iops, predicted_mbps = pred.max_iops * scale, pred.max_mbps * scale
    limited = LabLimits(
        iops=nearest_limit(pred, iops, "iops", scale, (throttle.iops or 0) * members,
                           instance.iops if instance else None),
        mbps=nearest_limit(pred, mbps, "mbps", scale, (throttle.bps or 0) * members / MB,
                           instance.bps / MB if instance and instance.bps else None))
    return LabFigures(
        layout=pred.layout, members=members, predicted_iops=predicted_iops, measured_iops=iops,
        predicted_mbps=predicted_mbps, measured_mbps=mbps, iops_spread=round(small.iops_spread, 4),
        mbps_spread=round(large.mbps_spread, 4), limited_by=limited,
        predicted_limited_by=LabLimits(iops=pred.iops_limited_by, mbps=pred.mbps_limited_by),
        iops_ratio=iops / predicted_iops if predicted_iops else 0.0,
        mbps_ratio=mbps / predicted_mbps if predicted_mbps else 0.0,
        caps=LabCaps(member_iops=throttle.iops, member_bps=throttle.bps, member_iops_size=throttle.iops_size,
                     instance_iops=instance.iops if instance else None,
                     instance_bps=instance.bps if instance else None))


def _read_steps(path: Path) -> list[LabStep]:
    steps = []
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            name, ok, detail = (line.split("\t", 2) + ["", ""])[:3]
            steps.append(LabStep(name=name, ok=ok == "1", detail=detail))
    return steps


def _keep_console(outcome: GuestOutcome) -> Path | None:
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


def run_lab(req: LabRequest, progress: Progress | None = None) -> LabResult:
    """Run the lab for REQ; raises InputError / EnvironmentProblem / LabFailed, never leaves anything behind."""
    say = progress or (lambda _msg: None)
    subject = resolve(req)
    preds = [subject.stripe] + ([subject.single] if subject.single and req.single else [])
    scale = req.scale or choose_scale([p.max_iops for p in preds], [p.max_mbps for p in preds])
    say(f"scale {scale:g}: every IOPS and MB/s cap is multiplied by it")
    kernel = ensure_kernel(say)

    parent = runs_dir()
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="blockfit-lab-", dir=parent))
    try:
        return _run_in(work, req, subject, scale, kernel, say)
    finally:
        if not req.keep:
            shutil.rmtree(work, ignore_errors=True)


def _run_in(work: Path, req: LabRequest, subject: Subject, scale: float, kernel: GuestKernel,
            say: Progress) -> LabResult:
    members = subject.layout.members
    member_cap = _caps(subject.stripe, scale, "member")
    instance = _instance_caps(subject.stripe, scale)
    disks = [Disk(serial=f"m{i + 1}", path=work / f"m{i + 1}.raw",
                  size_bytes=disk_files.disk_bytes(subject.layout.volume.size_gb),
                  throttle=Throttle(name=f"vol_m{i + 1}", iops=member_cap.iops, bps=member_cap.bps,
                                    iops_size=member_cap.iops_size))
             for i in range(members)]
    single_cap: Throttle | None = None
    measure_single = subject.single is not None and req.single
    if measure_single:
        assert subject.single is not None
        single_cap = _caps(subject.single, scale, "single")
        disks.append(Disk(serial="single", path=work / "single.raw",
                          size_bytes=disk_files.disk_bytes(subject.single.layout_detail.volume.size_gb),
                          throttle=single_cap))
    disk_files.create(disks)

    small, large = subject.stripe.workload.small_io, subject.stripe.workload.large_io
    jobs = {"stripe-iops": (small, iodepth_for(members, "iops")), "stripe-mbps": (large, iodepth_for(members, "mbps"))}
    if measure_single:
        jobs |= {"single-iops": (small, iodepth_for(1, "iops")), "single-mbps": (large, iodepth_for(1, "mbps"))}
    for name, (bs, depth) in jobs.items():
        (work / f"fio-{name}.job").write_text(_env.get_template("fio.job.j2").render(
            name=name, bs=bs, iodepth=depth, runtime_s=RAMP_S + req.runtime_s + 3))
    exe = builder()
    members_dev = guest_device_names(members)
    if exe:
        plan = Path(req.plan).read_text() if req.plan is not None else plan_for(subject).model_dump_json(indent=2)
        write_build_scripts(exe, work, plan, req.manager, req.fs, members_dev)
    script = _env.get_template("lab.sh.j2").render(
        use_build=exe is not None, rerun_check=exe is not None and req.rerun_check, expected_devices=members_dev,
        mount=GUEST_MOUNT,
        work=str(work), members=members, member_serials=[d.serial for d in disks[:members]],
        single_serial="single" if measure_single else None, manager=req.manager, fs=req.fs,
        stripe_kib=subject.stripe_size // KIB, check_mib=CHECK_MIB, ramp_s=RAMP_S,
        window_s=req.runtime_s)
    timeout = 90 + len(jobs) * (req.runtime_s + RAMP_S + 15) + 120 + 5 * members
    say(f"booting the guest: {members} member disk(s){' + single volume' if measure_single else ''}")
    outcome = run_script(kernel, work, script, disks, instance, timeout_s=timeout, progress=say)
    steps = _read_steps(work / "steps.tsv")
    if not outcome.ok:
        kept = _keep_console(outcome)
        failed = next((s for s in steps if not s.ok), None)
        what = f"step '{failed.name}' failed: {failed.detail}" if failed else (outcome.failure or "unknown failure")
        raise LabFailed(f"lab: {what} (guest console log kept at {kept})")
    try:
        stripe = _figures(subject.stripe, work, "stripe", scale, member_cap, instance)
        single = (_figures(subject.single, work, "single", scale, single_cap, instance)
                  if measure_single and subject.single is not None and single_cap is not None else None)
    except (OSError, ValueError, KeyError) as exc:
        kept = _keep_console(outcome)
        raise EnvironmentProblem(f"lab: could not read the fio results ({exc}); console log kept at {kept}") from None
    return LabResult(
        **stripe.model_dump(), scale=scale, cloud=subject.cloud, instance=subject.instance.spec, manager=req.manager,
        fs=req.fs, small_io=small, large_io=large, iodepth=jobs["stripe-iops"][1], runtime_s=req.runtime_s,
        single=single, steps=steps, kernel=kernel.version, guest_seconds=round(outcome.elapsed_s, 1),
        console_log=str(outcome.console_log) if req.keep else None)
