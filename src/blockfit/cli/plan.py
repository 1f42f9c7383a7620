"""`blockfit plan`: the cheapest layout that meets capacity, IOPS, MB/s and latency targets.

Every option is parsed here, once, into a Requirements (and a ShapeQuery for a search) before the planner runs.
`--from prometheus+…` (a fleet) still works for now: it says so on stderr and runs `blockfit fleet`'s code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blockfit.catalog import Catalog
from blockfit.cli import app, params
from blockfit.cli.common import (
    ATTACHMENT_HELP,
    CAPACITY_HELP,
    CATALOG_HELP,
    CLOUD_HELP,
    CPUS_HELP,
    PLAN_MEMORY_HELP,
    QUEUE_DEPTH_HELP,
    READ_PCT_HELP,
    REDUNDANCY_HELP,
    capacity_growth,
    catalog_for,
    check_attachment_options,
    comma_list,
    cpu_floor_or_range,
    memory_gb,
    ocpu_range,
    positive_int,
    positive_target,
    supplied_by,
)
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.cli.shared import Shared
from blockfit.documents import check_result_text
from blockfit.errors import InputError
from blockfit.files import check_distinct, check_target, write_atomically
from blockfit.fleet.promapi import is_prometheus, redact
from blockfit.history.readers import history_format
from blockfit.history.targets import choose_members, read_histories, targets_from_series
from blockfit.model.instance import find_shape, machine_type
from blockfit.model.kinds.clouds import cloud_of
from blockfit.plan import make_plan
from blockfit.plan.shapes import ANY, ShapeQuery, is_search, plan_shapes
from blockfit.schema import DerivedTargets, Instance, Layout, Plan, Requirements
from blockfit.specs import INSTANCE_OPTION_HELP, LAYOUT_HELP, parse_instance, split_instance, with_instance_options
from blockfit.units import parse_io_size, parse_volume_gb
from blockfit.views.plan import render_infeasible, render_plan

if TYPE_CHECKING:
    from blockfit.plan.move import Found

EXAMPLES: dict[str, dict[str, str]] = {
    "part3": dict(cloud="oci", capacity="4.5T", target_iops="150000", small_io="8k",
                  instance="VM.Standard.E3.Flex:12"),
}


@app.command("plan")
def plan_command(
    cloud: Annotated[str | None, typer.Option(help=CLOUD_HELP)] = None,
    capacity: Annotated[str | None, typer.Option(help=CAPACITY_HELP, callback=params.capacity)] = None,
    target_iops: Annotated[float | None, typer.Option(help="IOPS needed at the small I/O size",
                                                            **params.NUMBER, callback=params.positive)] = None,
    target_mbps: Annotated[float | None, typer.Option(help="MB/s (10^6 B/s) needed at the large I/O size, e.g. 1500 "
                                                                 "or 1.5G (GB/s)",
                                                            **params.NUMBER, callback=params.mbps)] = None,
    max_latency: Annotated[str | None, typer.Option(help="mean latency bound at the target IOPS, e.g. 2ms",
                                                           callback=params.latency)] = None,
    io_sizes: Annotated[str | None, typer.Option(help=params.IO_SIZES_HELP, callback=params.io_sizes)] = None,
    instance: Annotated[str | None, typer.Option(
        help="SHAPE[:OCPUS] (leave OCPUS off to find the smallest), a FAMILY (r7i, Ebdsv5: search its sizes) or "
             f"'any' (every current family; also when left out); {INSTANCE_OPTION_HELP}")] = None,
    family: Annotated[str | None, typer.Option(help="with a search: only these families, comma list, e.g. r7i,r6i",
                                               callback=params.comma_list)] = None,
    memory: Annotated[str | None, typer.Option(help=PLAN_MEMORY_HELP, callback=params.volume_size)] = None,
    cpus: Annotated[str | None, typer.Option(help=CPUS_HELP, callback=params.cpus)] = None,
    levels: Annotated[str | None, typer.Option(help="comma list of levels/types to consider, e.g. balanced,higher",
                                                           callback=params.comma_list)]
    = None,
    allow_hdd: Annotated[bool, typer.Option("--allow-hdd", help="also consider HDD types (st1, sc1); left out "
                                            "by default: AWS counts every random I/O as 1 MiB of their throughput")]
    = False,
    max_volumes: Annotated[int | None, typer.Option(help="at most this many volumes (default: attach limit)",
                                                           **params.NUMBER, callback=params.count)] = None,
    manager: Annotated[str | None, typer.Option(
        help="volume manager: lvm, mdadm or asm (sets the stripe advice); default lvm, or what --redundancy needs")]
    = None,
    redundancy: Annotated[str, typer.Option(help=REDUNDANCY_HELP)] = "none",
    attach: Annotated[str | None, typer.Option("--attachment", help=ATTACHMENT_HELP)] = None,
    paths: Annotated[int | None, typer.Option(
        help="paths per volume the host can use; default: plan says how many each layout needs",
        **params.NUMBER, callback=params.count)] = None,
    queue_depth: Annotated[int | None, typer.Option(help=QUEUE_DEPTH_HELP, **params.NUMBER,
                                                    callback=params.count)] = None,
    read_pct: Annotated[float | None, typer.Option(help=READ_PCT_HELP, **params.PERCENT,
                                                   callback=params.percent)] = None,
    outstanding: Annotated[int | None, typer.Option(
        help="total outstanding I/Os the workload keeps in flight: the target IOPS must be reached "
                          "with that many (with --from: default the history's own, iostat aqu-sz and the like)",
        **params.NUMBER, callback=params.count)] = None,
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    example: Annotated[str | None, typer.Option(help="built-in example: part3 (the PROMATIS E-Business Suite case)")]
    = None,
    from_files: Annotated[list[str] | None, typer.Option(
        "--from", help="derive the targets from workload history (repeat for RAC instances or several volumes): "
                       "iostat -t -x -o JSON, sadf -j, a diagnose capture, a CSV (timestamp, read IOPS, write IOPS, "
                       "read MB/s, write MB/s), an AWR or Statspack report (text or HTML), the spool of "
                       "'blockfit sql oracle|statspack|sqlserver', a CloudWatch, OCI Monitoring or Azure Monitor "
                       "export, or a 'blockfit record' recording (a fleet's Prometheus: 'blockfit fleet'); the "
                       "plan needs the target IOPS at the I/Os in flight the history kept (iostat aqu-sz and the "
                       "like) unless --outstanding N names the workload's own")] = None,
    from_format: Annotated[str | None, typer.Option(
        "--from-format", help="with --from: the format every --from file must be (refused if it is not); "
                              "default: detected from the content")] = None,
    devices: Annotated[str | None, typer.Option(help="with --from: comma list of the devices (or volumes, files) "
                                                     "to sum per interval",
                                                callback=params.comma_list)]
    = None,
    percentile: Annotated[float | None, typer.Option(
        help="with --from: the intervals' percentile to plan for: peak (100), p99.9, p99, p95 (default), median, "
             "or a number", parser=str, metavar="PERCENTILE", callback=params.history_percentile)] = None,
    headroom: Annotated[float | None, typer.Option(help="with --from: added on top of the percentile, e.g. 30% "
                                                        "(default 0%)", **params.PERCENT,
                                                   callback=params.growth_pct)] = None,
    peak_factor: Annotated[float | None, typer.Option(
        help="with --from: multiply the percentile by this (the busiest minute over an interval's average); "
             "default 1, and the source's own finer maxima where it has them",
        **params.NUMBER, callback=params.peak_factor)] = None,
    inventory: Annotated[Path | None, typer.Option(
        "--inventory", help="an inventory ('blockfit inspect --json'): plan the move of a mount point's layout, "
                            "beside its figures, with each migration's duration; the capacity, instance and cloud "
                            "default to the inventory's")] = None,
    mount: Annotated[str | None, typer.Option(
        "--mount", help="with --inventory: the mount point to plan for (default: its only mounted layout)")] = None,
    layout: Annotated[str | None, typer.Option(
        "--layout", help=f"judge this layout against the targets instead of searching: {LAYOUT_HELP}; with "
                         "--instance SHAPE:COUNT, and --stripe-size SIZE (e.g. 4m; default: plan's choice); the "
                         "capacity defaults to the layout's; exit 3 when it misses a target")] = None,
    # listed under --layout (plan --help keeps to 34 options)
    stripe_size: Annotated[str | None, typer.Option(hidden=True, help="with --layout: the stripe size, e.g. 4m",
                                                    callback=params.io_size)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the Plan as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="write the Plan (for build and lab) to this file")] = None,
    report: ReportOption = None,
    # the old spellings of merged options, still taken (hidden), each saying its new spelling once
    growth: Annotated[float | None, typer.Option(hidden=True, **params.PERCENT, callback=params.growth_pct)] = None,
    small_io: Annotated[str | None, typer.Option(hidden=True, callback=params.io_size)] = None,
    large_io: Annotated[str | None, typer.Option(hidden=True, callback=params.io_size)] = None,
    min_memory: Annotated[str | None, typer.Option(hidden=True, callback=params.volume_size)] = None,
    min_vcpus: Annotated[int | None, typer.Option(hidden=True, **params.NUMBER, callback=params.count)] = None,
    ocpus: Annotated[str | None, typer.Option(hidden=True)] = None,
    interface: Annotated[str | None, typer.Option(hidden=True)] = None,
    ebs_weighting: Annotated[str | None, typer.Option(hidden=True)] = None,
) -> None:
    """Search member count, size, level and OCPUs for the cheapest layouts that meet every target."""
    if out is not None:
        check_target(out, "--out")  # before minutes of searching, not after
    if ocpus is not None:
        ocpu_range(ocpus, "--ocpus")
    renamed = params.Renamed()
    capacity, in_capacity = (None, None) if capacity is None else capacity_growth(capacity)
    growth = renamed.pick("--capacity SIZE+GROWTH", in_capacity, "--growth", growth,
                          f"--capacity {capacity or 'SIZE'}+{growth or 0:g}%")
    small, large = renamed.io_sizes(io_sizes, small_io, large_io)
    shared = Shared(cloud=cloud, catalog=catalog, growth=growth or 0.0, max_latency=max_latency, small_io=small,
                    large_io=large, levels=levels, max_volumes=max_volumes, manager=manager,
                    redundancy=redundancy, attach=attach, paths=paths, queue_depth=queue_depth)
    workload = Workload(capacity, target_iops, target_mbps, read_pct, instance, family, outstanding,
                        renamed.pick("--memory", memory, "--min-memory", min_memory, f"--memory {min_memory}"),
                        min_memory is not None,
                        renamed.pick("--cpus", cpus, "--ocpus", ocpus, f"--cpus {ocpus}"),
                        None if min_vcpus is None else
                        renamed.pick("--cpus", cpus, "--min-vcpus", min_vcpus, f"--cpus {min_vcpus}"),
                        renamed.pick("--instance SHAPE/OPTION", None, "--interface", interface,
                                     f"--instance SHAPE/{interface}"),
                        renamed.pick("--instance SHAPE/OPTION", None, "--ebs-weighting", ebs_weighting,
                                     f"--instance SHAPE/{ebs_weighting}"))
    history = HistoryArgs(from_files or [], from_format, devices, percentile, headroom, peak_factor)
    if history.fleet_source() is not None:
        run_deprecated_fleet(history, shared, workload, json_out, out, report, renamed)
        return
    check_distinct([("--out", out), ("--report", report)], [("--from", Path(f)) for f in history.files])
    if example is not None:
        workload = _with_example_option(example, inventory, io_sizes, small_io, workload, shared)
    found = _found_option(inventory, mount, workload, shared)
    given = _given_option(layout, stripe_size, {"--inventory": inventory, "--family": family, "--levels": levels,
                                                "--max-volumes": max_volumes, "--allow-hdd": allow_hdd,
                                                "--cpus": cpus}, workload, shared)
    req, cat, query = requirements(shared, workload, history, allow_hdd)
    check_plan_options(req, cat, query)
    if found is not None:
        check_found(inventory, found, cat)
    plan = _searched(req, cat, query, found) if given is None else given.judged(req, cat, query)
    renamed.warn()   # after the search: an input error it finds is one line, alone
    finish(plan, out, report, json_out, given is not None)


def _given_option(layout: str | None, stripe_size: str | None, search_options: dict[str, object], w: Workload,
                  shared: Shared) -> GivenLayout | None:
    """--layout (and --stripe-size), parsed, or None without them."""
    if layout is None and stripe_size is None:
        return None
    given = GivenLayout(layout, stripe_size, search_options)
    given.parse(w, shared)
    return given


@dataclass
class GivenLayout:
    """plan --layout SPEC [--stripe-size SIZE]: one layout judged against the targets, no search."""

    spec: str | None
    stripe_size: str | None
    search_options: dict[str, object]   # the options of a search, refused here (None or False: not given)
    layout: Layout | None = None

    def parse(self, w: Workload, shared: Shared) -> None:
        """The layout, on the cloud's catalog; the capacity defaults to the layout's usable capacity."""
        from blockfit.specs import parse_layout

        if self.spec is None:
            raise InputError("--stripe-size: goes with --layout (the stripe of the layout given)")
        for name, value in self.search_options.items():
            if value not in (None, False):   # a flag given is True
                raise InputError(f"{name}: goes with a search, not with --layout (one layout, judged as given)")
        cat = catalog_for(shared.cloud, shared.catalog)
        with supplied_by("--layout"):
            self.layout = parse_layout(self.spec, cat.cloud, cat)   # its manager: the plan's (--manager)
        w.capacity = w.capacity or f"{self.layout.usable_gb:g}G"

    def judged(self, req: Requirements, cat: Catalog, query: ShapeQuery | None) -> Plan:
        """The plan of the layout on the one instance --instance names: its figures against the targets."""
        from blockfit.plan.given import plan_for_layout
        from blockfit.plan.space import instance_for

        if query is not None or (req.instance_count is None and find_shape(cat, req.instance_shape).kind != "fixed"):
            raise InputError(f"--instance: with --layout, expected one shape and its count, e.g. "
                             f"{cloud_of(cat.cloud).instance_example.split(' or ')[0]}")
        assert self.layout is not None
        stripe = None if self.stripe_size is None else parse_io_size(self.stripe_size, "--stripe-size")
        inst = instance_for(cat, req, req.instance_shape, req.instance_count)
        return plan_for_layout(self.layout, inst, cat, stripe, req, by="plan")


def _with_example_option(example: str, inventory: Path | None, io_sizes: str | None, small_io: str | None,
                         workload: Workload, shared: Shared) -> Workload:
    """--example NAME: its workload, and its I/O size and cloud in SHARED (an example plans a layout of its own, so
    not beside --inventory)."""
    if inventory is not None:
        raise InputError(f"--example {example}: plans a layout of its own; give it or --inventory, not both")
    io_given = "--io-sizes" if io_sizes is not None else "--small-io" if small_io is not None else None
    workload, shared.small_io, shared.cloud = with_example(example, workload, shared, io_given)
    return workload


def _found_option(inventory: Path | None, mount: str | None, workload: Workload, shared: Shared) -> Found | None:
    """--inventory [--mount]: the layout the plan moves, or None without --inventory (where --mount is refused)."""
    if inventory is not None:
        return from_inventory(inventory, mount, workload, shared)
    if mount is not None:
        raise InputError("--mount: goes with --inventory (the mount point whose layout the plan moves)")
    return None


def _searched(req: Requirements, cat: Catalog, query: ShapeQuery | None, found: Found | None) -> Plan:
    """The plan for one shape or the search over shapes; with an inventory's layout, its move onto the plan."""
    plan = make_plan(req, cat) if query is None else plan_shapes(req, cat, query)
    if found is not None:
        from blockfit.plan.move import with_move

        plan = with_move(plan, found, cat)
    return plan


