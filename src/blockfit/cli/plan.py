"""`blockfit plan`: the cheapest layout that meets capacity, IOPS, MB/s and latency targets."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from blockfit.cli import app, params
from blockfit.cli.common import CATALOG_HELP, CLOUD_HELP, catalog_for, io_size, latency_ms, positive_int
from blockfit.cli.model import limit_label
from blockfit.cli.output import console, print_json
from blockfit.errors import InfeasibleError, InputError
from blockfit.plan import make_plan
from blockfit.schema import Candidate, Plan, Requirements
from blockfit.specs import parse_instance
from blockfit.units import parse_volume_gb

EXAMPLES: dict[str, dict[str, str]] = {
    "part3": dict(cloud="oci", capacity="4.5T", target_iops="150000", small_io="8k",
                  instance="VM.Standard.E3.Flex:12"),
}


@app.command("plan")
def plan_command(
    cloud: Annotated[str, typer.Option(help=CLOUD_HELP)] = "oci",
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
    instance: Annotated[str | None, typer.Option(help="SHAPE[:OCPUS]; leave OCPUS off to find the smallest")] = None,
    levels: Annotated[str | None, typer.Option(help="comma list of levels/types to consider, e.g. balanced,higher",
                                                           callback=params.comma_list)]
    = None,
    max_volumes: Annotated[int | None, typer.Option(help="at most this many volumes (default: attach limit)",
                                                           callback=params.count)] = None,
    manager: Annotated[str, typer.Option(help="volume manager: lvm, mdadm or asm (sets the stripe advice)")] = "lvm",
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    example: Annotated[str | None, typer.Option(help="built-in example: part3 (the PROMATIS E-Business Suite case)")]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the Plan as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="write the Plan (for build and lab) to this file")] = None,
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
    if instance is None:
        raise InputError("--instance: expected SHAPE[:OCPUS], e.g. VM.Standard.E3.Flex:12 or VM.Standard.E4.Flex")
    if manager not in ("lvm", "mdadm", "asm"):
        raise InputError(f"--manager {manager!r}: expected lvm, mdadm or asm")
    for name, value in (("--target-iops", target_iops), ("--target-mbps", target_mbps)):
        if value is not None and value <= 0:
            raise InputError(f"{name} {value:g}: expected a positive number")
    if growth < 0:
        raise InputError(f"--growth {growth:g}: expected a percentage of at least 0")
    cat = catalog_for(cloud, catalog)
    inst = parse_instance(instance, cloud, cat, require_count=False)
    req = Requirements(
        cloud=cloud, capacity_gb=parse_volume_gb(capacity, "--capacity"), growth_pct=growth,
        target_iops=target_iops, target_mbps=target_mbps, max_latency_ms=latency_ms(max_latency),
        small_io=io_size(small_io, "--small-io"), large_io=io_size(large_io, "--large-io"),
        instance_shape=inst.shape, instance_ocpus=inst.ocpus,
        levels=[lv.strip() for lv in levels.split(",") if lv.strip()] if levels else None,
        max_volumes=positive_int(max_volumes, "--max-volumes"), manager=manager)
    try:
        plan = make_plan(req, cat)
    except InfeasibleError as exc:
        if json_out:
            print_json({"error": str(exc), "feasible": False, **(exc.details or {})})  # type: ignore[dict-item]
            raise typer.Exit(3) from None
        _render_infeasible(exc)
        raise typer.Exit(3) from None
    if out is not None:
        _write_atomically(out, plan.model_dump_json(indent=2))
    if json_out:
        print_json(plan)
    else:
        render_plan(plan, out)


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temp file beside `path` and rename: nothing half-written on failure."""
    if path.is_dir():
        raise InputError(f"--out {str(path)!r}: expected a file path, not a directory")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"--out {str(path)!r}: cannot write ({exc.strerror})") from None


def _row(c: Candidate) -> list[str]:
    return [c.layout, c.instance, f"{c.max_iops:,.0f}", f"{c.max_mbps:,.0f}", f"${c.cost_per_month:,.2f}",
            limit_label(c.limited_by)]


def _table(title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for col in ("layout", "instance", "max IOPS", "max MB/s", "per month", "limited by"):
        table.add_column(col, justify="right" if col.startswith(("max", "per")) else "left",
                         no_wrap=col in ("layout", "instance", "max IOPS", "max MB/s", "per month"))
    return table


def render_plan(plan: Plan, out: Path | None) -> None:
    req = plan.requirements
    targets = [f"{req.needed_gb:,.0f} GB"]
    if req.target_iops:
        targets.append(f"{req.target_iops:,.0f} IOPS")
    if req.target_mbps:
        targets.append(f"{req.target_mbps:,.0f} MB/s")
    if req.max_latency_ms:
        targets.append(f"<= {req.max_latency_ms:g} ms")
    console.print(f"[bold]Plan[/] for {', '.join(targets)} on {req.instance_shape}"
                  f"{'' if req.instance_ocpus is None else f':{req.instance_ocpus:g}'} "
                  f"({plan.cloud} catalog {plan.catalog_version})")
    table = _table("Candidates meeting every target, cheapest first")
    for c in plan.candidates:
        table.add_row(*_row(c))
    console.print(table)
    best = plan.candidates[0]
    console.print(f"[bold green]Recommended:[/] {best.layout} on {best.instance}: "
                  f"{best.max_iops:,.0f} IOPS / {best.max_mbps:,.0f} MB/s for ${best.cost_per_month:,.2f} a month, "
                  f"limited by {limit_label(best.limited_by)}.")
    console.print(f"  stripe: {best.stripe_reason}")
    for note in plan.notes:
        console.print(f"  {note}")
    if plan.pareto:
        pt = _table("What each extra dollar buys (Pareto: cost vs IOPS vs MB/s, capacity met)")
        for c in plan.pareto:
            pt.add_row(*_row(c))
        console.print(pt)
    for w in best.prediction.warnings:
        console.print(f"[yellow]warning:[/] {w}")
    if out is not None:
        console.print(f"plan written to {out} (feed it to 'blockfit build --plan {out}' "
                      f"or 'blockfit lab --plan {out}')")


def _render_infeasible(exc: InfeasibleError) -> None:
    print(f"blockfit: infeasible: {exc}", file=sys.stderr)
    details = exc.details if isinstance(exc.details, dict) else {}
    if details.get("best"):
        print("best on this instance: " + json.dumps(details["best"]), file=sys.stderr)
    for alt in details.get("alternatives", []):
        print("alternative: " + json.dumps(alt), file=sys.stderr)
