"""`blockfit lab`: try a layout before buying it, on emulated capped volumes in a local qemu guest."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from blockfit import lifecycle, tools
from blockfit.cli import app, params
from blockfit.cli.common import supplied_by
from blockfit.cli.model import check_model_options
from blockfit.cli.output import ReportOption, console, err_console, print_json, save_report
from blockfit.errors import InputError
from blockfit.lab import LabRequest, run_lab
from blockfit.lab.bench import LabBenchRequest, run_lab_bench
from blockfit.lab.bench import checks as bench_checks
from blockfit.lab.figures import judge
from blockfit.lab.run import check_stripe_size
from blockfit.lab.run import checks as lab_checks
from blockfit.lab.scale import parse_scale
from blockfit.lab.target import LabTarget
from blockfit.schema.lab import LabBenchResult, LabFigures, LabResult
from blockfit.terminal import cell, markup
from blockfit.units import fmt_io_size, parse_duration, parse_io_size

MANAGER_TOOLS = {"lvm": "lvcreate", "mdadm": "mdadm"}
MKFS_TOOLS = {"xfs": "mkfs.xfs", "ext4": "mkfs.ext4"}


def needed_tools(manager: str, fs: str, bench: str | None, bench_vs: str) -> list[str]:
    """What the lab drives: qemu, busybox and kmod for the guest; fio, the volume manager and mkfs, which the
    guest runs from the host's root; pgbench (PostgreSQL) with --bench."""
    need = ["qemu-system-x86_64", "busybox", "modprobe", "fio"]
    for name in (manager, fs, bench_vs if bench else ""):
        tool = MANAGER_TOOLS.get(name) or MKFS_TOOLS.get(name)
        if tool:
            need.append(tool)
    if bench:
        need.append("pgbench")
    return need


# the option that carries each field the lab (and its bench) checks; "layout" is --plan's or --layout's
LAB_OPTION_OF = {"manager": "--manager", "fs": "--fs", "stripe_size": "--stripe-size",
                 "attachment,paths": "--attachment/--paths", "redundancy": "--redundancy", "workloads": "--bench",
                 "profile": "--profile", "repeat": "--repeat", "versus": "--bench-vs"}