# the option that carries each field plan's space checks are about
PLAN_OPTION_OF = {"levels": "--levels:", "max_volumes": "--max-volumes", "instance": "--instance", "cpus": "--cpus",
                  "memory": "--memory"}


def check_plan_options(req: Requirements, cat: Catalog, query: ShapeQuery | None) -> None:
    """The search's checks of values from options, each under its option, before the search: the levels and the
    attachment for every plan, the shape's space for one shape (a search over shapes leaves out a shape that fails
    them, and says so)."""
    from blockfit.plan.space import selected_types, space_checks
    from blockfit.schema import Layout

    if query is not None and query.min_vcpus is not None:
        with supplied_by("--min-vcpus"):
            cloud_of(cat.cloud).check_vcpu_search(query.min_vcpus)
    with supplied_by("--levels:"):
        options = selected_types(cat, req.levels, req.allow_hdd)
    if query is None:
        for fields, check in space_checks(cat, req).items():
            with supplied_by(PLAN_OPTION_OF[fields]):
                check()
    if req.attachment is not None or req.paths is not None:
        for option in {o.type: o for o in options}.values():   # as the search asks the model (plan.evaluate)
            check_attachment_options(cat, Layout(members=1, volume=option.volume(cat.cloud, 50),
                                                 attachment=req.attachment, paths=req.paths))


