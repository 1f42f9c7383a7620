"""`blockfit lab`: try a layout before buying it, on emulated capped volumes in a local qemu guest."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from blockfit import lifecycle, tools
from blockfit.cli import app, params
from blockfit.cli.common import supplied_by
from blockfit.cli.model import check_model_options
from blockfit.cli.output import ReportOption, console, err_console, print_json, save_report
from blockfit.errors import InputError
from blockfit.lab import LabRequest, run_lab
from blockfit.lab.bench import LabBenchRequest, run_lab_bench
from blockfit.lab.bench import checks as bench_checks
from blockfit.lab.run import check_stripe_size
from blockfit.lab.run import checks as lab_checks
from blockfit.lab.scale import parse_scale
from blockfit.lab.target import LabTarget
from blockfit.schema.lab import LabBenchResult, LabResult
from blockfit.units import parse_duration, parse_io_size
from blockfit.views.lab import render, render_bench

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
    _check_option_sets(plan is not None, bool(cloud or layout or instance), bench, bench_vs, profile, repeat)
    window = _runtime(runtime)
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
    _check_request(req, named)
    breq = None
    if bench is not None:
        breq = LabBenchRequest(lab=req, workloads=bench, versus=bench_vs, profile=profile, repeat=repeat)
        _run_checks(bench_checks(breq), named)
    tools.require("lab", *needed_tools(manager, fs, bench, bench_vs))
    result = _run(req, breq)
    # The result first, the report after: a report that cannot be written must not lose minutes of measuring.
    if json_out:
        print_json(result)
    elif isinstance(result, LabBenchResult):
        render_bench(result, console)
    else:
        render(result, console)
    sys.stdout.flush()
    try:
        save_report(result, report)
    except InputError as exc:
        raise InputError(f"{exc} (the result was printed to stdout first)") from None


def _check_option_sets(plan: bool, specs: bool, bench: str | None, bench_vs: str, profile: str,
                       repeat: int | None) -> None:
    """--plan or the specs (--cloud/--layout/--instance), not both; the bench's options only with --bench."""
    if plan and specs:
        raise InputError("lab: give either --plan or --cloud/--layout/--instance, not both")
    if bench is None and (bench_vs != "single" or profile != "quick" or repeat is not None):
        raise InputError("--bench-vs, --profile and --repeat go with --bench (e.g. --bench oltp,dss,load)")


def _runtime(runtime: str) -> float:
    """--runtime: seconds, from 2 s to 10 min."""
    window = parse_duration(runtime, "--runtime")
    if not 2 <= window <= 600:
        raise InputError(f"--runtime {runtime!r}: expected between 2s and 10m")
    return window


def _run_checks(checks: dict[str, Callable[[], object]], named: dict[str, str]) -> None:
    """Run the library's checks of a request, each naming the option that carried its fields."""
    for fields, check in checks.items():
        with supplied_by(named[fields]):
            check()


def _check_request(req: LabRequest, named: dict[str, str]) -> None:
    """The lab's checks of the request, then the model's checks of the options it takes from the layout."""
    _run_checks(lab_checks(req), named)
    t = req.target
    check_model_options(t.cat, t.layout.model_copy(update={"attachment": req.attachment or t.layout.attachment,
                                                           "paths": req.paths or t.layout.paths}), t.instance, None)


def _run(req: LabRequest, breq: LabBenchRequest | None) -> LabResult | LabBenchResult:
    """The lab run (or its bench), its progress in a status line on stderr; Ctrl-C or SIGTERM stop the guest."""
    try:
        with lifecycle.interrupting(signal.SIGTERM), err_console.status("lab: starting") as status:
            def say(msg: str) -> None:
                status.update(f"lab: {msg}")

            return run_lab_bench(breq, say) if breq else run_lab(req, say)
    except KeyboardInterrupt:
        print("blockfit: error: lab interrupted; the guest was stopped and its files removed", file=sys.stderr)
        raise typer.Exit(130) from None


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
