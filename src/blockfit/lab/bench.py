"""``run_lab_bench(request) -> LabBenchResult``: a real database decides between two layouts in the lab guest.

Both layouts exist at once in one guest, each on its own capped disks and mount point, so the bench can
interleave its runs (A B, B A, …): the single volume against the stripe (same total size), or the stripe under
LVM against the same stripe under mdadm, or on XFS against ext4. Each is built by the generated build
scripts. All of them share one instance cap: the question is "which layout on this instance".

The bench is ``blockfit bench`` itself, run in the guest from this installation (the guest sees the host
root). It loads with the caps lifted (loading under the measuring caps is ten times slower) and its
``--before-measure`` hook asks the host to apply them (``lab.caps``).

Two scale factors, not one: IOPS caps are scaled far down (the guest's CPU under TCG runs PostgreSQL at
about 900 select-only TPS with the host to itself, much less on a shared host, and OLTP must stay I/O-bound
to say anything about the layouts), MB/s caps less (a DSS scan at the IOPS factor's MB/s would take minutes).
Each keeps the ratio between the layouts that the model predicts for its own rate; the bench's evidence says
whether each run was I/O-bound. The guest cannot see qemu's throttles, so the bench is told each member's caps
and the instance's: on E3.Flex:12 the stripe's DSS writes are held by the instance's MB/s (1,440 < 4 x 480
MB/s, the model's ratio 3, not 4), which its evidence names only when it knows that cap.

The striped sides get a stripe unit scaled with the data (``bench_stripe``), not the plan's 4 MiB: the bench's
database is about a thousandth of a real one, and its 54 MB pgbench_accounts_pkey over 4 MiB units (13.5 of them)
left the least busy of 4 members at 0.65-0.88 of the busiest one's I/Os. ``--stripe-size`` overrides it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from blockfit.dbbench.profiles import PROFILES
from blockfit.dbbench.runner import parse_workloads
from blockfit.errors import EnvironmentProblem, InputError, ValueProblem
from blockfit.lab import disks as disk_files
from blockfit.lab.buildscripts import builder, guest_device_names, plan_for, write_build_scripts
from blockfit.lab.caps import CapControl
from blockfit.lab.disks import Disk, Throttle
from blockfit.lab.figures import emulated_limit
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.run import DEFAULT_STRIPE, IDLE_S, LabRequest, Subject, resolve
from blockfit.lab.scale import Scale, choose_scale, instance_throttle, member_throttle
from blockfit.lab.session import GuestRun, render, run_guest, work_dir
from blockfit.schema import Prediction
from blockfit.schema.bench import BenchResult, MeasureResult
from blockfit.schema.lab import LabBenchLayout, LabBenchRatio, LabBenchResult, LabCaps
from blockfit.units import KIB, MB

Progress = Callable[[str], None]
VERSUS = ("single", "lvm", "mdadm", "xfs", "ext4")
# Totals the bench's faster layout may reach. PostgreSQL under TCG is CPU-bound near 900 select-only TPS
# (≈1.8 reads each) with the host to itself; at 400 IOPS on a host at load 15-20 the stripe's select-only runs
# showed the guest's CPU 70-87 % busy (2026-11-23), so the IOPS budget is half that.
BENCH_IOPS_BUDGET = 200.0
BENCH_MBPS_BUDGET = 24.0
# Which predicted rate a measure leans on: OLTP on small random I/O, DSS scans and bulk loads on bandwidth.
BASIS: dict[str, Literal["iops", "mbps"]] = {"oltp-select": "iops", "oltp-tpcb": "iops", "dss": "mbps",
                                             "load": "mbps"}
TIMEOUT_S = {"quick": 90 * 60, "standard": 8 * 3600}  # a safety net: a shared host runs TCG far slower


@dataclass
class LabBenchRequest:
    lab: LabRequest
    workloads: str = "oltp,dss,load"
    versus: str = "single"
    profile: str = "quick"
    repeat: int | None = None


@dataclass
class Side:
    """One compared layout: how it is built and what the model predicts for it."""

    label: str
    manager: str  # lvm | mdadm | none
    fs: str
    pred: Prediction
    size_gb: float
    members: int
    names: tuple[str, ...]  # --vg/--lv/--md-name for its build scripts

    @property
    def mount(self) -> str:
        return f"/mnt/blockfit-{self.label}"

    @property
    def iops(self) -> float:
        """The model's IOPS over the limits the lab emulates (rate caps; not iSCSI session depth)."""
        return emulated_limit(self.pred, "iops")[1]

    @property
    def mbps(self) -> float:
        return emulated_limit(self.pred, "mbps")[1]

    @property
    def what(self) -> str:
        how = "a single volume" if self.members == 1 else f"{self.members}-way {self.manager} stripe"
        return f"{self.pred.layout}, {how}, {self.fs}"