@dataclass
class Workload:
    """What one plan is for: capacity, targets and where it runs (or the search over where it could)."""

    capacity: str | None
    target_iops: float | None
    target_mbps: float | None
    read_pct: float | None
    instance: str | None
    family: str | None = None
    outstanding: int | None = None  # --outstanding (else, with --from, the history's I/Os in flight)
    memory: str | None = None       # --memory (or the old --min-memory): priced for one size, a floor for a search
    old_min_memory: bool = False    # given as --min-memory: a floor only, refused with one size as it was
    cpus: str | None = None         # --cpus N or MIN-MAX (or the old --ocpus MIN-MAX)
    min_vcpus: int | None = None    # the old --min-vcpus N
    interface: str | None = None    # the old --interface (now --instance SHAPE/nvme)
    ebs_weighting: str | None = None    # the old --ebs-weighting (now --instance SHAPE/ebs-1)


@dataclass
class HistoryArgs:
    """--from and the options that go with it."""

    files: list[str]
    from_format: str | None
    devices: str | None
    percentile: float | None        # parsed by its option's callback
    headroom: float | None
    peak_factor: float | None

    def fleet_source(self) -> str | None:
        """The Prometheus source of a fleet (--from prometheus+…), given alone; None for history files."""
        prometheus = [f for f in self.files if is_prometheus(f)]
        if prometheus and len(self.files) > 1:
            raise InputError(f"--from {redact(prometheus[0])}: a Prometheus source is the whole fleet; give it "
                             "alone")
        return prometheus[0] if prometheus else None

    def targets(self) -> DerivedTargets | None:
        """The targets the history files give, or None without --from (whose options are then refused)."""
        if not self.files:
            given: dict[str, object] = {"--devices": self.devices, "--percentile": self.percentile,
                                        "--headroom": self.headroom, "--peak-factor": self.peak_factor,
                                        "--from-format": self.from_format}
            for name, value in given.items():
                if value is not None:
                    raise InputError(f"{name}: goes with --from (the workload history it applies to)")
            return None
        for f in self.files:   # read as a file, its error quoted the URL whole, password and all
            if "://" in f and not Path(f).exists():
                raise InputError(f"--from {redact(f)!r}: a URL, not a history file (expected a file; a metrics "
                                 "server is read by 'blockfit fleet --from prometheus+http://HOST:PORT')")
        with supplied_by("--from-format"):
            declared = history_format(self.from_format)
        devices = comma_list(self.devices, "--devices")
        with supplied_by("--from"):
            series = read_histories([Path(f) for f in self.files], declared)
        with supplied_by("--devices"):
            choose_members(series, devices)
        with supplied_by("--from"):
            return targets_from_series(series, devices, 95.0 if self.percentile is None else self.percentile,
                                       self.headroom or 0.0, self.peak_factor)


