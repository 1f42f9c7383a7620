"""`blockfit plan`: the cheapest layout that meets capacity, IOPS, MB/s and latency targets."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from blockfit.cli import app, params
from blockfit.cli.common import (
    ATTACHMENT_HELP,
    CATALOG_HELP,
    CLOUD_HELP,
    MEMORY_HELP,
    OCPUS_HELP,
    READ_PCT_HELP,
    REDUNDANCY_HELP,
    attachment,
    catalog_for,
    comma_list,
    io_size,
    latency_ms,
    memory_gb,
    ocpu_range,
    percent,
    positive_int,
    positive_target,
    read_fraction,
    redundancy_option,
)
from blockfit.cli.model import limit_label
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.errors import InfeasibleError, InputError
from blockfit.files import write_atomically
from blockfit.history import derive_targets
from blockfit.plan import make_plan
from blockfit.plan.shapes import ANY, ShapeQuery, is_search, plan_shapes
from blockfit.schema import Candidate, DerivedTargets, Instance, Plan, Requirements
from blockfit.specs import INTERFACE_HELP, WEIGHTING_HELP, parse_instance, with_instance_options
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
    growth: Annotated[float, typer.Option(help="extra capacity headroom in percent", callback=params.growth_pct)] = 0.0,
    target_iops: Annotated[float | None, typer.Option(help="IOPS needed at the small I/O size",
                                                            callback=params.positive)] = None,
    target_mbps: Annotated[float | None, typer.Option(help="MB/s (10^6 B/s) needed at the large I/O size",
                                                            callback=params.positive)] = None,
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
                                                           callback=params.count)] = None,
    manager: Annotated[str | None, typer.Option(
        help="volume manager: lvm, mdadm or asm (sets the stripe advice); default lvm, or what --redundancy needs")]
    = None,
    redundancy: Annotated[str, typer.Option(help=REDUNDANCY_HELP)] = "none",
    memory: Annotated[str | None, typer.Option(help=MEMORY_HELP, callback=params.volume_size)] = None,
    ocpus: Annotated[str | None, typer.Option(help=OCPUS_HELP)] = None,
    attach: Annotated[str | None, typer.Option("--attachment", help=ATTACHMENT_HELP)] = None,
    paths: Annotated[int | None, typer.Option(
        help="paths per volume the host can use; default: plan says how many each layout needs",
        callback=params.count)] = None,
    read_pct: Annotated[float | None, typer.Option(help=READ_PCT_HELP, callback=params.percent)] = None,
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    example: Annotated[str | None, typer.Option(help="built-in example: part3 (the PROMATIS E-Business Suite case)")]
    = None,
    from_file: Annotated[Path | None, typer.Option(
        "--from", help="derive the targets from workload history: iostat -x -o JSON, sadf -j, a diagnose "
                       "capture, or a CSV (timestamp, read IOPS, write IOPS, read MB/s, write MB/s)")] = None,
    devices: Annotated[str | None, typer.Option(help="with --from: comma list of the devices to sum per sample",
                                                callback=params.comma_list)]
    = None,
    percentile: Annotated[float, typer.Option(help="with --from: percentile of the samples to plan for",
                                              callback=params.percentile)] = 95.0,
    headroom: Annotated[str, typer.Option(help="with --from: added on top of the percentile, e.g. 30%",
                                          callback=params.growth_pct)] = "0%",
    json_out: Annotated[bool, typer.Option("--json", help="print the Plan as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="write the Plan (for build and lab) to this file")] = None,
    report: ReportOption = None,
) -> None:
    """Search member count, size, level and OCPUs for the cheapest layouts that meet every target."""
    if example is not None:
        if example not in EXAMPLES:
            raise InputError(f"--example {example!r}: expected one of {', '.join(EXAMPLES)}")
        ex = EXAMPLES[example]
        cloud, capacity, target_iops = ex["cloud"], ex["capacity"], float(ex["target_iops"])
        small_io, instance = ex["small_io"], ex["instance"]
    if capacity is None:
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
    if from_file is not None:
        history = derive_targets(from_file, comma_list(devices, "--devices"), percentile,
                                 percent(headroom, "--headroom"))
        target_iops = history.target_iops if target_iops is None else target_iops
        target_mbps = history.target_mbps if target_mbps is None else target_mbps
        read_pct = history.read_pct if read_pct is None else read_pct
    elif devices is not None:
        raise InputError("--devices: goes with --from (the history file whose devices to sum)")
    cat = catalog_for(cloud, catalog)
    cloud = cat.cloud
    query = None
    if is_search(cat, instance):
        query = ShapeQuery(text=(instance or ANY).strip(), families=comma_list(family, "--family"),
                           min_memory_gb=memory_gb(min_memory, "--min-memory"),
                           min_vcpus=positive_int(min_vcpus, "--min-vcpus"))
        inst = with_instance_options(Instance(cloud=cloud, shape=query.text), interface, ebs_weighting)
    else:
        assert instance is not None
        for name, given in (("--family", family), ("--min-memory", min_memory), ("--min-vcpus", min_vcpus)):
            if given is not None:
                raise InputError(f"{name}: goes with a search (--instance FAMILY, --instance any or no --instance), "
                                 f"not with one shape ({instance})")
        inst = with_instance_options(parse_instance(instance, cloud, cat, require_count=False), interface,
                                     ebs_weighting)
    req = Requirements(
        cloud=cloud, capacity_gb=parse_volume_gb(capacity, "--capacity"), growth_pct=growth,
        target_iops=target_iops, target_mbps=target_mbps, max_latency_ms=latency_ms(max_latency),
        small_io=io_size(small_io, "--small-io"), large_io=io_size(large_io, "--large-io"),
        instance_shape=inst.shape, instance_ocpus=inst.ocpus,
        levels=comma_list(levels, "--levels"), allow_hdd=allow_hdd, interface=inst.interface,
        ebs_weighting=inst.ebs_weighting,
        max_volumes=positive_int(max_volumes, "--max-volumes"), manager=manager, history=history,
        read_fraction=read_fraction(read_pct), attachment=attachment(attach), paths=positive_int(paths, "--paths"),
        memory_gb=memory_gb(memory), ocpus_min=ocpus_min, ocpus_max=ocpus_max, redundancy=redundancy)
    if inst.ocpus is not None and (ocpus_min is not None or ocpus_max is not None):
        raise InputError(f"--ocpus {ocpus}: goes with an open OCPU count (--instance {inst.shape}, not {instance})")
    try:
        plan = make_plan(req, cat) if query is None else plan_shapes(req, cat, query)
    except InfeasibleError as exc:
        if json_out:
            print_json({"error": str(exc), "feasible": False, **(exc.details or {})})  # type: ignore[dict-item]
            raise typer.Exit(3) from None
        _render_infeasible(exc)
        raise typer.Exit(3) from None
    if out is not None:
        write_atomically(out, plan.model_dump_json(indent=2) + "\n", what="--out")
    save_report(plan, report)
    if json_out:
        print_json(plan)
    else:
        render_plan(plan, out)


def _dollars(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def _row(c: Candidate) -> list[str]:
    storage = c.cost.storage if c.cost else c.cost_per_month
    compute = c.cost.compute if c.cost else None
    total = c.cost.total if c.cost else None
    return [c.layout, c.instance, f"{c.max_iops:,.0f}", f"{c.max_mbps:,.0f}", _dollars(storage), _dollars(compute),
            _dollars(total), limit_label(c.limited_by)]


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
    if req.read_fraction < 1:
        targets.append(f"{100 * req.read_fraction:.0f} % reads")
    if req.target_iops:
        targets.append(f"{req.target_iops:,.0f} IOPS")
    if req.target_mbps:
        targets.append(f"{req.target_mbps:,.0f} MB/s")
    if req.max_latency_ms:
        targets.append(f"<= {req.max_latency_ms:g} ms")
    console.print(f"[bold]Plan[/] for {', '.join(targets)} on {req.instance_shape}"
                  f"{'' if req.instance_ocpus is None else f':{req.instance_ocpus:g}'} "
                  f"({plan.cloud} catalog {plan.catalog_version})")
    table = _table("Candidates meeting every target, cheapest total (storage + compute, 730 h a month) first")
    for c in plan.candidates:
        table.add_row(*_row(c))
    if req.history is not None:
        console.print(history_line(req.history))
    console.print(table)
    best = plan.candidates[0]
    money = _dollars(best.cost_per_month) if best.cost is None else (
        f"{_dollars(best.cost.storage)} storage + {_dollars(best.cost.compute)} compute = "
        f"{_dollars(best.cost.total)}")
    console.print(f"[bold green]Recommended:[/] {best.layout} on {best.instance}: "
                  f"{best.max_iops:,.0f} IOPS / {best.max_mbps:,.0f} MB/s for {money} a month, "
                  f"limited by {limit_label(best.limited_by)}.")
    if best.prediction.redundancy_note:
        console.print(f"  redundancy: {best.prediction.redundancy_note} "
                      f"(usable {best.prediction.usable_gb or 0:,.0f} GB of {best.layout_detail.total_gb:,} GB)")
    if best.cost and best.cost.compute_detail and best.cost.compute_detail.note:
        console.print(f"  [yellow]{best.cost.compute_detail.note}[/]")
    attach = attachment_advice(best)
    if attach:
        console.print(f"  attach: {attach}")
    console.print(f"  stripe: {best.stripe_reason}")
    for note in plan.notes:
        console.print(f"  {note}")
    if plan.pareto:
        pt = _table("What each extra dollar buys (Pareto: total cost vs IOPS vs MB/s, capacity met)")
        for c in plan.pareto:
            pt.add_row(*_row(c))
        console.print(pt)
    for w in best.prediction.warnings:
        console.print(f"[yellow]warning:[/] {w}")
    if out is not None:
        console.print(f"plan written to {out} (feed it to 'blockfit build --plan {out}' "
                      f"or 'blockfit lab --plan {out}')")


def history_line(h: DerivedTargets) -> str:
    """Where the targets came from, in one line: the file, the devices, how many samples, the arithmetic."""
    where = f"{h.format} history {h.source}" + (f" (devices {', '.join(h.devices)})" if h.devices else "")
    mix = f"reads {h.read_pct:.0f} % of {'I/Os' if h.read_pct_from == 'ios' else 'bytes'}"
    line = (f"Targets from {where}: p{h.percentile:g} of {h.samples} samples = {h.iops:,.0f} IOPS ({mix}), "
            f"{h.mbps:,.1f} MB/s")
    if h.headroom_pct:
        line += f"; +{h.headroom_pct:g} % headroom = {h.target_iops:,.0f} IOPS, {h.target_mbps:,.1f} MB/s"
    return line + "".join(f"; skipped {s}" for s in h.skipped)


def attachment_advice(c: Candidate) -> str | None:
    """How each volume must be attached: for UHP the iSCSI paths that must carry I/O."""
    if c.attachment is None:
        return None
    if c.attachment == "iscsi" and c.paths and c.paths > 1:
        return (f"each volume over a multipath-enabled iSCSI attachment with I/O spread over {c.paths} paths "
                f"(one path carries at most {c.prediction.path_iops_cap:,.0f} IOPS / "
                f"{c.prediction.path_mbps_cap:,.0f} MB/s).")
    return f"each volume over {'iSCSI' if c.attachment == 'iscsi' else c.attachment} ({c.paths or 1} path)."


def _render_infeasible(exc: InfeasibleError) -> None:
    print(f"blockfit: infeasible: {exc}", file=sys.stderr)
    details = exc.details if isinstance(exc.details, dict) else {}
    if details.get("best"):
        print("best on this instance: " + json.dumps(details["best"]), file=sys.stderr)
    for alt in details.get("alternatives", []):
        print("alternative: " + json.dumps(alt), file=sys.stderr)