@app.command("lab")
def lab_command(
    plan: Annotated[Path | None, typer.Option(help="plan.json from 'blockfit plan' (its first candidate)")] = None,
    cloud: Annotated[str | None, typer.Option(help="cloud: oci, aws, azure, gcp (with --layout, --instance)")] = None,
    catalog: Annotated[str | None, typer.Option(help="catalog: a date YYYY-MM-DD / YYYY-MM or a catalog file "
                                                     "'blockfit catalog import' wrote (with --plan: the one the plan "
                                                     "was made with)")] = None,
    layout: Annotated[str | None, typer.Option(help="layout spec, e.g. 9x500G@balanced")] = None,
    instance: Annotated[str | None, typer.Option(help="SHAPE[:OCPUS][/OPTION], e.g. VM.Standard.E3.Flex:12 or "
                                                 "Standard_E8bds_v5/nvme (the spec grammar)")] = None,
    scale: Annotated[str, typer.Option(help="factor applied to every IOPS and MB/s cap, or auto")] = "auto",
    manager: Annotated[str, typer.Option(help="volume manager: lvm or mdadm")] = "lvm",
    fs: Annotated[str, typer.Option(help="filesystem: xfs or ext4")] = "xfs",
    runtime: Annotated[str, typer.Option(help="measurement window per test, e.g. 10s",
                                                     callback=params.duration)] = "8s",
    no_single: Annotated[bool, typer.Option("--no-single", help="skip the single-volume alternative")] = False,
    check_rerun: Annotated[bool, typer.Option("--check-rerun",
                                              help="run the build scripts twice; the second run must change nothing")]
    = False,
    attachment: Annotated[str | None, typer.Option(help="OCI attachment: iscsi or paravirtualized; with --paths the "
                                                        "guest reaches each volume through that many capped paths")]
    = None,
    paths: Annotated[int | None, typer.Option(help="paths per volume (each capped at the model's per-path ceiling; "
                                                   "dm-multipath round-robin over them in the guest)",
                                              **params.NUMBER, callback=params.count)] = None,
    redundancy: Annotated[str | None, typer.Option(help="raid10: build an mdadm RAID10 (needs --manager mdadm) and "
                                                        "measure writes against the model's; default: the plan's")]
    = None,
    stripe_size: Annotated[str | None, typer.Option(
        "--stripe-size", help="stripe unit of the stripe (LVM -I, mdadm --chunk), a power of two from 64k to 4m; "
                              "default: the plan's (4m for --layout), with --bench one scaled with its data",
        callback=params.io_size)] = None,
    keep: Annotated[bool, typer.Option(help="keep the run's work dir (disk files, logs) for inspection")] = False,
    bench: Annotated[str | None, typer.Option(help="run 'blockfit bench' (PostgreSQL) on two layouts built in the "
                                              "guest: comma-separated oltp, dss, load")] = None,
    bench_vs: Annotated[str, typer.Option("--bench-vs", help="with --bench, the layout compared with the plan's "
                                          "stripe: single (one volume, same size), lvm or mdadm (the other "
                                          "manager), xfs or ext4 (the other filesystem)")] = "single",
    profile: Annotated[str, typer.Option(help="with --bench: quick | standard")] = "quick",
    repeat: Annotated[int | None, typer.Option(help="with --bench: most measured runs per layout and measure",
                                                     **params.NUMBER, callback=params.count)]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the LabResult as JSON")] = False,
    report: ReportOption = None,
) -> None:
    """Boot a qemu guest whose disks are capped like the plan's volumes and instance; build and measure."""
    if plan is not None and (cloud or layout or instance):
        raise InputError("lab: give either --plan or --cloud/--layout/--instance, not both")
    if bench is None and (bench_vs != "single" or profile != "quick" or repeat is not None):
        raise InputError("--bench-vs, --profile and --repeat go with --bench (e.g. --bench oltp,dss,load)")
    window = parse_duration(runtime, "--runtime")
    if not 2 <= window <= 600:
        raise InputError(f"--runtime {runtime!r}: expected between 2s and 10m")
    from blockfit.cli.common import attachment as check_attachment
    from blockfit.cli.common import positive_int

    if paths is not None and not 1 <= paths <= 8:
        raise InputError(f"--paths {paths}: expected 1 to 8 (the lab gives each path its own guest device)")
    with supplied_by("--scale"):
        factor = parse_scale(scale)
    with supplied_by("--stripe-size"):
        stripe_bytes = None if stripe_size is None else check_stripe_size(parse_io_size(stripe_size, "--stripe-size"),
                                                                          stripe_size)
    req = LabRequest(target=lab_target(plan, cloud, catalog, layout, instance, manager), scale=factor,
                     manager=manager, fs=fs, keep=keep, runtime_s=round(window), single=not no_single,
                     rerun_check=check_rerun, attachment=check_attachment(attachment),
                     paths=positive_int(paths, "--paths"), redundancy=redundancy, stripe_size=stripe_bytes)
    named = {**LAB_OPTION_OF, "layout": "--plan" if plan is not None else "--layout"}
    for fields, check in lab_checks(req).items():
        with supplied_by(named[fields]):
            check()
    t = req.target
    check_model_options(t.cat, t.layout.model_copy(update={"attachment": req.attachment or t.layout.attachment,
                                                           "paths": req.paths or t.layout.paths}), t.instance, None)
    breq = None
    if bench is not None:
        breq = LabBenchRequest(lab=req, workloads=bench, versus=bench_vs, profile=profile, repeat=repeat)
        for fields, check in bench_checks(breq).items():
            with supplied_by(named[fields]):
                check()
    tools.require("lab", *needed_tools(manager, fs, bench, bench_vs))
    try:
        with lifecycle.interrupting(signal.SIGTERM), err_console.status("lab: starting") as status:
            def say(msg: str) -> None:
                status.update(f"lab: {msg}")

            result: LabResult | LabBenchResult = run_lab_bench(breq, say) if breq else run_lab(req, say)
    except KeyboardInterrupt:
        print("blockfit: error: lab interrupted; the guest was stopped and its files removed", file=sys.stderr)
        raise typer.Exit(130) from None
    # The result first, the report after: a report that cannot be written must not lose minutes of measuring.
    if json_out:
        print_json(result)
    elif isinstance(result, LabBenchResult):
        render_bench(result)
    else:
        render(result)
    sys.stdout.flush()
    try:
        save_report(result, report)
    except InputError as exc:
        raise InputError(f"{exc} (the result was printed to stdout first)") from None


