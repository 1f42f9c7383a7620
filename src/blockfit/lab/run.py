"""The public API: ``run_lab(request) -> LabResult``.

What a lab run does, a phase each (``run_lab``):
1. resolve: the stripe and its single-volume alternative, predicted by the model;
2. rig: one capped disk per member plus one capped like the single volume, all under the shared instance cap,
   at the scale the budgets allow;
3. script: the build scripts (`blockfit build`), one fio job per measurement, the guest script;
4. guest: lift the caps, build the stripe and its filesystem, measure the emulator's own speed on every measured
   device (the reference), ask the host to fit the scale to it (``Fit``: every predicted rate at most half of what
   the emulator did) and apply the caps, then measure the single volume and the stripe, each until its interval
   is narrow or its budget ends (``lab.windows``);
5. figures: the sub-windows' medians against the model's emulated limits x the fitted scale (``lab.figures``).
Everything is torn down (qemu, disk files, work dir) whatever happens.

With --paths/--attachment each volume is reached through the prediction's paths: one guest device per
path, each under its own throttle (the model's per-path ceiling x scale) over the volume's chain, and
dm-multipath (one round-robin group over all of them) in the guest; fio and the build run on the maps.

With --redundancy raid10 (or a plan made with it) the build scripts make an mdadm RAID10 (near-2) and the lab
measures writes instead of reads: small random writes (IOPS) and large sequential writes (MB/s), against the
model's prediction at read share 0, where every logical write costs two volume writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from blockfit.errors import InputError, ValueProblem
from blockfit.lab import disks as disk_files
from blockfit.lab.buildscripts import GUEST_MOUNT, builder, guest_device_names, plan_for, write_build_scripts
from blockfit.lab.caps import CapControl
from blockfit.lab.disks import Disk, Throttle
from blockfit.lab.figures import EMULATOR_HEADROOM, emulated_limit, figures
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.render import render
from blockfit.lab.scale import (
    IOPS_BUDGET,
    Scale,
    choose_scale,
    instance_throttle,
    member_throttle,
    path_throttle,
    round_down,
)
from blockfit.lab.session import GuestRun, run_guest, work_dir
from blockfit.lab.subject import Direction, Subject
from blockfit.lab.target import LabTarget
from blockfit.lab.windows import BUDGET_FACTOR, REFERENCE_PLAN, Kind, Rate, WindowWatch, window_plan, window_rate
from blockfit.measure.fio_job import LabJob, render_lab_job
from blockfit.model.kinds.clouds import cloud_of
from blockfit.model.stripe import buildable_stripe
from blockfit.schema import Prediction
from blockfit.schema.lab import LabFigures, LabResult
from blockfit.units import KIB, MB, MIB

Progress = Callable[[str], None]

DEFAULT_STRIPE = 4 * MIB
RAMP_S = 2  # after fio's first completed I/O, before the first sub-window: the queue fills
REFERENCE_RAMP_S = 1
FIO_RUNTIME_S = 900  # a safety net: the guest stops fio when its windows end
# Each emulated path adds a virtio queue and dm-multipath a layer (under the LV: two dm layers), all run by
# TCG on the host's CPUs: on the shared 2-core host a 4-path volume delivered 0.66 of a 2,417 IOPS cap at
# load 8 and a 1-path one 0.37 of 1,000 at load 14-21, so paths get a much lower budget.
PATHS_IOPS_BUDGET = 300.0
CHECK_MIB = 32
MAP_PREFIX = "bfmp_"  # the guest's multipath maps: /dev/mapper/bfmp_m1, bfmp_single


@dataclass
class LabRequest:
    target: LabTarget  # what to emulate, parsed at the edge (lab.target)
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


def check_redundancy(redundancy: str, manager: str) -> Direction:
    """The direction the lab measures for REDUNDANCY; a ValueProblem when the lab cannot build it with MANAGER."""
    if redundancy in ("normal", "high"):
        raise ValueProblem(f"{redundancy}: the lab builds mdadm RAID10 only (ASM {redundancy} redundancy needs "
                           "Oracle Grid Infrastructure); use --redundancy raid10 --manager mdadm")
    if redundancy not in ("none", "raid10"):
        raise ValueProblem(f"{redundancy!r}: expected none or raid10 (mdadm)")
    if redundancy == "raid10" and manager != "mdadm":
        raise ValueProblem(f"raid10 with {manager}: the lab builds RAID10 with mdadm; add --manager mdadm")
    return "write" if redundancy == "raid10" else "read"


def check_stripe_size(size: int, text: str | None = None) -> int:
    """SIZE if the build scripts can stripe with it; InputError otherwise."""
    if not buildable_stripe(size):
        raise ValueProblem(f"{text or size}: expected a power of two from 64k to 4m")
    return size


def _mirror(req: LabRequest) -> str:
    return req.redundancy if req.redundancy is not None else req.target.layout.redundancy


def checks(req: LabRequest) -> dict[str, Callable[[], object]]:
    """Each check of the lab's options by the field it is about ('attachment,paths', 'redundancy': a value with
    the others it must go with); the command line names the option that carried it."""
    return {"manager": lambda: _check_choice(req.manager, ("lvm", "mdadm")),
            "fs": lambda: _check_choice(req.fs, ("xfs", "ext4")),
            "stripe_size": lambda: req.stripe_size is None or check_stripe_size(req.stripe_size),
            "attachment,paths": lambda: _check_attachment(req), "redundancy": lambda: _check_mirror(req)}


def _check_choice(value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueProblem(f"{value!r}: expected {' or '.join(choices)}")


def _check_attachment(req: LabRequest) -> None:
    """Attachments with paths are a cloud's own (its entry says); the lab emulates them only there."""
    if (req.attachment is not None or req.paths is not None) and not cloud_of(req.target.cloud).iscsi_attachments:
        given = " with ".join(x for x in (req.attachment, f"{req.paths} paths" if req.paths else None) if x)
        raise ValueProblem(f"{given}: attachments with paths are modelled for oci, not {req.target.cloud}")