def sides(req: LabBenchRequest, subject: Subject) -> tuple[Side, Side]:
    """The baseline and the other layout for --bench-vs."""
    from blockfit.model import predict

    lab = req.lab
    layout = subject.layout

    def stripe(label: str, manager: str, fs: str) -> Side:
        lay = layout.model_copy(update={"manager": manager})
        pred = predict(lay, subject.instance, subject.stripe.workload, subject.cat)
        return Side(label, manager, fs, pred, layout.volume.size_gb, layout.members,
                    ("--vg", f"vg_{label}", "--lv", "lv", "--md-name", label))

    if req.versus == "single":
        if subject.single is None:
            raise ValueProblem(f"single: {subject.cloud} has no single volume of {layout.total_gb:g} GB")
        single = Side("single", "none", lab.fs, subject.single, layout.total_gb, 1, ())
        return single, stripe("stripe", lab.manager, lab.fs)
    if req.versus in ("lvm", "mdadm"):
        return stripe(lab.manager, lab.manager, lab.fs), stripe(req.versus, req.versus, lab.fs)
    return stripe(lab.fs, lab.manager, lab.fs), stripe(req.versus, lab.manager, req.versus)


def validate(req: LabBenchRequest) -> None:
    """Everything the user typed, before anything is created."""
    for check in checks(req).values():
        check()


def checks(req: LabBenchRequest) -> dict[str, Callable[[], object]]:
    """Each check of the bench's options by the field it is about ('versus': the layout compared, with the lab's
    manager and filesystem it must differ from); the command line names the option that carried it."""
    return {"workloads": lambda: parse_workloads(req.workloads, "--bench"),  # names the option and the workload
            "profile": lambda: _check_profile(req.profile), "repeat": lambda: _check_repeat(req.repeat),
            "versus": lambda: _check_versus(req), "redundancy": lambda: _check_striped(req.lab.redundancy),
            "layout": lambda: _check_layout(req)}


def _check_profile(profile: str) -> None:
    if profile not in PROFILES:
        raise ValueProblem(f"{profile!r}: expected one of {', '.join(PROFILES)}")


def _check_repeat(repeat: int | None) -> None:
    if repeat is not None and repeat < 1:
        raise ValueProblem(f"{repeat}: expected a whole number of at least 1")


def _check_versus(req: LabBenchRequest) -> None:
    if req.versus not in VERSUS:
        raise ValueProblem(f"{req.versus!r}: expected one of {', '.join(VERSUS)}")
    t = req.lab.target
    if req.versus == "single" and t.layout.members > 1 and not _single_exists(req):
        raise ValueProblem(f"single: {t.cloud} has no single volume of {t.layout.total_gb:g} GB")
    if req.versus == req.lab.manager:
        raise ValueProblem(f"{req.versus}: the same as --manager; expected the other manager")
    if req.versus == req.lab.fs:
        raise ValueProblem(f"{req.versus}: the same as --fs; expected the other filesystem")


def _single_exists(req: LabBenchRequest) -> bool:
    """Whether one volume as large as the whole stripe exists (what `resolve` predicts as the single side)."""
    from blockfit.model import predict

    t = req.lab.target
    one = t.layout.model_copy(update={"members": 1, "redundancy": "none",
                                      "volume": t.layout.volume.model_copy(update={"size_gb": t.layout.total_gb})})
    try:
        predict(one, t.instance, t.workload, t.cat)
    except InputError:
        return False
    return True


def _check_striped(redundancy: str | None) -> None:
    if redundancy not in (None, "none"):
        raise ValueProblem(f"{redundancy}: the lab bench compares striped layouts; measure a RAID10's writes "
                           "without --bench")


def _check_layout(req: LabBenchRequest) -> None:
    """The target's layout (a plan's, or --layout): a stripe of at least 2 volumes, not mirrored."""
    layout = req.lab.target.layout
    if layout.members < 2:
        raise ValueProblem(f"{layout.members} member: lab --bench compares a stripe with an alternative; "
                           "expected a layout of at least 2 volumes")
    if layout.redundancy != "none" and req.lab.redundancy is None:
        raise ValueProblem(f"{layout.members} members mirrored ({layout.redundancy}): the lab bench compares "
                           "striped layouts; measure a RAID10's writes without --bench")


