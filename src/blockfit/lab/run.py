"""The public API: ``run_lab(request) -> LabResult``.

What a lab run does: predict the stripe and its single-volume alternative with the model, choose one
scale factor, give the guest one capped disk per member plus one capped like the single volume (all
under the shared instance cap), boot, measure the single volume, build the stripe and its filesystem,
measure the stripe, and tear everything down (qemu, disk files, work dir) whatever happens.

With --paths/--attachment each volume is reached through the prediction's paths: one guest device per
path, each under its own throttle (the model's per-path ceiling x scale) over the volume's chain, and
dm-multipath (one round-robin group over all of them) in the guest; fio and the build run on the maps.

With --redundancy raid10 (or a plan made with it) the build scripts make an mdadm RAID10 (near-2) and the lab
measures writes instead of reads: small random writes (IOPS) and large sequential writes (MB/s), against the
model's prediction at read share 0, where every logical write costs two volume writes.
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
from blockfit.catalog.models import Catalog
from blockfit.errors import EnvironmentProblem, InputError, LabFailed
from blockfit.lab import disks as disk_files
from blockfit.lab.cache import cache_dir, runs_dir
from blockfit.lab.disks import Disk, Throttle
from blockfit.lab.guest import GuestOutcome, run_script
from blockfit.lab.kernel import GuestKernel, ensure_kernel
from blockfit.lab.scale import IOPS_BUDGET, choose_scale
from blockfit.model.predict import ISCSI_PATH
from blockfit.plan.stripe import LVM_MAX, MIN_STRIPE
from blockfit.schema import Candidate, Instance, Layout, Plan, Prediction, Requirements, Workload
from blockfit.schema.lab import LabCaps, LabFigures, LabLimits, LabResult, LabStep
from blockfit.schema.prediction import LimitRow
from blockfit.units import KIB, MB, MIB, fmt_io_size

Kind = Literal["iops", "mbps"]
Direction = Literal["read", "write"]
Progress = Callable[[str], None]

DEFAULT_STRIPE = 4 * MIB
RAMP_S = 2
# Each emulated path adds a virtio queue and dm-multipath a layer (under the LV: two dm layers), all run by
# TCG on the host's CPUs: on the shared 2-core host a 4-path volume delivered 0.66 of a 2,417 IOPS cap at
# load 8 and a 1-path one 0.37 of 1,000 at load 14-21, so paths get a much lower budget.
PATHS_IOPS_BUDGET = 300.0
SUB_WINDOW_S = 2  # shortest sub-window of a measurement window; the median of the sub-windows is reported
MIN_WINDOW_IOS = 40  # I/Os a sub-window is expected to hold (the counters move in whole I/Os)
CHECK_MIB = 32
GUEST_MOUNT = "/mnt/blockfit-lab"
MAP_PREFIX = "bfmp_"  # the guest's multipath maps: /dev/mapper/bfmp_m1, bfmp_single

TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("blockfit.lab", "templates"), keep_trailing_newline=True,
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
    attachment: str | None = None  # --attachment: iscsi | paravirtualized (OCI)
    paths: int | None = None  # --paths: paths per volume that carry I/O
    redundancy: str | None = None  # --redundancy: none | raid10 (mdadm); None: the plan's (none for a layout spec)
    stripe_size: int | None = None  # --stripe-size in bytes; None: the plan's (4 MiB for a layout spec; lab --bench:
    #                                 one scaled with its data, see lab.bench.bench_stripe)
    catalog: str | None = None  # --catalog: a date or a catalog file (catalog import); None: the newest shipped


@dataclass
class Subject:
    """What the lab emulates: the stripe, its single-volume alternative, the instance, and their predictions."""

    cloud: str
    layout: Layout
    instance: Instance
    stripe: Prediction
    single: Prediction | None
    stripe_size: int
    direction: Direction = "read"  # write: a mirrored layout, measured for what mirroring costs (writes)
    cat: Catalog | None = None  # the catalog the predictions used (--catalog); None: the newest shipped


def check_redundancy(redundancy: str, manager: str) -> Direction:
    """The direction the lab measures for REDUNDANCY; InputError when the lab cannot build it."""
    if redundancy in ("normal", "high"):
        raise InputError(f"--redundancy {redundancy}: the lab builds mdadm RAID10 only (ASM {redundancy} redundancy "
                         "needs Oracle Grid Infrastructure); use --redundancy raid10 --manager mdadm")
    if redundancy not in ("none", "raid10"):
        raise InputError(f"--redundancy {redundancy!r}: expected none or raid10 (mdadm)")
    if redundancy == "raid10" and manager != "mdadm":
        raise InputError(f"--redundancy raid10: the lab builds RAID10 with mdadm; add --manager mdadm (got {manager})")
    return "write" if redundancy == "raid10" else "read"


def buildable_stripe(size: int) -> bool:
    """Can the build scripts stripe with it (LVM -I, mdadm --chunk: a power of two)? The range is the planner's:
    at least 64 KiB, at most LVM's 4 MiB extent."""
    return MIN_STRIPE <= size <= LVM_MAX and not size & (size - 1)