def from_inventory(path: Path, mount: str | None, w: Workload, shared: Shared) -> Found:
    """--inventory FILE [--mount MP]: the layout found there; the capacity (the layout's, so a block copy fits),
    the instance and the cloud it gives are the plan's unless given."""
    from blockfit.documents import read_inventory
    from blockfit.plan.move import find

    inv = read_inventory(path)
    with supplied_by(f"--inventory {path}:"):
        found = find(inv, mount, need_instance=w.instance is None)
    cloud = found.layout.volume.cloud
    if shared.cloud is not None and shared.cloud.strip().lower() != cloud:
        raise InputError(f"--cloud {shared.cloud}: the inventory's layout {found.spec} is on {cloud}")
    shared.cloud = cloud
    w.capacity = w.capacity or f"{found.layout.usable_gb:g}G"
    if w.instance is None and found.instance is not None:   # find() refused a found one missing when none given
        w.instance = found.instance.spec
    if found.layout.manager == "asm" and shared.manager is None:
        shared.manager = "asm"
    return found


def check_found(path: Path | None, found: Found, cat: Catalog) -> None:
    """The inventory's layout is one the model can predict, said under --inventory before the search."""
    from blockfit.plan.move import check

    try:
        check(found, cat)
    except InputError as exc:
        raise InputError(f"--inventory {path}: {found.entry.mount_point}: {exc}") from None