def lab_target(plan: Path | None, cloud: str | None, catalog: str | None, layout: str | None,
               instance: str | None, manager: str) -> LabTarget:
    """What the lab emulates, parsed here once: the plan file read and checked as `build --plan` reads it, or the
    layout and instance specs on the catalog, loaded once."""
    from blockfit.cli.common import catalog_for
    from blockfit.documents import read_plan
    from blockfit.lab.target import from_plan, from_specs

    if plan is not None:
        given = read_plan(plan, catalog=catalog)
        return from_plan(given, catalog_for(given.cloud, catalog, "--plan"), f"--plan {plan}")
    if not (cloud and layout and instance):
        raise InputError("lab: give --plan plan.json, or all of --cloud, --layout and --instance")
    return from_specs(catalog_for(cloud, catalog), layout, instance, manager)


def _ratio(r: float) -> str:
    colour = "green" if abs(r - 1) <= 0.10 else "red"
    return f"[{colour}]{r:.2f}[/]"


def _spread(spread: float | None, windows: int) -> str:
    return f"±{2 * spread:.1%}, {windows}" if spread is not None else f"no spread, {windows}"


def _limit(predicted: str, measured: str) -> str:
    return predicted if predicted == measured else f"[red]{predicted} (lab: {measured})[/]"


def render(r: LabResult) -> None:
    paths = f", {r.caps.paths} path(s) per volume (dm-multipath)" if r.caps.paths else ""
    console.print(f"[bold]lab[/]: {markup(r.layout)} on {markup(r.instance)} ({r.cloud}), {r.manager} + {r.fs}{paths}, "
                  f"scale {r.scale:g} (every IOPS and MB/s cap multiplied by it)")
    columns: list[LabFigures] = [r] + ([r.single] if r.single is not None else [])
    large = "sequential writes" if r.direction == "write" else "random reads"
    table = Table(title=f"{fmt_io_size(r.small_io)} random {r.direction}s (IOPS), {fmt_io_size(r.large_io)} {large} "
                        f"(MB/s); windows of at least {r.runtime_s:g} s, longer until narrow", title_justify="left")
    table.add_column("")
    for name, f in zip(("stripe", "single volume"), columns, strict=False):
        table.add_column(cell(f"{name} {f.layout}"), justify="right")
    rows: list[tuple[str, list[str]]] = [
        ("IOPS predicted x scale", [f"{f.predicted_iops:,.0f}" for f in columns]),
        ("IOPS measured", [f"{f.measured_iops:,.0f}" for f in columns]),
        ("  measured / predicted", [_ratio(f.iops_ratio) for f in columns]),
        ("  ± (95 %), sub-windows", [_spread(f.iops_spread, f.iops_windows) for f in columns]),
        ("  emulator uncapped", [f"{f.emulator_iops:,.0f}" if f.emulator_iops else "-" for f in columns]),
        ("  binding limit", [_limit(f.predicted_limited_by.iops, f.limited_by.iops) for f in columns]),
        ("MB/s predicted x scale", [f"{f.predicted_mbps:,.1f}" for f in columns]),
        ("MB/s measured", [f"{f.measured_mbps:,.1f}" for f in columns]),
        ("  measured / predicted", [_ratio(f.mbps_ratio) for f in columns]),
        ("  ± (95 %), sub-windows", [_spread(f.mbps_spread, f.mbps_windows) for f in columns]),
        ("  emulator uncapped", [f"{f.emulator_mbps:,.1f}" if f.emulator_mbps else "-" for f in columns]),
        ("  binding limit", [_limit(f.predicted_limited_by.mbps, f.limited_by.mbps) for f in columns]),
        ("cloud equivalent (/ scale)", [f"{f.measured_iops / r.scale:,.0f} IOPS, {f.measured_mbps / r.scale:,.0f} MB/s"
                                        for f in columns]),
    ]
    if any(f.model_limited_by is not None for f in columns):  # a latency-bound limit the lab does not emulate
        rows.append(("model, all limits x scale", [
            f"{f.model_iops or f.predicted_iops:,.0f} IOPS ({(f.model_limited_by or f.predicted_limited_by).iops}), "
            f"{f.model_mbps or f.predicted_mbps:,.1f} MB/s" for f in columns]))
    for label, cells in rows:
        table.add_row(label, *cells)
    console.print(table)
    for f in columns:
        for kind in ("iops", "mbps"):
            verdict = judge(f, kind, 0.10)
            if verdict is not None:
                console.print(f"  [yellow]note:[/] {markup(verdict)}")
    for s in r.steps:
        console.print(f"  {'[green]ok[/]' if s.ok else '[red]FAILED[/]'} {markup(s.name)}: {markup(s.detail)}")
    console.print(f"  guest {markup(r.kernel)}, {r.guest_seconds:g} s" + (f", console log {markup(r.console_log)}"
                                                                  if r.console_log else ""))