def _check_mirror(req: LabRequest) -> None:
    mirror = _mirror(req)
    check_redundancy(mirror, req.manager)
    if mirror != "none" and req.target.layout.members < 2:
        raise ValueProblem(f"{mirror}: a mirror needs at least 2 members; the layout has 1")


def resolve(req: LabRequest) -> Subject:
    """Turn the request (a target parsed at the edge, the lab's options) into predictions."""
    from blockfit.model import predict

    for check in checks(req).values():
        check()
    t = req.target
    cloud, cat, layout, instance, workload = t.cloud, t.cat, t.layout, t.instance, t.workload
    # a plan's layout carries the stripe it was planned with (none for one volume); a layout spec gets the lab's
    stripe_size = layout.stripe_size or (0 if t.plan is not None else DEFAULT_STRIPE)
    if req.attachment is not None or req.paths is not None:
        layout = layout.model_copy(update={"attachment": req.attachment or layout.attachment,
                                           "paths": req.paths or layout.paths})
    mirror = _mirror(req)
    direction = check_redundancy(mirror, req.manager)
    layout = layout.model_copy(update={"redundancy": mirror})
    if direction == "write":  # what mirroring costs: writes, each written to two members
        workload = workload.model_copy(update={"read_pct": 0.0})
    if req.stripe_size:
        stripe_size = req.stripe_size
    elif not buildable_stripe(stripe_size):
        # a hand-edited plan: refuse here, not inside the guest when `blockfit build` refuses it
        raise InputError(f"{t.origin}: stripe size {stripe_size} bytes: the lab stripes with a power of two from 64k "
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


def emulated_paths(subject: Subject) -> int | None:
    """Guest devices per volume: the prediction's paths when the layout names an attachment or paths."""
    if subject.layout.attachment is None and subject.layout.paths is None:
        return None
    return subject.stripe.paths or subject.layout.paths or 1


def fio_rw(direction: Direction, small: bool) -> str:
    """fio's rw= for a window: random reads at both sizes; writes random when small, sequential when large."""
    if direction == "read":
        return "randread"
    return "randwrite" if small else "write"


def iodepth_for(members: int, kind: Kind) -> int:
    """Enough I/Os in flight that every member stays busy: throttled members need a queue, not CPU."""
    per_member, low, high = (16, 32, 256) if kind == "iops" else (8, 16, 96)
    return max(low, min(high, per_member * members))


@dataclass(frozen=True)
class RigCaps:
    """Every cap of the guest at one scale: each member, each path, the single volume, the instance."""

    member: Throttle
    member_path: Throttle | None
    single: Throttle | None
    single_path: Throttle | None
    instance: Throttle | None


@dataclass(frozen=True)
class Rig:
    """The guest's disks for a subject: the members, the single volume when measured, and their caps at a scale."""

    subject: Subject
    work: Path
    paths: int | None
    single: Prediction | None  # the single volume, when it is measured

    def caps(self, factor: float) -> RigCaps:
        s, scale = self.subject, Scale.one(factor)
        return RigCaps(
            member=member_throttle(s.stripe, scale, "vol_member"),
            member_path=path_throttle(s.stripe, scale, "path_member") if self.paths else None,
            single=member_throttle(self.single, scale, "vol_single") if self.single else None,
            single_path=path_throttle(self.single, scale, "path_single") if self.single and self.paths else None,
            instance=instance_throttle(s.stripe, scale))

    def disks(self, caps: RigCaps) -> list[Disk]:
        size = disk_files.disk_bytes(self.subject.layout.volume.size_gb)
        disks = [Disk(serial=f"m{i}", path=self.work / f"m{i}.raw", size_bytes=size,
                      throttle=caps.member.renamed(f"vol_m{i}"), paths=self.paths or 1,
                      path_throttle=caps.member_path.renamed(f"path_m{i}") if caps.member_path else None)
                 for i in range(1, self.subject.layout.members + 1)]
        if self.single is not None and caps.single is not None:
            disks.append(Disk(serial="single", path=self.work / "single.raw",
                              size_bytes=disk_files.disk_bytes(self.single.layout_detail.volume.size_gb),
                              throttle=caps.single, paths=self.paths or 1, path_throttle=caps.single_path))
        return disks

    def groups(self, factor: float) -> list[Throttle]:
        """Every throttle group qemu makes for these disks at FACTOR (what `lab-caps` sets over QMP)."""
        caps = self.caps(factor)
        out = [caps.instance] if caps.instance is not None else []
        for d in self.disks(caps):
            out += [t for t in (d.throttle, *d.path_groups()) if t is not None]
        return out


@dataclass(frozen=True)
class Measurement:
    """One fio window in the guest: a device (the stripe or the single volume), a kind, its I/O size and depth."""

    name: str  # stripe-iops, single-mbps, …: its job file, rate file and stop file
    device: str  # the guest script's variable holding the device
    kind: Kind
    io_size: int
    iodepth: int
    pred: Prediction
    paths: int | None

    @property
    def rate_at_one(self) -> float:
        """The rate compared with (the model's binding emulated limit, IOPS or MB/s) at scale 1."""
        return emulated_limit(self.pred, self.kind, self.paths)[1]

    def ios_per_s(self, scale: float) -> float:
        rate = self.rate_at_one * scale
        return rate if self.kind == "iops" else rate * MB / self.io_size


def measurements(rig: Rig) -> list[Measurement]:
    """The single volume's (when measured) and the stripe's windows, IOPS at the small and MB/s at the large size."""
    s = rig.subject
    small, large = s.stripe.workload.small_io, s.stripe.workload.large_io
    queues = rig.paths or 1  # every path needs its own queue of throttled I/Os
    sides = ([("single", "SINGLE", rig.single, 1)] if rig.single is not None else []) + \
        [("stripe", "STRIPE", s.stripe, s.layout.members)]
    kinds: tuple[Kind, ...] = ("iops", "mbps")
    return [Measurement(f"{label}-{kind}", var, kind, small if kind == "iops" else large,
                        iodepth_for(members * queues, kind), pred, rig.paths)
            for label, var, pred, members in sides for kind in kinds]


@dataclass
class Fit:
    """The host's answer to the guest's `lab-caps fit`: the scale, fitted to the emulator's speed in this guest.

    The emulator's own speed is measured uncapped just before (``rate-ref-NAME.txt``); the auto scale is the budgets'
    scale lowered until every predicted rate is at most 1 / EMULATOR_HEADROOM of it, so a shared host's load does
    not leave TCG, instead of the caps, holding the figures. An explicit --scale is kept. The caps are applied at the
    fitted scale and the guest is told each measurement's sub-windows (``windows.env``).
    """

    rig: Rig
    jobs: list[Measurement]
    caps: CapControl
    runtime_s: int
    scale: float  # the budgets' scale, until fitted
    explicit: bool
    say: Progress
    references: dict[str, Rate] = field(default_factory=dict)

    def __call__(self) -> None:
        work = self.rig.work
        self.references = {m.name: window_rate(work / f"rate-ref-{m.name}.txt", m.kind) for m in self.jobs}
        if not self.explicit:
            allowed = []
            for m in self.jobs:
                ref = self.references[m.name].value
                if ref <= 0:
                    raise ValueError(f"{m.name}: the emulator did no I/O with the caps lifted")
                allowed.append(ref / (EMULATOR_HEADROOM * m.rate_at_one))
            self.scale = round_down(min([self.scale, *allowed]))
        self.caps.groups = self.rig.groups(self.scale)
        self.caps.apply()
        plans = {m.name: window_plan(self.runtime_s, m.ios_per_s(self.scale)) for m in self.jobs}
        how = ("as given" if self.explicit else
               f"every predicted rate at most 1/{EMULATOR_HEADROOM:g} of the emulator's own in this guest")
        lines = " ".join(f'[{n}]="{p.guest_args()}"' for n, p in plans.items())
        tmp = work / ".windows.env"
        tmp.write_text(f'declare -A WIN=({lines})\nFIT="scale {self.scale:g}: {how}"\n')
        os.replace(tmp, work / "windows.env")
        self.say(f"scale {self.scale:g}: {how}")


def script_for(req: LabRequest, rig: Rig, jobs: list[Measurement], caps: CapControl) -> str:
    """The fio job files, the build scripts and the guest script, written into the work dir."""
    s, work = rig.subject, rig.work
    for m in jobs:
        (work / f"fio-{m.name}.job").write_text(render_lab_job(LabJob(
            name=m.name, io_size=m.io_size, iodepth=m.iodepth, runtime_s=FIO_RUNTIME_S,
            rw=fio_rw(s.direction, m.kind == "iops"))))
    members = s.layout.members
    member_serials = [f"m{i}" for i in range(1, members + 1)]
    members_dev = [f"/dev/mapper/{MAP_PREFIX}{serial}" for serial in member_serials] if rig.paths else \
        guest_device_names(members)
    exe = builder()
    if exe:
        given = req.target.plan
        plan = (given.model_dump_json(indent=2) if given is not None and req.redundancy is None and not req.stripe_size
                else plan_for(s).model_dump_json(indent=2))
        write_build_scripts(exe, work, plan, req.manager, req.fs, members_dev, cat=s.cat)
    return render(
        "lab.sh.j2", use_build=exe is not None, rerun_check=exe is not None and req.rerun_check,
        expected_devices=members_dev, mount=GUEST_MOUNT, work=str(work), members=members,
        member_serials=member_serials, single_serial="single" if rig.single is not None else None,
        manager=req.manager, fs=req.fs, paths=rig.paths, map_prefix=MAP_PREFIX, writes=s.direction == "write",
        md_level="raid10" if s.layout.redundancy == "raid10" else "raid0", stripe_kib=s.stripe_size // KIB,
        check_mib=CHECK_MIB, ramp_s=RAMP_S, reference_ramp_s=REFERENCE_RAMP_S, caps=str(caps.guest_command),
        measurements=[(m.name, m.device) for m in jobs], reference=REFERENCE_PLAN.guest_args())


def stripe_iodepth(jobs: list[Measurement]) -> int:
    return next(m.iodepth for m in jobs if m.name == "stripe-iops")


IDLE_S = 600.0  # a guest whose work dir saw no change for this long hangs (a busy host is slow, not silent)


def guest_timeout(rig: Rig, jobs: list[Measurement], runtime_s: int) -> float:
    """A safety net over the whole guest run, three times a slow host's need (boot, build, references, windows):
    a hung guest is caught sooner by IDLE_S; a busy host took 640 s for a 4-member RAID10 at load 14."""
    per_reference = 30 + REFERENCE_RAMP_S + REFERENCE_PLAN.budget_s
    per_window = 30 + RAMP_S + 2 * max(BUDGET_FACTOR * runtime_s, 60)
    return 3 * (90 + 120 + 5 * rig.subject.layout.members + (90 if rig.paths else 0)
                + len(jobs) * (per_reference + per_window))


def read_figures(run: GuestRun, rig: Rig, fit: Fit) -> tuple[LabFigures, LabFigures | None]:
    """The stripe's figures and the single volume's, from the guest's windows at the fitted scale."""
    caps = rig.caps(fit.scale)

    def side(label: str, pred: Prediction, member: Throttle, path: Throttle | None) -> LabFigures:
        small, large = (window_rate(rig.work / f"rate-{label}-{k}.txt", k) for k in ("iops", "mbps"))
        refs = (fit.references[f"{label}-iops"], fit.references[f"{label}-mbps"])
        return figures(pred, fit.scale, small, large, member, caps.instance, rig.paths, path, refs)

    stripe = run.read("the fio results", lambda: side("stripe", rig.subject.stripe, caps.member, caps.member_path))
    single = None
    if rig.single is not None and caps.single is not None:
        single_cap = caps.single
        single_pred = rig.single
        single = run.read("the fio results", lambda: side("single", single_pred, single_cap, caps.single_path))
    return stripe, single


def budget_scale(subject: Subject, single: Prediction | None, paths: int | None) -> float:
    """The scale the budgets allow (the guest lowers it to the emulator's own speed): every predicted total within
    them, counted as the guest's disks do the work (a mirrored write is two of their I/Os)."""
    preds = [subject.stripe] + ([single] if single else [])
    return choose_scale([p.max_iops * p.write_amplification for p in preds],
                        [p.max_mbps * p.write_amplification for p in preds],
                        iops_budget=PATHS_IOPS_BUDGET if paths else IOPS_BUDGET)


def run_lab(req: LabRequest, progress: Progress | None = None) -> LabResult:
    """Run the lab for REQ; raises InputError / EnvironmentProblem / LabFailed, never leaves anything behind."""
    say = progress or (lambda _msg: None)
    subject = resolve(req)
    paths = emulated_paths(subject)
    measured_single = subject.single if subject.single is not None and req.single else None
    scale = req.scale or budget_scale(subject, measured_single, paths)
    say(f"scale {scale:g} within the budgets (every IOPS and MB/s cap is multiplied by it); the guest fits it to "
        "the emulator's own speed")
    kernel = ensure_kernel(say)
    with work_dir(req.keep) as work:
        rig = Rig(subject=subject, work=work, paths=paths, single=measured_single)
        jobs = measurements(rig)
        caps = CapControl(work, rig.groups(scale))
        fit = Fit(rig=rig, jobs=jobs, caps=caps, runtime_s=req.runtime_s, scale=scale, explicit=req.scale is not None,
                  say=say)
        caps.handlers["fit"] = fit
        script = script_for(req, rig, jobs, caps)
        boot_caps = rig.caps(scale)
        disk_files.create(rig.disks(boot_caps))
        say(f"booting the guest: {subject.layout.members} member disk(s)"
            f"{' + single volume' if measured_single else ''}" + (f", {paths} path(s) each" if paths else ""))
        run = run_guest(kernel, work, script, rig.disks(boot_caps), boot_caps.instance,
                        guest_timeout(rig, jobs, req.runtime_s), say, caps=caps, pollers=[WindowWatch(work).poll],
                        idle_s=IDLE_S)
        stripe, single = read_figures(run, rig, fit)
        return LabResult(
            **stripe.model_dump(), scale=fit.scale, cloud=subject.cloud, instance=subject.instance.spec,
            vcpus=subject.instance.vcpus, ocpus=subject.instance.ocpus,
            manager=req.manager, fs=req.fs, small_io=subject.stripe.workload.small_io,
            large_io=subject.stripe.workload.large_io, iodepth=stripe_iodepth(jobs), runtime_s=req.runtime_s,
            direction=subject.direction, redundancy=subject.layout.redundancy, single=single, steps=run.steps,
            kernel=kernel.version, guest_seconds=run.seconds, console_log=run.console_log(req.keep))