def check_stripe_size(size: int, text: str | None = None) -> int:
    """SIZE if the build scripts can stripe with it; InputError otherwise."""
    if not buildable_stripe(size):
        raise InputError(f"--stripe-size {text or size}: expected a power of two from 64k to 4m")
    return size


def resolve(req: LabRequest) -> Subject:
    """Turn the request (a plan file, or cloud + layout + instance specs) into predictions."""
    from blockfit.catalog import resolve_catalog
    from blockfit.model import predict
    from blockfit.specs import parse_instance, parse_layout

    if req.manager not in ("lvm", "mdadm"):
        raise InputError(f"--manager {req.manager!r}: expected lvm or mdadm")
    if req.stripe_size is not None:
        check_stripe_size(req.stripe_size)
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
        cat = resolve_catalog(cloud, req.catalog)
        instance = parse_instance(best.instance, cloud, cat)
        workload = best.prediction.workload
        stripe_size = best.stripe_size_bytes
    else:
        if not (req.cloud and req.layout and req.instance):
            raise InputError("lab: give --plan plan.json, or all of --cloud, --layout and --instance")
        cloud = req.cloud
        cat = resolve_catalog(cloud, req.catalog)
        layout = parse_layout(req.layout, cloud, cat, manager="lvm" if req.manager == "lvm" else "mdadm")
        instance = parse_instance(req.instance, cloud, cat)
        workload = Workload()
        stripe_size = layout.stripe_size or DEFAULT_STRIPE
    if req.attachment is not None or req.paths is not None:
        if cloud != "oci":
            raise InputError(f"--attachment/--paths: attachments with paths are modelled for oci, not {cloud}")
        layout = layout.model_copy(update={"attachment": req.attachment or layout.attachment,
                                           "paths": req.paths or layout.paths})
    mirror = req.redundancy if req.redundancy is not None else layout.redundancy
    direction = check_redundancy(mirror, req.manager)
    if mirror != "none" and layout.members < 2:
        raise InputError(f"--redundancy {mirror}: a mirror needs at least 2 members; the layout has 1")
    layout = layout.model_copy(update={"redundancy": mirror})
    if direction == "write":  # what mirroring costs: writes, each written to two members
        workload = workload.model_copy(update={"read_fraction": 0.0})
    if req.stripe_size:
        stripe_size = req.stripe_size
    elif not buildable_stripe(stripe_size):
        # a hand-edited plan: refuse here, not inside the guest when `blockfit build` refuses it
        where = f"--plan {req.plan}" if req.plan is not None else "--layout"
        raise InputError(f"{where}: stripe size {stripe_size} bytes: the lab stripes with a power of two from 64k "
                         "to 4m (or give --stripe-size)")
    stripe = predict(layout, instance, workload, cat)
    single: Prediction | None = None
    if layout.members > 1:
        one = layout.model_copy(update={"members": 1, "redundancy": "none",  # one volume does not mirror itself
                                        "volume": layout.volume.model_copy(update={"size_gb": layout.total_gb})})
        try:
            single = predict(one, instance, workload, cat)
        except InputError:
            single = None  # no single volume that big exists on this cloud
    else:
        single = stripe
    return Subject(cloud=cloud, layout=layout, instance=instance, stripe=stripe, single=single,
                   stripe_size=stripe_size, direction=direction, cat=cat)


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


