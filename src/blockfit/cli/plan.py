"""`blockfit plan`: the cheapest layout that meets capacity, IOPS, MB/s and latency targets."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from blockfit.cli import app, params
from blockfit.cli.common import (
    ATTACHMENT_HELP,
    CATALOG_HELP,
    CLOUD_HELP,
    MEMORY_HELP,
    OCPUS_HELP,
    QUEUE_DEPTH_HELP,
    READ_PCT_HELP,
    REDUNDANCY_HELP,
    attachment,
    catalog_for,
    comma_list,
    io_size,
    latency_ms,
    memory_gb,
    ocpu_range,
    positive_int,
    positive_target,
    redundancy_option,
)
from blockfit.cli.fleet import FleetArgs, refuse_without_source, run_fleet
from blockfit.cli.model import limit_label
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.errors import InputError
from blockfit.files import check_distinct, check_target, write_atomically
from blockfit.history import derive_targets, describe
from blockfit.history.promapi import is_prometheus, redact
from blockfit.history.readers import history_format
from blockfit.history.targets import parse_percentile
from blockfit.model.instance import find_shape, machine_type
from blockfit.plan import make_plan
from blockfit.plan.advice import money
from blockfit.plan.search import TIE_WINDOW
from blockfit.plan.shapes import ANY, ShapeQuery, is_search, plan_shapes
from blockfit.schema import Candidate, Instance, Plan, Requirements
from blockfit.specs import INTERFACE_HELP, WEIGHTING_HELP, parse_instance, with_instance_options
from blockfit.terminal import cell, markup, safe
from blockfit.units import parse_volume_gb

EXAMPLES: dict[str, dict[str, str]] = {
    "part3": dict(cloud="oci", capacity="4.5T", target_iops="150000", small_io="8k",
                  instance="VM.Standard.E3.Flex:12"),
}


@app.command("plan")
def plan_command(
    cloud: Annotated[str | None, typer.Option(help=CLOUD_HELP)] = None,
    capacity: Annotated[str | None, typer.Option(help="usable capacity needed, e.g. 4.5T or 800G",
                                                        callback=params.volume_size)] = None,
    growth: Annotated[float, typer.Option(help="extra capacity headroom in percent, e.g. 20%", **params.PERCENT,
                                          callback=params.growth_pct)] = 0.0,
    target_iops: Annotated[float | None, typer.Option(help="IOPS needed at the small I/O size",
                                                            **params.NUMBER, callback=params.positive)] = None,
    target_mbps: Annotated[float | None, typer.Option(help="MB/s (10^6 B/s) needed at the large I/O size, e.g. 1500 "
                                                                 "or 1.5G (GB/s)",
                                                            **params.NUMBER, callback=params.mbps)] = None,
    max_latency: Annotated[str | None, typer.Option(help="mean latency bound at the target IOPS, e.g. 2ms",
                                                           callback=params.latency)] = None,
    small_io: Annotated[str, typer.Option(help="small random I/O size", callback=params.io_size)] = "8k",
    large_io: Annotated[str, typer.Option(help="large I/O size", callback=params.io_size)] = "1m",
    instance: Annotated[str | None, typer.Option(
        help="SHAPE[:OCPUS] (leave OCPUS off to find the smallest), a FAMILY (r7i, Ebdsv5: search its sizes) or "
             "'any' (every current family; also when left out)")] = None,
    family: Annotated[str | None, typer.Option(help="with a search: only these families, comma list, e.g. r7i,r6i",
                                               callback=params.comma_list)] = None,
    min_memory: Annotated[str | None, typer.Option(help="with a search: machines with at least this memory, e.g. "
                                                        "256G", callback=params.volume_size)] = None,
    min_vcpus: Annotated[int | None, typer.Option(help="with a search: machines with at least this many vCPUs "
                                                       "(licence-bound cores)", callback=params.count)] = None,
    levels: Annotated[str | None, typer.Option(help="comma list of levels/types to consider, e.g. balanced,higher",
                                                           callback=params.comma_list)]
    = None,
    interface: Annotated[str | None, typer.Option(help=INTERFACE_HELP)] = None,
    ebs_weighting: Annotated[str | None, typer.Option(help=WEIGHTING_HELP)] = None,
    allow_hdd: Annotated[bool, typer.Option("--allow-hdd", help="also consider HDD types (st1, sc1); left out "
                                            "by default: AWS counts every random I/O as 1 MiB of their throughput")]
    = False,
    max_volumes: Annotated[int | None, typer.Option(help="at most this many volumes (default: attach limit)",
                                                           **params.NUMBER, callback=params.count)] = None,
    manager: Annotated[str | None, typer.Option(
        help="volume manager: lvm, mdadm or asm (sets the stripe advice); default lvm, or what --redundancy needs")]
    = None,
    redundancy: Annotated[str, typer.Option(help=REDUNDANCY_HELP)] = "none",
    memory: Annotated[str | None, typer.Option(help=MEMORY_HELP, callback=params.volume_size)] = None,
    ocpus: Annotated[str | None, typer.Option(help=OCPUS_HELP)] = None,
    attach: Annotated[str | None, typer.Option("--attachment", help=ATTACHMENT_HELP)] = None,
    paths: Annotated[int | None, typer.Option(
        help="paths per volume the host can use; default: plan says how many each layout needs",
        **params.NUMBER, callback=params.count)] = None,
    queue_depth: Annotated[int | None, typer.Option(help=QUEUE_DEPTH_HELP, **params.NUMBER,
                                                    callback=params.count)] = None,
    read_pct: Annotated[float | None, typer.Option(help=READ_PCT_HELP, **params.PERCENT,
                                                   callback=params.percent)] = None,
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    example: Annotated[str | None, typer.Option(help="built-in example: part3 (the PROMATIS E-Business Suite case)")]
    = None,
    from_files: Annotated[list[str] | None, typer.Option(
        "--from", help="derive the targets from workload history (repeat for RAC instances or several volumes): "
                       "iostat -x -o JSON, sadf -j, a diagnose capture, a CSV (timestamp, read IOPS, write IOPS, "
                       "read MB/s, write MB/s), an AWR or Statspack report (text or HTML), the spool of "
                       "'blockfit sql oracle|statspack|sqlserver', a CloudWatch, OCI Monitoring or Azure Monitor "
                       "export, or a 'blockfit record' recording; or a fleet's from prometheus+http://HOST:PORT "
                       "(docs/fleet.md)")] = None,
    from_format: Annotated[str | None, typer.Option(
        "--from-format", help="with --from: the format every --from file must be (refused if it is not); "
                              "default: detected from the content")] = None,
    devices: Annotated[str | None, typer.Option(help="with --from: comma list of the devices (or volumes, files) "
                                                     "to sum per interval; Prometheus: names or regular expressions)",
                                                callback=params.comma_list)]
    = None,
    percentile: Annotated[str | None, typer.Option(
        help="with --from: the intervals' percentile to plan for: peak (100), p99.9, p99, p95 (default), median, "
             "or a number", callback=params.history_percentile)] = None,
    headroom: Annotated[float | None, typer.Option(help="with --from: added on top of the percentile, e.g. 30% "
                                                        "(default 0%)", **params.PERCENT,
                                                   callback=params.growth_pct)] = None,
    peak_factor: Annotated[float | None, typer.Option(
        help="with --from: multiply the percentile by this (the busiest minute over an interval's average); "
             "default 1, and the source's own finer maxima where it has them",
        **params.NUMBER, callback=params.peak_factor)] = None,
    match: Annotated[str | None, typer.Option(help="with --from prometheus+…: label selector of the hosts, e.g. "
                                                   "'job=\"node\",instance=~\"db-.*\"'")] = None,
    range_: Annotated[str | None, typer.Option("--range", help="with --from prometheus+…: history to read, "
                                                               "e.g. 30d (default)")] = None,
    step: Annotated[str | None, typer.Option(help="with --from prometheus+…: sample interval, e.g. 1m (default); at "
                                                  "least two scrapes per step")] = None,
    until: Annotated[str | None, typer.Option(help="with --from prometheus+…: end of the history, ISO 8601 or "
                                                   "Unix seconds (default now)")] = None,
    mount: Annotated[str | None, typer.Option(help="with --from prometheus+…: sum the device under this mount "
                                                   "point instead of --devices")] = None,
    hosts: Annotated[Path | None, typer.Option(help="with --from prometheus+…: TOML file of each host's current "
                                                    "layout and instance (docs/fleet.md)")] = None,
    concurrency: Annotated[int | None, typer.Option(help="with --from prometheus+…: queries at once (default 4)",
                                                    **params.NUMBER, callback=params.count)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the Plan as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="write the Plan (for build and lab) to this file")] = None,
    report: ReportOption = None,
) -> None:
    """Search member count, size, level and OCPUs for the cheapest layouts that meet every target."""
    if out is not None:
        check_target(out, "--out")  # before minutes of searching, not after
    sources = from_files or []
    prometheus = [f for f in sources if is_prometheus(f)]
    if prometheus and len(sources) > 1:
        raise InputError(f"--from {redact(prometheus[0])}: a Prometheus source is the whole fleet; give it alone")
    check_distinct([("--out", out), ("--report", report)], [("--from", Path(f)) for f in sources if not prometheus])
    if example is not None:
        if example not in EXAMPLES:
            raise InputError(f"--example {example!r}: expected one of {', '.join(EXAMPLES)}")
        ex = EXAMPLES[example]
        sets = {"--capacity": capacity, "--target-iops": target_iops, "--instance": instance,
                "--cloud": cloud, "--small-io": None if small_io == "8k" else small_io}
        for name, value in sets.items():
            if value is not None:
                raise InputError(f"{name}: --example {example} sets it ({', '.join(sets)}); give one or the other")
        cloud, capacity, target_iops = ex["cloud"], ex["capacity"], float(ex["target_iops"])
        small_io, instance = ex["small_io"], ex["instance"]
    fleet = FleetArgs(prometheus[0] if prometheus else "", match, range_, step, until, mount, hosts, concurrency,
                      comma_list(devices, "--devices"))
    is_fleet = is_prometheus(fleet.source)
    if is_fleet:
        for name, value in (("--target-iops", target_iops), ("--target-mbps", target_mbps), ("--read-pct", read_pct)):
            if value is not None:
                raise InputError(f"{name}: each host's comes from its history with --from {fleet.source}")
    else:
        refuse_without_source(fleet)
    if capacity is None and not is_fleet:
        raise InputError("--capacity: expected the usable capacity needed, e.g. 4.5T")
    if manager is not None and manager not in ("lvm", "mdadm", "asm"):
        raise InputError(f"--manager {manager!r}: expected lvm, mdadm or asm")
    redundancy, manager = redundancy_option(redundancy, manager)
    for name, value in (("--target-iops", target_iops), ("--target-mbps", target_mbps)):
        positive_target(value, name)
    ocpus_min, ocpus_max = ocpu_range(ocpus)
    if not math.isfinite(growth) or growth < 0:
        raise InputError(f"--growth {growth:g}: expected a percentage of at least 0")
    history = None
    if is_fleet:   # every host's targets, capacity and instance come later: this is what they share
        fleet_cat = catalog_for(cloud, catalog)
        cloud = fleet_cat.cloud
        for name, given_option in (("--family", family), ("--min-memory", min_memory), ("--min-vcpus", min_vcpus)):
            if given_option is not None:
                raise InputError(f"{name}: goes with a search on one workload (--instance FAMILY or any), not with "
                                 f"a fleet (--from {fleet.source})")
        if instance is not None and is_search(fleet_cat, instance):
            raise InputError(f"--instance {instance}: a fleet plans each host on one shape (its own, or the one "
                             "named here); searching a family or every shape goes with one workload")
        inst = parse_instance(instance, cloud, fleet_cat, require_count=False) if instance else None
        template = Requirements(
            cloud=cloud, capacity_gb=1, growth_pct=growth, max_latency_ms=latency_ms(max_latency),
            small_io=io_size(small_io, "--small-io"), large_io=io_size(large_io, "--large-io"),
            instance_shape=inst.shape if inst else "", levels=comma_list(levels, "--levels"),
            max_volumes=positive_int(max_volumes, "--max-volumes"), manager=manager,
            attachment=attachment(attach), paths=positive_int(paths, "--paths"), memory_gb=memory_gb(memory),
            ocpus_min=ocpus_min, ocpus_max=ocpus_max, redundancy=redundancy,
            queue_depth=session_depth_option(queue_depth, cloud))
        if capacity is not None:
            parse_volume_gb(capacity, "--capacity")
        run_fleet(fleet, template, fleet_cat,
                  95.0 if percentile is None else parse_percentile(percentile),
                  headroom or 0.0,
                  capacity, instance, json_out, out, report)
        return
    if from_files:
        history = derive_targets(
            [Path(f) for f in from_files], comma_list(devices, "--devices"),
            95.0 if percentile is None else parse_percentile(percentile),
            headroom or 0.0, peak_factor,
            history_format(from_format))
        target_iops = history.target_iops if target_iops is None else target_iops
        target_mbps = history.target_mbps if target_mbps is None else target_mbps
        read_pct = history.read_pct if read_pct is None else read_pct
    else:
        given: dict[str, object] = {"--devices": devices, "--percentile": percentile, "--headroom": headroom,
                 "--peak-factor": peak_factor, "--from-format": from_format}
        for name, given_value in given.items():
            if given_value is not None:
                raise InputError(f"{name}: goes with --from (the workload history it applies to)")
    assert capacity is not None   # refused above unless a fleet (which returned); no --instance: a search
    cat = catalog_for(cloud, catalog)
    cloud = cat.cloud
    query = None
    if is_search(cat, instance):
        query = ShapeQuery(text=(instance or ANY).strip(), families=comma_list(family, "--family"),
                           min_memory_gb=memory_gb(min_memory, "--min-memory"),
                           min_vcpus=positive_int(min_vcpus, "--min-vcpus"))
        inst = with_instance_options(Instance(cloud=cloud, shape=query.text), interface, ebs_weighting)
    else:
        assert instance is not None   # None is a search (is_search)
        inst = with_instance_options(parse_instance(instance, cloud, cat, require_count=False), interface,
                                     ebs_weighting)
        # a shape with its count left open is a search over its counts: --min-memory and --min-vcpus apply to it
        # as to a family's sizes (issue 37: one grammar for every search)
        open_count = inst.ocpus is None and find_shape(cat, inst.shape).kind != "fixed" and \
            machine_type(cat, inst.shape) is None
        refused = [("--family", family)] + ([] if open_count else [("--min-memory", min_memory),
                                                                   ("--min-vcpus", min_vcpus)])
        for name, given_option in refused:
            if given_option is not None:
                raise InputError(f"{name}: goes with a search (--instance FAMILY, --instance any, no --instance, or "
                                 f"a shape with its count open), not with one size ({instance})")
        if open_count and min_memory is not None:
            memory = f"{max(memory_gb(memory) or 0.0, memory_gb(min_memory, '--min-memory') or 0.0):g}G"
        if open_count and min_vcpus is not None:
            if cloud == "oci":
                raise InputError("--min-vcpus: OCI sells OCPUs (one OCPU is two vCPUs on x86, one on Arm); search "
                                 "from a count with --ocpus MIN-, e.g. --ocpus 8-")
            ocpus_min = max(ocpus_min or 0.0, float(positive_int(min_vcpus, "--min-vcpus") or 0))
    req = Requirements(
        cloud=cloud, capacity_gb=parse_volume_gb(capacity, "--capacity"), growth_pct=growth,
        target_iops=target_iops, target_mbps=target_mbps, max_latency_ms=latency_ms(max_latency),
        small_io=io_size(small_io, "--small-io"), large_io=io_size(large_io, "--large-io"),
        instance_shape=inst.shape, instance_ocpus=inst.ocpus,
        levels=comma_list(levels, "--levels"), allow_hdd=allow_hdd, interface=inst.interface,
        ebs_weighting=inst.ebs_weighting,
        max_volumes=positive_int(max_volumes, "--max-volumes"), manager=manager, history=history,
        read_pct=100.0 if read_pct is None else read_pct, attachment=attachment(attach),
        paths=positive_int(paths, "--paths"), queue_depth=session_depth_option(queue_depth, cloud),
        memory_gb=memory_gb(memory), ocpus_min=ocpus_min, ocpus_max=ocpus_max, redundancy=redundancy)
    if inst.ocpus is not None and (ocpus_min is not None or ocpus_max is not None):
        raise InputError(f"--ocpus {ocpus}: goes with an open OCPU count (--instance {inst.shape}, not {instance})")
    plan = make_plan(req, cat) if query is None else plan_shapes(req, cat, query)
    if out is not None:
        write_atomically(out, plan.model_dump_json(indent=2) + "\n", what="--out")
    save_report(plan, report)
    if json_out:
        print_json(plan)
    elif plan.feasible:
        render_plan(plan, out)
    else:
        render_infeasible(plan)
    if not plan.feasible:
        raise typer.Exit(3)


def session_depth_option(value: int | None, cloud: str) -> int | None:
    """--queue-depth: the iSCSI session depth plan and build assume (OCI's iSCSI attachments have sessions)."""
    if value is not None and cloud != "oci":
        raise InputError(f"--queue-depth {value}: the iSCSI node.session.queue_depth plan models is OCI's; "
                         f"expected no --queue-depth for {cloud}")
    return positive_int(value, "--queue-depth")


def _dollars(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def _row(c: Candidate, req: Requirements) -> list[Text]:
    layout = cell(c.layout)
    if not c.meets_targets:
        layout.append(" *", style="dim")   # the caption says what * means: the column stays narrow
    return [layout, cell(c.instance), cell(f"{c.max_iops:,.0f}"), cell(f"{c.max_mbps:,.0f}"),
            cell(_dollars(c.cost.storage)), cell(_dollars(c.cost.compute)), cell(_dollars(c.cost.total)),
            cell(limit_label(c.limited_by(req)))]


COLUMNS = ("layout", "instance", "max IOPS", "max MB/s", "storage", "compute", "total /month", "limited by")


def _table(title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for col in COLUMNS:
        table.add_column(col, justify="left" if col in ("layout", "instance", "limited by") else "right",
                         no_wrap=col != "limited by")
    return table


def render_plan(plan: Plan, out: Path | None) -> None:
    req = plan.requirements
    targets = [f"{req.needed_gb:,.0f} GB" + ("" if req.redundancy == "none" else f" raw ({req.redundancy} "
                                                                                 "redundancy)")]
    if req.read_pct < 100:
        targets.append(f"{req.read_pct:.0f} % reads")
    if req.target_iops:
        targets.append(f"{req.target_iops:,.0f} IOPS")
    if req.target_mbps:
        targets.append(f"{req.target_mbps:,.0f} MB/s")
    if req.max_latency_ms:
        targets.append(f"<= {req.max_latency_ms:g} ms")
    console.print(f"[bold]Plan[/] for {', '.join(targets)} on {markup(req.instance_shape)}"
                  f"{'' if req.instance_ocpus is None else f':{req.instance_ocpus:g}'} "
                  f"({plan.cloud} catalog {plan.catalog_version})")
    where = f", prices in {safe(plan.candidates[0].cost.region)}" if plan.candidates[0].cost.region else ""
    priced = [c for c in plan.candidates if c.price_known]
    unpriced = [c for c in plan.candidates if not c.price_known]
    tables = []
    if priced:
        tables.append((f"Candidates meeting every target, recommended first: cheapest total (storage + compute, 730 h "
                       f"a month{where}), but within {100 * (TIE_WINDOW - 1):g} % of it fewest volumes, then fewest "
                       "OCPUs first", priced))
    if unpriced:
        tables.append(("Candidates meeting every target, storage price unknown (a group of their own, not ranked by "
                       "cost): known compute cost, then fewest volumes, then least provisioned first", unpriced))
    if req.history is not None:
        for line in describe.lines(req.history):
            console.print(safe(line), markup=False, highlight=False)
    for title, group in tables:
        table = _table(title)
        for c in group:
            table.add_row(*_row(c, req))
        console.print(table)
    best = plan.candidates[0]
    console.print(f"[bold green]Recommended:[/] {markup(best.layout)} on {markup(best.instance)}: "
                  f"{best.max_iops:,.0f} IOPS / {best.max_mbps:,.0f} MB/s for {markup(money(best.cost))} a month, "
                  f"limited by {markup(_limit_words(best, req))}.")
    if best.prediction.redundancy_note:
        console.print(f"  redundancy: {markup(best.prediction.redundancy_note)} "
                      f"(usable {best.prediction.usable_gb or 0:,.0f} GB of {best.layout_detail.total_gb:,} GB)")
    if best.cost.compute_detail and best.cost.compute_detail.note:
        console.print(f"  [yellow]{markup(best.cost.compute_detail.note)}[/]")
    attach = attachment_advice(best)
    if attach:
        console.print(f"  attach: {markup(attach)}")
    if best.burst_replay is not None:
        console.print(f"  burst: replayed through its credit buckets, {markup(best.burst_replay.summary)}")
    console.print(f"  stripe: {markup(best.stripe_reason)}")
    for note in plan.notes:
        console.print(f"  {markup(note)}")
    if plan.pareto:
        pt = _table("What each extra dollar buys (Pareto: total cost vs IOPS vs MB/s, capacity met)")
        for c in plan.pareto:
            pt.add_row(*_row(c, req))
        if not all(c.meets_targets for c in plan.pareto):
            pt.caption, pt.caption_justify = "* misses a target (shown for what it costs)", "left"
        console.print(pt)
    for w in best.prediction.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}")
    for w in req.history.warnings if req.history is not None else []:
        console.print(f"[yellow]warning:[/] history: {markup(w)}")
    if out is not None:
        console.print(f"plan written to {markup(out)} (feed it to 'blockfit build --plan {markup(out)}' "
                      f"or 'blockfit lab --plan {markup(out)}')")


def _limit_words(c: Candidate, req: Requirements) -> str:
    """The binding limit in the words `model` prints for the same layout (its limits table's description)."""
    name = c.limited_by(req)
    return c.prediction.limit_description(name) or limit_label(name)


def attachment_advice(c: Candidate) -> str | None:
    """How each volume must be attached: for UHP the iSCSI paths that must carry I/O."""
    p = c.prediction
    if p.attachment is None:
        return None
    if p.attachment == "iscsi" and p.paths and p.paths > 1:
        return (f"each volume over a multipath-enabled iSCSI attachment with I/O spread over {p.paths} paths "
                f"(one path carries at most {p.path_iops_cap:,.0f} IOPS / {p.path_mbps_cap:,.0f} MB/s).")
    return f"each volume over {'iSCSI' if p.attachment == 'iscsi' else p.attachment} ({p.paths or 1} path)."


def render_infeasible(plan: Plan) -> None:
    """Why nothing meets the targets, the best this instance reaches, and what other shapes would, on stderr."""
    inf = plan.infeasible
    assert inf is not None
    print(f"blockfit: infeasible: {safe(inf.reason)}", file=sys.stderr)
    if inf.best is not None:
        b = inf.best
        print(f"  best on {safe(b.instance)}: {safe(b.layout)}, {b.max_iops:,.0f} IOPS / {b.max_mbps:,.0f} MB/s for "
              f"{safe(money(b.cost))} a month", file=sys.stderr)
    for alt in inf.alternatives:
        print(f"  on {safe(alt.instance)}: {safe(alt.layout)}, {alt.max_iops:,.0f} IOPS / {alt.max_mbps:,.0f} MB/s "
              f"for {safe(money(alt.cost))} a month", file=sys.stderr)
    regions = {safe(c.cost.region) for c in [*([inf.best] if inf.best else []), *inf.alternatives] if c.cost.region}
    if regions:
        print(f"  prices: 730 h a month, in {', '.join(sorted(regions))}", file=sys.stderr)
    for note in plan.notes:   # the same notes as the JSON's (issue 37: "not considered, no price" was JSON only)
        print(f"  {safe(note)}", file=sys.stderr)