def run_lab_bench(req: LabBenchRequest, progress: Progress | None = None) -> LabBenchResult:
    """Run the lab bench for REQ; raises InputError / EnvironmentProblem / LabFailed, never leaves anything behind."""
    say = progress or (lambda _msg: None)
    validate(req)
    subject = resolve(req.lab)
    base, other = sides(req, subject)
    exe = builder()
    if exe is None:
        raise EnvironmentProblem("lab --bench: this installation has no 'blockfit build' (blockfit.emit)")
    scale = bench_scale(req, (base, other))
    say(f"scale {scale.iops:g} for IOPS caps, {scale.mbps:g} for MB/s caps")
    # the other side is always striped (vs single: the stripe; vs a manager or filesystem: both are)
    subject = dataclasses.replace(subject, stripe_size=req.lab.stripe_size or bench_stripe(_member_cap(other, scale)))
    say(f"stripe unit {subject.stripe_size // KIB} KiB")
    kernel = ensure_kernel(say)
    with work_dir(req.lab.keep) as work:
        instance = instance_throttle(subject.stripe, scale)
        disks, layouts = _rig(work, subject, (base, other), scale, exe)
        disk_files.create(disks)
        caps = CapControl(work, ([instance] if instance is not None else []) + [d.throttle for d in disks
                                                                                 if d.throttle is not None])
        script = render("labbench.sh.j2", work=str(work), layouts=layouts, caps=str(caps.guest_command), blockfit=exe,
                        workloads=req.workloads, profile=req.profile, repeat=req.repeat,
                        instance_cap=f"{instance.iops or 0}:{(instance.bps or 0) / MB:g}" if instance else None)
        say(f"booting the guest: {base.label} ({base.members} disk(s)) and {other.label} ({other.members} disk(s))")
        run = run_guest(kernel, work, script, disks, instance, TIMEOUT_S[req.profile], say, caps=caps,
                        idle_s=IDLE_S)
        bench = run.read("the bench's result",
                         lambda: BenchResult.model_validate_json((work / "bench" / "bench.json").read_text()))
        return _result(req, subject, (base, other), scale, instance, bench, caps, run, kernel.version)


def bench_scale(req: LabBenchRequest, pair: tuple[Side, Side]) -> Scale:
    """--scale for both kinds of cap, or each the largest that keeps the faster side within the bench's budgets."""
    return Scale(
        iops=req.lab.scale or choose_scale([s.iops for s in pair], [], BENCH_IOPS_BUDGET, BENCH_MBPS_BUDGET),
        mbps=req.lab.scale or choose_scale([], [s.mbps for s in pair], BENCH_IOPS_BUDGET, BENCH_MBPS_BUDGET))


def bench_stripe(member: Throttle) -> int:
    """The stripe unit for the bench's scaled data: the smallest power of two from 64 KiB (to 4 MiB) at which one
    member I/O of a whole unit is held by the member's MB/s cap, not its IOPS cap.

    Why not the plan's 4 MiB: the bench's tables are ~1000x smaller than a real database's, so a 4 MiB unit cuts
    its hot 54 MB index into 13.5 chunks, unevenly over the members. Why not smaller than this: the bench scales
    IOPS caps 8x further down than MB/s caps (4x1000G@balanced: 50 IOPS and 7.68 MB/s a member, one I/O of up to
    150 KiB costs an IOPS slot before it costs bandwidth), so a unit below that would split DSS's large I/Os into
    pieces the IOPS cap holds, a limit the real volume (25,000 IOPS, 480 MB/s: 19 KiB) does not have.
    """
    unit = 64 * KIB
    while member.iops and member.bps and unit < member.bps / member.iops and unit < DEFAULT_STRIPE:
        unit *= 2
    return unit


def _member_cap(side: Side, scale: Scale) -> Throttle:
    return member_throttle(side.pred, scale, f"vol_{side.label}")


def _rig(work: Path, subject: Subject, pair: tuple[Side, Side], scale: Scale,
         exe: str) -> tuple[list[Disk], list[dict[str, object]]]:
    """Each side's capped disks and build scripts; what the guest script needs to know of each side."""
    disks: list[Disk] = []
    layouts: list[dict[str, object]] = []
    names = guest_device_names(sum(side.members for side in pair))
    for side in pair:
        cap = _member_cap(side, scale)
        serials = [f"{side.label}{i + 1}" for i in range(side.members)]
        disks += [Disk(serial=s, path=work / f"{s}.raw", size_bytes=disk_files.disk_bytes(side.size_gb),
                       throttle=cap.renamed(f"vol_{s}"))
                  for s in serials]
        devices, names = names[:side.members], names[side.members:]
        if side.members == 1:
            lay = subject.layout.model_copy(update={
                "members": 1, "manager": "lvm", "volume": subject.layout.volume.model_copy(update={
                    "size_gb": side.size_gb})})
            plan = plan_for(subject, lay, side.pred)
        else:
            plan = plan_for(subject, subject.layout.model_copy(update={"manager": side.manager}), side.pred)
        write_build_scripts(exe, work, plan.model_dump_json(indent=2), side.manager, side.fs, devices,
                            mount=side.mount, name=f"build-{side.label}", names=side.names, cat=subject.cat)
        layouts.append({"label": side.label, "serials": serials, "devices": devices, "mount": side.mount,
                        "what": side.what, "cap": f"{cap.iops}:{(cap.bps or 0) / MB:g}"})
    return disks, layouts