def write_build_scripts(exe: str, work: Path, plan_text: str, manager: str, fs: str, devices: list[str],
                        mount: str = GUEST_MOUNT, name: str = "build", names: tuple[str, ...] = ()) -> None:
    """Run `blockfit build` as a user would, for the guest's device names, into WORK/NAME.

    NAMES (e.g. ``--vg``, ``vg_b``) keep two layouts built in one guest apart.
    """
    (work / f"{name}-plan.json").write_text(plan_text)
    cmd = [exe, "build", "--plan", str(work / f"{name}-plan.json"), "--manager", manager,
           "--devices", ",".join(devices), "--mount", mount, "--fs", fs, "--out", str(work / name), *names]
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    (work / f"{name}-command.log").write_text(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise LabFailed(f"lab: 'blockfit build' refused the plan: {proc.stderr.strip()[-400:]}")


def plan_for(subject: Subject, layout: Layout | None = None, pred: Prediction | None = None) -> Plan:
    """A one-candidate plan.json for `blockfit build`, when the lab was given a layout instead of a plan.

    LAYOUT and PRED default to the subject's stripe; the bench passes its other layout (e.g. the single volume).
    """
    pred = pred or subject.stripe
    layout = (layout or subject.layout).model_copy(update={"stripe_size": subject.stripe_size})
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


def emulated_paths(subject: Subject) -> int | None:
    """Guest devices per volume: the prediction's paths when the layout names an attachment or paths."""
    if subject.layout.attachment is None and subject.layout.paths is None:
        return None
    return subject.stripe.paths or subject.layout.paths or 1


def _path_caps(pred: Prediction, scale: float, tag: str) -> Throttle:
    """One path's cap: the model's per-path ceiling x scale (no cap where the model knows none)."""
    return Throttle(name=f"path_{tag}", iops=max(1, round(pred.path_iops_cap * scale)) if pred.path_iops_cap else None,
                    bps=max(4096, round(pred.path_mbps_cap * MB * scale)) if pred.path_mbps_cap else None,
                    iops_size=pred.member_io_accounting_bytes)


def _caps(pred: Prediction, scale: float, tag: str) -> Throttle:
    return Throttle(name=f"vol_{tag}", iops=max(1, round(pred.member_iops * scale)),
                    bps=max(4096, round(pred.member_mbps * MB * scale)), iops_size=pred.member_io_accounting_bytes)


def instance_caps(pred: Prediction, scale: float) -> Throttle | None:
    iops = round(pred.instance_iops_cap * scale) if pred.instance_iops_cap else None
    bps = round(pred.instance_mbps_cap * MB * scale) if pred.instance_mbps_cap else None
    return Throttle(name="instance", iops=iops, bps=bps) if (iops or bps) else None


def sub_windows(runtime_s: int, ios_per_s: float) -> tuple[int, float]:
    """(count, seconds) of the sub-windows a measurement window is cut into: each at least SUB_WINDOW_S long
    and expected to hold MIN_WINDOW_IOS I/Os (the counters move in whole I/Os: 6 MiB-sized reads in a window
    would make its rate ±8 %); one window when even the whole one holds fewer."""
    count = max(1, min(runtime_s // SUB_WINDOW_S, int(runtime_s * ios_per_s // MIN_WINDOW_IOS)))
    return count, runtime_s / count


def _renamed(t: Throttle | None, name: str) -> Throttle | None:
    return Throttle(name=name, iops=t.iops, bps=t.bps, iops_size=t.iops_size) if t is not None else None


def fio_rw(direction: Direction, small: bool) -> str:
    """fio's rw= for a window: random reads at both sizes; writes random when small, sequential when large."""
    if direction == "read":
        return "randread"
    return "randwrite" if small else "write"


def iodepth_for(members: int, kind: Kind) -> int:
    """Enough I/Os in flight that every member stays busy: throttled members need a queue, not CPU."""
    per_member, low, high = (16, 32, 256) if kind == "iops" else (8, 16, 96)
    return max(low, min(high, per_member * members))


def emulated_rows(pred: Prediction, paths: int | None = None) -> list[LimitRow]:
    """The model's limits the lab emulates: rate caps of the volumes, the instance, and (with paths) each path.

    Limits from queueing (iSCSI session depth, host queue depth) depend on the cloud's latency, which the lab
    does not emulate (its latency is the emulator's): they are reported, not compared.
    """
    kinds = ("volume", "instance", ISCSI_PATH) if paths else ("volume", "instance")
    return [r for r in pred.limits if r.name.startswith(kinds)]


def emulated_limit(pred: Prediction, kind: Kind, paths: int | None = None) -> tuple[str, float]:
    """(name, value) of the binding emulated limit; the model's own figure when no row applies."""
    rows = emulated_rows(pred, paths)
    if not rows:
        return (pred.iops_limited_by, pred.max_iops) if kind == "iops" else (pred.mbps_limited_by, pred.max_mbps)
    row = min(rows, key=lambda r: r.iops_at_small_io if kind == "iops" else r.mbps_at_large_io)
    return row.name, row.iops_at_small_io if kind == "iops" else row.mbps_at_large_io


def nearest_limit(pred: Prediction, measured: float, kind: Kind, scale: float,
                  member_total: float | None, instance: float | None, paths: int | None = None) -> str:
    """Name the emulated limit the measurement sits on, in the model's vocabulary where it has one.

    The lab emulates volume limits and the instance limit (and with paths each path's); among the model's
    limit rows of those kinds, the one nearest (in ratio) to the measured rate is the one that binds.
    """
    rows = emulated_rows(pred, paths)
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
    """A measurement window's rates: the median of its sub-window rates, and their spread."""

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
    """Rates over the measurement window, from snapshots of the device's stat counters.

    Why not fio's own totals: with deep queues of slow (throttled) I/Os they mix in the queue's fill and
    final drain (io_bytes and total_ios disagree by 20 % and more), and the per-interval sample means are
    coarse when a window holds a handful of 1 MiB I/Os. The window is cut into sub-windows (`sub_windows`)
    and the median of their rates taken: a stall of the shared host moves one sub-window, not the result;
    the spread of the sub-window rates says how steady the window was.
    """
    values = [float(x) for x in path.read_text().split()]
    snaps = [values[i:i + 3] for i in range(0, len(values) - 2, 3)]
    if len(snaps) < 2 or any(b[0] <= a[0] for a, b in itertools.pairwise(snaps)):
        raise ValueError(f"{path.name}: empty measurement window")
    iops = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in itertools.pairwise(snaps)]
    mbps = [(b[2] - a[2]) * 512 / (b[0] - a[0]) / MB for a, b in itertools.pairwise(snaps)]
    (i, i_spread), (m, m_spread) = _median_and_spread(iops), _median_and_spread(mbps)
    return WindowRate(iops=i, mbps=m, iops_spread=i_spread, mbps_spread=m_spread)


def _figures(pred: Prediction, work: Path, prefix: str, scale: float, throttle: Throttle,
             instance: Throttle | None, paths: int | None = None, path: Throttle | None = None) -> LabFigures:
    small = _window_rate(work / f"rate-{prefix}-iops.txt")
    large = _window_rate(work / f"rate-{prefix}-mbps.txt")
    iops, mbps = small.iops, large.mbps
    members = pred.layout_detail.members
    iops_limit, iops_value = emulated_limit(pred, "iops", paths)
    mbps_limit, mbps_value = emulated_limit(pred, "mbps", paths)
    predicted_iops, predicted_mbps = iops_value * scale, mbps_value * scale
    limited = LabLimits(
        iops=nearest_limit(pred, iops, "iops", scale, (throttle.iops or 0) * members,
                           instance.iops if instance else None, paths),
        mbps=nearest_limit(pred, mbps, "mbps", scale, (throttle.bps or 0) * members / MB,
                           instance.bps / MB if instance and instance.bps else None, paths))
    differs = (iops_limit, mbps_limit) != (pred.iops_limited_by, pred.mbps_limited_by)
    return LabFigures(
        layout=pred.layout, members=members, predicted_iops=predicted_iops, measured_iops=iops,
        predicted_mbps=predicted_mbps, measured_mbps=mbps, iops_spread=round(small.iops_spread, 4),
        mbps_spread=round(large.mbps_spread, 4), limited_by=limited,
        predicted_limited_by=LabLimits(iops=iops_limit, mbps=mbps_limit),
        model_iops=pred.max_iops * scale if differs else None, model_mbps=pred.max_mbps * scale if differs else None,
        model_limited_by=LabLimits(iops=pred.iops_limited_by, mbps=pred.mbps_limited_by) if differs else None,
        iops_ratio=iops / predicted_iops if predicted_iops else 0.0,
        mbps_ratio=mbps / predicted_mbps if predicted_mbps else 0.0,
        caps=LabCaps(member_iops=throttle.iops, member_bps=throttle.bps, member_iops_size=throttle.iops_size,
                     instance_iops=instance.iops if instance else None,
                     instance_bps=instance.bps if instance else None, paths=paths,
                     path_iops=path.iops if path else None, path_bps=path.bps if path else None))


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


def steps_or_fail(outcome: GuestOutcome, work: Path) -> list[LabStep]:
    """The guest's recorded steps; LabFailed naming the failed step (console log kept) if the run failed."""
    steps = read_steps(work / "steps.tsv")
    if not outcome.ok:
        kept = keep_console(outcome)
        failed = next((s for s in steps if not s.ok), None)
        what = f"step '{failed.name}' failed: {failed.detail}" if failed else (outcome.failure or "unknown failure")
        raise LabFailed(f"lab: {what} (guest console log kept at {kept})")
    return steps


def run_lab(req: LabRequest, progress: Progress | None = None) -> LabResult:
    """Run the lab for REQ; raises InputError / EnvironmentProblem / LabFailed, never leaves anything behind."""
    say = progress or (lambda _msg: None)
    subject = resolve(req)
    preds = [subject.stripe] + ([subject.single] if subject.single and req.single else [])
    budget = PATHS_IOPS_BUDGET if emulated_paths(subject) else IOPS_BUDGET
    # the budgets are what the guest's disks do: a mirrored write is two of their I/Os
    scale = req.scale or choose_scale([p.max_iops * p.write_amplification for p in preds],
                                      [p.max_mbps * p.write_amplification for p in preds], iops_budget=budget)
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
    instance = instance_caps(subject.stripe, scale)
    paths = emulated_paths(subject)
    member_path = _path_caps(subject.stripe, scale, "member") if paths else None
    disks = [Disk(serial=f"m{i + 1}", path=work / f"m{i + 1}.raw",
                  size_bytes=disk_files.disk_bytes(subject.layout.volume.size_gb),
                  throttle=Throttle(name=f"vol_m{i + 1}", iops=member_cap.iops, bps=member_cap.bps,
                                    iops_size=member_cap.iops_size),
                  paths=paths or 1, path_throttle=_renamed(member_path, f"path_m{i + 1}"))
             for i in range(members)]
    single_cap: Throttle | None = None
    single_path: Throttle | None = None
    measure_single = subject.single is not None and req.single
    if measure_single:
        assert subject.single is not None
        single_cap = _caps(subject.single, scale, "single")
        single_path = _path_caps(subject.single, scale, "single") if paths else None
        disks.append(Disk(serial="single", path=work / "single.raw",
                          size_bytes=disk_files.disk_bytes(subject.single.layout_detail.volume.size_gb),
                          throttle=single_cap, paths=paths or 1, path_throttle=single_path))
    disk_files.create(disks)

    small, large = subject.stripe.workload.small_io, subject.stripe.workload.large_io
    queues = paths or 1  # every path needs its own queue of throttled I/Os
    jobs = {"stripe-iops": (small, iodepth_for(members * queues, "iops")),
            "stripe-mbps": (large, iodepth_for(members * queues, "mbps"))}
    if measure_single:
        jobs |= {"single-iops": (small, iodepth_for(queues, "iops")),
                 "single-mbps": (large, iodepth_for(queues, "mbps"))}
    writes = subject.direction == "write"
    for name, (bs, depth) in jobs.items():
        (work / f"fio-{name}.job").write_text(TEMPLATES.get_template("fio.job.j2").render(
            name=name, bs=bs, iodepth=depth, runtime_s=RAMP_S + req.runtime_s + 3,
            rw=fio_rw(subject.direction, name.endswith("-iops"))))
    exe = builder()
    members_dev = [f"/dev/mapper/{MAP_PREFIX}{d.serial}" for d in disks[:members]] if paths else \
        guest_device_names(members)
    if exe:
        plan = (Path(req.plan).read_text() if req.plan is not None and req.redundancy is None and not req.stripe_size
                else plan_for(subject).model_dump_json(indent=2))
        write_build_scripts(exe, work, plan, req.manager, req.fs, members_dev)
    script = TEMPLATES.get_template("lab.sh.j2").render(
        use_build=exe is not None, rerun_check=exe is not None and req.rerun_check, expected_devices=members_dev,
        mount=GUEST_MOUNT,
        work=str(work), members=members, member_serials=[d.serial for d in disks[:members]],
        single_serial="single" if measure_single else None, manager=req.manager, fs=req.fs,
        paths=paths, map_prefix=MAP_PREFIX, writes=writes,
        md_level="raid10" if subject.layout.redundancy == "raid10" else "raid0",
        stripe_kib=subject.stripe_size // KIB, check_mib=CHECK_MIB, ramp_s=RAMP_S,
        window_s=req.runtime_s, windows={name: sub_windows(req.runtime_s, rate) for name, rate in {
            "stripe-iops": subject.stripe.max_iops * scale,
            "stripe-mbps": subject.stripe.max_mbps * scale * MB / large,
            **({"single-iops": subject.single.max_iops * scale,
                "single-mbps": subject.single.max_mbps * scale * MB / large} if subject.single else {})}.items()})
    timeout = 90 + len(jobs) * (req.runtime_s + RAMP_S + 15) + 120 + 5 * members + (90 if paths else 0)
    say(f"booting the guest: {members} member disk(s){' + single volume' if measure_single else ''}"
        + (f", {paths} path(s) each" if paths else ""))
    outcome = run_script(kernel, work, script, disks, instance, timeout_s=timeout, progress=say)
    steps = steps_or_fail(outcome, work)
    try:
        stripe = _figures(subject.stripe, work, "stripe", scale, member_cap, instance, paths, member_path)
        single = (_figures(subject.single, work, "single", scale, single_cap, instance, paths, single_path)
                  if measure_single and subject.single is not None and single_cap is not None else None)
    except (OSError, ValueError, KeyError) as exc:
        kept = keep_console(outcome)
        raise EnvironmentProblem(f"lab: could not read the fio results ({exc}); console log kept at {kept}") from None
    return LabResult(
        **stripe.model_dump(), scale=scale, cloud=subject.cloud, instance=subject.instance.spec, manager=req.manager,
        fs=req.fs, small_io=small, large_io=large, iodepth=jobs["stripe-iops"][1], runtime_s=req.runtime_s,
        direction=subject.direction, redundancy=subject.layout.redundancy,
        single=single, steps=steps, kernel=kernel.version, guest_seconds=round(outcome.elapsed_s, 1),
        console_log=str(outcome.console_log) if req.keep else None)