def with_example(name: str, w: Workload, shared: Shared, io_given: str | None) -> tuple[Workload, str, str]:
    """--example NAME: its capacity, IOPS, instance, small I/O and cloud, none of which may be given as well."""
    if name not in EXAMPLES:
        raise InputError(f"--example {name!r}: expected one of {', '.join(EXAMPLES)}")
    ex = EXAMPLES[name]
    sets = {"--capacity": w.capacity, "--target-iops": w.target_iops, "--instance": w.instance,
            "--cloud": shared.cloud, "--io-sizes": io_given}
    for option, value in sets.items():
        if value is not None:
            shown = io_given if option == "--io-sizes" and io_given else option
            raise InputError(f"{shown}: --example {name} sets it ({', '.join(sets)}); give one or the other")
    w = Workload(**{**w.__dict__, "capacity": ex["capacity"], "target_iops": float(ex["target_iops"]),
                    "instance": ex["instance"]})
    return w, ex["small_io"], ex["cloud"]


def requirements(shared: Shared, w: Workload, history: HistoryArgs,
                 allow_hdd: bool) -> tuple[Requirements, Catalog, ShapeQuery | None]:
    """One plan's Requirements (and its shape search, if one), every option parsed."""
    if w.capacity is None:
        raise InputError("--capacity: expected the usable capacity needed, e.g. 4.5T")
    for name, value in (("--target-iops", w.target_iops), ("--target-mbps", w.target_mbps)):
        positive_target(value, name)
    derived = history.targets()
    cat = catalog_for(shared.cloud, shared.catalog)
    search = is_search(cat, None if w.instance is None else split_instance(w.instance)[0])
    compute_options(cat, w, shared, search)
    fields = shared.fields(cat.cloud)
    inst, query = instance_or_search(cat, w, fields, search)
    if derived is not None and derived.host_cpus is not None:
        history_host_floors(cat, derived, w, fields, query, inst)
    if derived is not None:
        w.target_iops = derived.target_iops if w.target_iops is None else w.target_iops
        w.target_mbps = derived.target_mbps if w.target_mbps is None else w.target_mbps
        w.read_pct = derived.read_pct if w.read_pct is None else w.read_pct
    outstanding, outstanding_from = workload_outstanding(w.outstanding, derived)
    req = Requirements(**{**fields, **dict(
        capacity_gb=parse_volume_gb(w.capacity, "--capacity"), target_iops=w.target_iops,
        target_mbps=w.target_mbps, instance_shape=inst.shape, instance_vcpus=inst.vcpus, instance_ocpus=inst.ocpus,
        allow_hdd=allow_hdd,
        interface=inst.interface, ebs_weighting=inst.ebs_weighting, history=derived,
        read_pct=100.0 if w.read_pct is None else w.read_pct, outstanding=outstanding,
        outstanding_from=outstanding_from)})
    if inst.count is not None and (req.count_min is not None or req.count_max is not None):
        raise InputError(f"--cpus {shared.ocpus}: goes with an open OCPU count (--instance {inst.shape}, not "
                         f"{w.instance})")
    return req, cat, query


