"""`blockfit lab`: try a layout before buying it, on emulated capped volumes in a local qemu guest."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from blockfit.cli import app, params
from blockfit.cli.output import console, err_console, print_json
from blockfit.errors import InputError
from blockfit.lab import LabRequest, run_lab
from blockfit.lab.scale import parse_scale
from blockfit.schema.lab import LabFigures, LabResult
from blockfit.units import fmt_io_size, parse_duration


def _sigterm_as_interrupt(_sig: int, _frame: object) -> None:
    raise KeyboardInterrupt


@app.command("lab")
def lab_command(
    plan: Annotated[Path | None, typer.Option(help="plan.json from 'blockfit plan' (its first candidate)")] = None,
    cloud: Annotated[str | None, typer.Option(help="cloud: oci, aws, azure, gcp (with --layout, --instance)")] = None,
    layout: Annotated[str | None, typer.Option(help="layout spec, e.g. 9x500G@balanced")] = None,
    instance: Annotated[str | None, typer.Option(help="SHAPE[:OCPUS], e.g. VM.Standard.E3.Flex:12")] = None,
    scale: Annotated[str, typer.Option(help="factor applied to every IOPS and MB/s cap, or auto")] = "auto",
    manager: Annotated[str, typer.Option(help="volume manager: lvm or mdadm")] = "lvm",
    fs: Annotated[str, typer.Option(help="filesystem: xfs or ext4")] = "xfs",
    runtime: Annotated[str, typer.Option(help="measurement window per test, e.g. 10s",
                                                     callback=params.duration)] = "8s",
    no_single: Annotated[bool, typer.Option("--no-single", help="skip the single-volume alternative")] = False,
    check_rerun: Annotated[bool, typer.Option("--check-rerun",
                                              help="run the build scripts twice; the second run must change nothing")]
    = False,
    keep: Annotated[bool, typer.Option(help="keep the run's work dir (disk files, logs) for inspection")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the LabResult as JSON")] = False,
) -> None:
    """Boot a qemu guest whose disks are capped like the plan's volumes and instance; build and measure."""
    if plan is not None and (cloud or layout or instance):
        raise InputError("lab: give either --plan or --cloud/--layout/--instance, not both")
    window = parse_duration(runtime, "--runtime")
    if not 2 <= window <= 600:
        raise InputError(f"--runtime {runtime!r}: expected between 2s and 10m")
    if cloud is not None:
        from blockfit.cli.common import catalog_for

        catalog_for(cloud, None)  # validates the cloud name
    req = LabRequest(cloud=cloud, layout=layout, instance=instance, plan=plan, scale=parse_scale(scale),
                     manager=manager, fs=fs, keep=keep, runtime_s=round(window), single=not no_single,
                     rerun_check=check_rerun)
    previous = signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    try:
        with err_console.status("lab: starting") as status:
            result = run_lab(req, progress=lambda msg: status.update(f"lab: {msg}"))
    except KeyboardInterrupt:
        print("blockfit: error: lab interrupted; the guest was stopped and its files removed", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if json_out:
        print_json(result)
    else:
        render(result)


def _ratio(r: float) -> str:
    colour = "green" if abs(r - 1) <= 0.10 else "red"
    return f"[{colour}]{r:.2f}[/]"


def _limit(predicted: str, measured: str) -> str:
    return predicted if predicted == measured else f"[red]{predicted} (lab: {measured})[/]"


def render(r: LabResult) -> None:
    console.print(f"[bold]lab[/]: {r.layout} on {r.instance} ({r.cloud}), {r.manager} + {r.fs}, "
                  f"scale {r.scale:g} (every IOPS and MB/s cap multiplied by it)")
    columns: list[LabFigures] = [r] + ([r.single] if r.single is not None else [])
    table = Table(title=f"{fmt_io_size(r.small_io)} random reads (IOPS), {fmt_io_size(r.large_io)} random reads "
                        f"(MB/s); {r.runtime_s:g} s windows", title_justify="left")
    table.add_column("")
    for name, f in zip(("stripe", "single volume"), columns, strict=False):
        table.add_column(f"{name} {f.layout}", justify="right")
    rows: list[tuple[str, list[str]]] = [
        ("IOPS predicted x scale", [f"{f.predicted_iops:,.0f}" for f in columns]),
        ("IOPS measured", [f"{f.measured_iops:,.0f}" for f in columns]),
        ("  measured / predicted", [_ratio(f.iops_ratio) for f in columns]),
        ("  binding limit", [_limit(f.predicted_limited_by.iops, f.limited_by.iops) for f in columns]),
        ("MB/s predicted x scale", [f"{f.predicted_mbps:,.1f}" for f in columns]),
        ("MB/s measured", [f"{f.measured_mbps:,.1f}" for f in columns]),
        ("  measured / predicted", [_ratio(f.mbps_ratio) for f in columns]),
        ("  binding limit", [_limit(f.predicted_limited_by.mbps, f.limited_by.mbps) for f in columns]),
        ("cloud equivalent (/ scale)", [f"{f.measured_iops / r.scale:,.0f} IOPS, {f.measured_mbps / r.scale:,.0f} MB/s"
                                        for f in columns]),
    ]
    for label, cells in rows:
        table.add_row(label, *cells)
    console.print(table)
    for s in r.steps:
        console.print(f"  {'[green]ok[/]' if s.ok else '[red]FAILED[/]'} {s.name}: {s.detail}")
    console.print(f"  guest {r.kernel}, {r.guest_seconds:g} s" + (f", console log {r.console_log}"
                                                                  if r.console_log else ""))