def _result(req: LabBenchRequest, subject: Subject, pair: tuple[Side, Side], scale: Scale,
            instance: Throttle | None, bench: BenchResult, caps: CapControl, run: GuestRun,
            kernel: str) -> LabBenchResult:
    base, other = pair
    return LabBenchResult(
        scale=scale.iops, mbps_scale=scale.mbps, cloud=subject.cloud, instance=subject.instance.spec,
        vcpus=subject.instance.vcpus, ocpus=subject.instance.ocpus, versus=req.versus,
        baseline=_layout_info(base, scale, instance, bench, subject.stripe_size),
        other=_layout_info(other, scale, instance, bench, subject.stripe_size),
        ratios=ratios(base, other, bench), bench=bench, cap_changes=caps.log, steps=run.steps, kernel=kernel,
        guest_seconds=run.seconds, console_log=run.console_log(req.lab.keep))


def _layout_info(side: Side, scale: Scale, instance: Throttle | None, bench: BenchResult,
                 stripe_size: int) -> LabBenchLayout:
    cap = _member_cap(side, scale)
    return LabBenchLayout(
        label=side.label, layout=side.pred.layout, members=side.members, manager=side.manager, fs=side.fs,
        mount=side.mount, predicted_iops=side.iops * scale.iops,
        predicted_mbps=side.mbps * scale.mbps,
        caps=LabCaps(member_iops=cap.iops, member_bps=cap.bps, member_iops_size=cap.iops_size,
                     instance_iops=instance.iops if instance else None,
                     instance_bps=instance.bps if instance else None),
        stripe_size=stripe_size if side.members > 1 else None,
        member_balance=member_balance(bench, side.label) if side.members > 1 else {})


def member_balance(bench: BenchResult, label: str) -> dict[str, float]:
    """Per measure: the least over the most busy member, by the I/Os each completed over the measure's runs.

    Counts, not rates: a member at its cap and one idling beside it complete the same share of a uniform random
    workload, and per-second medians of ~50 IOPS over 12 s runs moved by ±20 % from run to run. Per measure, not
    pooled: select-only and TPC-B differ tenfold in IOPS."""
    out: dict[str, float] = {}
    for lay in bench.layouts:
        if lay.label != label:
            continue
        for mr in lay.measures:
            total: dict[str, int] = {}
            for run in mr.runs:
                for d in run.evidence.devices if run.evidence else []:
                    if d.role == "member" and d.ios is not None:
                        total[d.device] = total.get(d.device, 0) + d.ios
            if len(total) >= 2 and max(total.values()) > 0:
                out[mr.measure] = round(min(total.values()) / max(total.values()), 3)
    return out


def _measure(bench: BenchResult, label: str, measure: str) -> MeasureResult | None:
    for lay in bench.layouts:
        if lay.label == label:
            return next((m for m in lay.measures if m.measure == measure), None)
    return None


def ratios(base: Side, other: Side, bench: BenchResult) -> list[LabBenchRatio]:
    """Per measure: the model's other/baseline ratio beside the bench's measured speed ratio."""
    out = []
    for c in bench.comparisons:
        basis = BASIS.get(c.measure, "iops")
        b, o = (base.iops, other.iops) if basis == "iops" else (base.mbps, other.mbps)
        runs = [r for label in (base.label, other.label) if (m := _measure(bench, label, c.measure))
                for r in m.runs if not r.failed]
        bound = sum(1 for r in runs if r.evidence is not None and r.evidence.io_bound)
        out.append(LabBenchRatio(measure=c.measure, basis=basis, predicted_ratio=o / b if b else 0.0,
                                 measured_ratio=c.ratio, device_ratio=c.device_ratio,
                                 baseline_cap_use=c.baseline_cap_use, other_cap_use=c.other_cap_use, ci_low=c.ci_low,
                                 ci_high=c.ci_high, verdict=c.verdict,
                                 text=c.text, io_bound_runs=f"{bound}/{len(runs)}"))
    return out