def history_host_floors(cat: Catalog, derived: DerivedTargets, w: Workload, fields: dict[str, object],
                        query: ShapeQuery | None, inst: Instance) -> None:
    """The history's host bounds the compute the plan searches: at least its CPUs (as vCPUs) and its memory,
    unless --cpus or --memory says otherwise. The memory floors a search's shapes and prices an open count."""
    if w.cpus is None and w.min_vcpus is None:
        fields["vcpus_floor"] = float(derived.host_cpus or 0) or None
    if w.memory is not None or derived.host_memory_gb is None:
        return
    if query is not None:
        query.min_memory_gb = derived.host_memory_gb
    elif inst.count is None and find_shape(cat, inst.shape).kind != "fixed":
        fields["memory_gb"] = max(_float(fields.get("memory_gb")), derived.host_memory_gb)


def workload_outstanding(given: int | None, derived: DerivedTargets | None) -> tuple[int | None, str | None]:
    """--outstanding, else the I/Os in flight the history kept (at the plan's percentile, at least 1), else none."""
    if given is not None:
        return given, "option"
    if derived is not None and derived.outstanding is not None:
        return max(1, math.ceil(derived.outstanding - 1e-9)), "history"
    return None, None


def compute_options(cat: Catalog, w: Workload, shared: Shared, search: bool) -> None:
    """--cpus and --memory onto SHARED and W. --cpus N is a floor: the vCPUs of every size where compute is sold in
    vCPUs (a search's --min-vcpus), OCPUs on OCI, where a vCPU floor would need each shape's OCPU ratio (2 on x86,
    1 on Arm A1) and the plan's OCPU bounds are one pair for every shape. --memory is priced for one size and is
    the floor of a search (the flexible shapes are priced with it there too)."""
    if w.cpus is not None:
        floor, span = cpu_floor_or_range(w.cpus)
        if floor is not None and cloud_of(cat.cloud).compute_unit == "vCPU":
            w.min_vcpus = floor
        else:
            shared.ocpus = span or f"{floor}-"
    if not search and not w.old_min_memory:
        shared.memory = w.memory