def render_bench(r: LabBenchResult) -> None:
    b, o = r.baseline, r.other
    console.print(f"[bold]lab bench[/]: {markup(o.label)} ({markup(o.layout)}, {o.manager}, {o.fs}) against "
                  f"{markup(b.label)} ({markup(b.layout)}, "
                  f"{b.manager}, {b.fs}) on {r.instance} ({r.cloud}), scale {r.scale:g} (IOPS) and {r.mbps_scale:g} "
                  f"(MB/s); PostgreSQL "
                  f"{r.bench.postgres_version}, profile {r.bench.settings.profile}")
    table = Table(title=cell(f"{o.label} / {b.label}: the model's ratio beside the database's"), title_justify="left")
    for col in ("measure", "predicted", "measured [95 % CI]", "verdict", "I/O-bound runs"):
        table.add_column(col, justify="left" if col in ("measure", "verdict") else "right")
    for x in r.ratios:
        measured = (f"{x.measured_ratio:.2f} [{x.ci_low:.2f}, {x.ci_high:.2f}]"
                    if x.measured_ratio is not None and x.ci_low is not None and x.ci_high is not None else "-")
        table.add_row(cell(x.measure), cell(f"{x.predicted_ratio:.2f} ({x.basis})"), measured, cell(x.text),
                      cell(x.io_bound_runs))
    console.print(table)
    for lay in (b, o):
        balance = (", member balance " + ", ".join(f"{m} {v:.2f}" for m, v in lay.member_balance.items())
                   if lay.member_balance else "")
        unit = f", stripe unit {fmt_io_size(lay.stripe_size)}" if lay.stripe_size else ""
        console.print(f"  {markup(lay.label)}: {lay.members} x ({lay.caps.member_iops} IOPS, "
                      f"{(lay.caps.member_bps or 0) / 1e6:g} MB/s) on {markup(lay.mount)}{unit}{markup(balance)}")
    for w in r.bench.warnings:
        console.print(f"  [yellow]warning:[/] {markup(w)}")
    for s in r.steps:
        console.print(f"  {'[green]ok[/]' if s.ok else '[red]FAILED[/]'} {markup(s.name)}: {markup(s.detail)}")
    console.print(f"  caps: {markup(', '.join(r.cap_changes) or 'never changed')}; guest {markup(r.kernel)}, "
                  f"{r.guest_seconds:g} s")