def instance_or_search(cat: Catalog, w: Workload, fields: dict[str, object],
                       search: bool) -> tuple[Instance, ShapeQuery | None]:
    """--instance as one instance, or the shape search it asks for (a family, 'any', none given). A shape with
    its count left open is a search over its counts: --memory and a --cpus floor apply to it as to a family's
    sizes (one grammar for every search), raising FIELDS' memory and OCPU floor."""
    if search:
        shape, interface, weighting = split_instance(w.instance or ANY)
        query = ShapeQuery(text=shape.strip(), families=comma_list(w.family, "--family"),
                           min_memory_gb=memory_gb(w.memory), min_vcpus=positive_int(w.min_vcpus, "--cpus"))
        inst = Instance(cloud=cat.cloud, shape=query.text, interface=interface, ebs_weighting=weighting)
        return with_instance_options(inst, w.interface, w.ebs_weighting), query
    assert w.instance is not None   # None is a search (is_search)
    inst = with_instance_options(parse_instance(w.instance, cat.cloud, cat, require_count=False), w.interface,
                                 w.ebs_weighting)
    open_count = inst.count is None and find_shape(cat, inst.shape).kind != "fixed" and \
        machine_type(cat, inst.shape) is None
    refused = [("--family", w.family)] + ([] if open_count else [
        ("--min-memory", w.memory if w.old_min_memory else None), ("--cpus", w.min_vcpus)])
    for name, given_option in refused:
        if given_option is not None:
            raise InputError(f"{name}: goes with a search (--instance FAMILY, --instance any, no --instance, or "
                             f"a shape with its count open), not with one size ({w.instance})")
    if open_count and w.old_min_memory:
        fields["memory_gb"] = memory_gb(w.memory, "--min-memory")
    if open_count and w.min_vcpus is not None:
        with supplied_by("--min-vcpus"):
            cloud_of(cat.cloud).check_vcpu_search(w.min_vcpus)
        fields["vcpus_min"] = max(_float(fields["vcpus_min"]), float(positive_int(w.min_vcpus, "--cpus") or 0))
    return inst, None


def _float(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def finish(plan: Plan, out: Path | None, report: Path | None, json_out: bool, given: bool = False) -> None:
    """Write, report and print the plan; exit 3 when nothing meets the targets."""
    if out is not None:
        write_atomically(out, plan.model_dump_json(indent=2) + "\n", what="--out",
                         check=lambda text: check_result_text(text, "--out"))
    save_report(plan, report)
    if json_out:
        print_json(plan)
    elif plan.feasible:
        render_plan(plan, out, console, given)
    else:
        render_infeasible(plan)
    if not plan.feasible:
        raise typer.Exit(3)


def run_deprecated_fleet(history: HistoryArgs, shared: Shared, w: Workload, json_out: bool, out: Path | None,
                         report: Path | None, renamed: params.Renamed) -> None:
    """`plan --from prometheus+…`: the fleet as `blockfit fleet` plans it (its defaults for what plan no longer
    takes), after one line on stderr saying so."""
    from blockfit.cli.fleet import FleetArgs, run_fleet

    source = history.fleet_source()
    assert source is not None
    params.deprecated(f"plan --from {redact(source)}", f"'blockfit fleet --from {redact(source)}' (it also takes "
                      "--match, --range, --step, --until, --mount, --hosts)")
    for name, value in (("--target-iops", w.target_iops), ("--target-mbps", w.target_mbps),
                        ("--read-pct", w.read_pct), ("--peak-factor", history.peak_factor),
                        ("--from-format", history.from_format)):
        if value is not None:
            raise InputError(f"{name}: each host's comes from its history with --from {redact(source)}")
    shared.memory = None if w.old_min_memory else w.memory
    shared.ocpus = None if w.cpus is None else cpu_floor_or_range(w.cpus)[1] or f"{w.cpus.strip()}-"
    renamed.warn()
    for name, value in (("--family", w.family), ("--min-memory", w.memory if w.old_min_memory else None),
                        ("--min-vcpus", w.min_vcpus)):
        if value is not None:
            raise InputError(f"{name}: goes with a search on one workload (--instance FAMILY or any), not with "
                             f"a fleet (--from {redact(source)})")
    args = FleetArgs(source=source, devices=comma_list(history.devices, "--devices"))
    run_fleet(args, shared, history.percentile, history.headroom or 0.0, w.capacity, w.instance, json_out, out,
              report)
