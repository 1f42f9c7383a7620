"""`blockfit build`: turn a plan into safe set-up and migration scripts (one per step) plus a README."""

# Annotations here are objects, not strings (no `from __future__ import annotations`): typer reads the command's
# signature several times a run and would evaluate every option's annotation again each time.
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from blockfit.cli import app, params
from blockfit.cli.common import CLOUD_HELP, catalog_for, supplied_by
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.documents import read_plan
from blockfit.emit.asm import COMPATIBLE, compatible_release
from blockfit.emit.bundle import build_from, check_device_paths
from blockfit.emit.context import BuildContext, mount_point, object_name
from blockfit.emit.options import Filesystem, Manager, Method, Provisioner
from blockfit.errors import InputError
from blockfit.files import check_distinct
from blockfit.schema import BuildResult, Plan
from blockfit.schema.layout import Manager as LayoutManager
from blockfit.specs import LAYOUT_HELP
from blockfit.terminal import markup
from blockfit.units import fmt_count, fmt_hours, parse_io_size

if TYPE_CHECKING:
    from blockfit.plan.move import Found
    from blockfit.schema import Migration

CANDIDATE_HELP = ("which plan candidate, in the plan's order (0 = the recommended one: the cheapest total, except that "
                  "within 1 % of it the fewest volumes, then the fewest OCPUs on OCI or vCPUs elsewhere, come first)")


# The option (or options, for a combination) each of the context's checks is about; "layout" names the candidate.
CHECKED_OPTION = {"plan": "--plan:", "candidate": "--candidate", "manager": "--manager", "devices": "--devices:",
                  "mount": "--mount/--manager", "pairing": "--migrate-from/--method", "migration": "--migrate-from",
                  "method": "--method", "provision": "--provision"}


def check_options(ctx: BuildContext) -> None:
    """The context's checks one at a time, each under the option whose value it is about, after the device paths
    (which name their option)."""
    check_device_paths(ctx)
    for what, check in ctx.option_checks():
        option = f"--plan: candidate {ctx.candidate_index}:" if what == "layout" else CHECKED_OPTION[what]
        with supplied_by(option):
            check()


def _plan(plan: Path | None, layout: str | None, cloud: str | None, instance: str | None, stripe_size: str | None,
          manager: Manager, catalog: str | None) -> Plan:
    """The plan to build: the --plan file, or a one-candidate plan of --layout on --instance."""
    given = [name for name, v in (("--plan", plan), ("--layout", layout)) if v is not None]
    if len(given) != 1:
        raise InputError("--plan or --layout: expected one of them" if not given else
                         "--plan and --layout: expected one of them, not both")
    if plan is not None:
        extra = [n for n, v in (("--cloud", cloud), ("--instance", instance), ("--stripe-size", stripe_size)) if v]
        if extra:
            raise InputError(f"{extra[0]}: goes with --layout (a plan names its own)")
        return read_plan(plan, catalog=catalog)
    from blockfit.plan.given import plan_for_layout
    from blockfit.specs import instance_expected, parse_instance, parse_layout

    cat = catalog_for(cloud, catalog)
    if not instance:
        raise InputError(f"--instance: with --layout, {instance_expected(cat.cloud)}")
    with supplied_by("--stripe-size"):
        stripe = None if stripe_size is None else parse_io_size(stripe_size, "--stripe-size")
    with supplied_by("--layout"):
        lay = parse_layout(layout or "", cat.cloud, cat, manager=cast(LayoutManager, manager.value))
    with supplied_by("--instance"):
        inst = parse_instance(instance, cat.cloud, cat)
    return plan_for_layout(lay, inst, cat, stripe)


def _asm_release(text: str | None, manager: Manager) -> str:
    """--asm-compatible as ASM writes a release (five numbers); only with --manager asm."""
    with supplied_by("--asm-compatible"):
        if text is not None and manager != Manager.ASM:
            raise InputError(f"--asm-compatible {text!r}: goes with --manager asm")
        return compatible_release(COMPATIBLE if text is None else text)


@app.command("build")
def build_command(
    manager: Annotated[Manager, typer.Option("--manager", help="lvm | mdadm | asm (none: a single volume, no manager)",
                                             parser=str, callback=params.choice(Manager))],
    devices: Annotated[str, typer.Option("--devices", help="comma-separated device paths, one per plan member",
                                                  callback=params.comma_list)],
    out: Annotated[Path, typer.Option("--out", help="directory to write the scripts and README.md into")],
    plan: Annotated[Path | None, typer.Option("--plan", help="plan.json written by 'blockfit plan' (or --layout)")]
    = None,
    layout: Annotated[str | None, typer.Option(
        "--layout", help=f"instead of --plan, the layout to build: {LAYOUT_HELP} (with --cloud and --instance)")]
    = None,
    cloud: Annotated[str | None, typer.Option(help=f"with --layout: {CLOUD_HELP}")] = None,
    instance: Annotated[str | None, typer.Option(help="with --layout: the instance, SHAPE[:COUNT][/OPTION]")] = None,
    stripe_size: Annotated[str | None, typer.Option(
        help="with --layout: the stripe size (LVM -I, mdadm --chunk, ASM AU), e.g. 4m; default: plan's choice",
        callback=params.io_size)] = None,
    candidate: Annotated[int, typer.Option("--candidate", help=CANDIDATE_HELP,
                                                    **params.NUMBER, callback=params.index)] = 0,
    mount: Annotated[str | None, typer.Option("--mount", help="mount point for the filesystem, e.g. /u01")] = None,
    fs: Annotated[Filesystem, typer.Option("--fs", help="xfs | ext4", parser=str,
                                           callback=params.choice(Filesystem))] = Filesystem.XFS,
    migrate_from: Annotated[str | None, typer.Option("--migrate-from", help="device or LV with the data now")] = None,
    method: Annotated[Method | None, typer.Option("--method", help="offline (dd) | online (lvconvert mirror)",
                                                  parser=str, callback=params.choice(Method))] = None,
    provision: Annotated[Provisioner | None, typer.Option("--provision", help="oci-cli | terraform | aws-cli",
                                                          parser=str, callback=params.choice(Provisioner))] = None,
    vg: Annotated[str, typer.Option("--vg", help="LVM volume group name")] = "blockfit_vg",
    lv: Annotated[str, typer.Option("--lv", help="LVM logical volume name")] = "blockfit_lv",
    md_name: Annotated[str, typer.Option("--md-name", help="mdadm array name (/dev/md/NAME)")] = "blockfit",
    diskgroup: Annotated[str, typer.Option("--diskgroup", help="ASM disk group name")] = "DATA",
    asm_compatible: Annotated[str | None, typer.Option(
        "--asm-compatible", help="with --manager asm: the oldest Oracle release that must use the disk group "
                                 "(compatible.asm and compatible.rdbms), e.g. 12.2; default 19.0")] = None,
    catalog: Annotated[str | None, typer.Option(
        "--catalog", help="the catalog file 'blockfit catalog import' wrote that the plan was made on (the plan is "
                          "checked against it); default: the shipped version the plan names")] = None,
    force: Annotated[bool, typer.Option("--force", help="write into a non-empty --out directory")] = False,
    inventory: Annotated[Path | None, typer.Option(
        "--inventory", help="an inventory ('blockfit inspect --json'): migrate from the device it names under "
                            "--mount (default: its only mounted layout; the new filesystem goes there), with how "
                            "long each way takes; --method defaults to offline")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    report: ReportOption = None,
) -> None:
    """Write set-up scripts (LVM / mdadm / ASM, filesystem, OCI attachments, migration, provisioning)."""
    check_distinct([("--out", out), ("--report", report)],
                   ([] if plan is None else [("--plan", plan)])
                   + ([] if inventory is None else [("--inventory", inventory)]))
    device_list = [d.strip() for d in devices.split(",") if d.strip()]
    if not device_list:
        raise InputError("--devices: expected comma-separated device paths, e.g. /dev/sdc,/dev/sdd")
    with supplied_by("--mount"):
        mount = None if mount is None else mount_point(mount)
    for name, option in ((vg, "--vg"), (lv, "--lv"), (md_name, "--md-name"), (diskgroup, "--diskgroup")):
        with supplied_by(option):
            object_name(name)
    compatible = _asm_release(asm_compatible, manager)
    the_plan = _plan(plan, layout, cloud, instance, stripe_size, manager, catalog)
    moves: list[Migration] = []
    if inventory is not None:
        if migrate_from is not None:
            raise InputError(f"--migrate-from {migrate_from}: --inventory names the source; give one or the other")
        source = inventory_source(inventory, mount)
        migrate_from, mount, method = source.path, source.found.entry.mount_point, method or Method.OFFLINE
        moves = durations(the_plan, source.found, candidate, manager, method, catalog)
    ctx = BuildContext(plan=the_plan, candidate_index=candidate, manager=manager,
                       devices=device_list, out_dir=out, mount=mount, fs=fs, migrate_from=migrate_from,
                       method=method, provision=provision, vg=vg, lv=lv, md_name=md_name, diskgroup=diskgroup,
                       migrations=moves, asm_compatible=compatible)
    if moves:
        first = moves[0]
        ctx.notes.append(f"moving {source.found.spec} from {migrate_from}: {fmt_hours(first.duration_s)} "
                         f"({first.method}, {first.rate_mbps:,.0f} MB/s; README.md has the arithmetic)")
    check_options(ctx)
    result = build_from(ctx, force=force)
    save_report(result, report)
    if as_json:
        print_json(result)
    else:
        _print_built(result)


def _print_built(result: BuildResult) -> None:
    """What was written, one line a file, then the notes and what to do next."""
    console.print(f"[bold]blockfit build[/bold]: wrote {fmt_count(len(result.steps), 'file')} to "
                  f"{markup(result.out_dir)}", soft_wrap=True)   # a path is never folded
    for step in result.steps:
        order = str(step.order) if step.order else "-"
        console.print(f"  {order:>3}  {step.path:<26} {step.description}", highlight=False, markup=False)
    for note in result.notes:
        console.print(f"  note: {note}", highlight=False, markup=False)
    console.print(f"Next: read {result.out_dir}/README.md, then sudo {result.out_dir}/run-all.sh --dry-run",
                  highlight=False, markup=False)


@dataclass
class InventorySource:
    """Where an inventory says the data is now: its layout under the mount point and the device path to copy."""

    found: "Found"
    path: str


def inventory_source(path: Path, mount: str | None) -> InventorySource:
    """--inventory FILE [--mount MP]: the layout there and the path of its top device (/dev/mapper/VG-LV for an
    LV, so an online migration finds its volume group; /dev/NAME otherwise)."""
    from blockfit.documents import read_inventory
    from blockfit.plan.move import find

    inv = read_inventory(path)
    with supplied_by(f"--inventory {path}:"):
        found = find(inv, mount, need_instance=False)   # the plan's instance where the inventory names none
    node = next((d for d in inv.devices if d.name == found.entry.device), None)
    if node is not None and node.dm_name and node.kind.startswith("lvm"):
        return InventorySource(found, f"/dev/mapper/{node.dm_name}")
    return InventorySource(found, f"/dev/{found.entry.device}")


def durations(plan: "Plan", found: "Found", candidate: int, manager: Manager, method: Method,
              catalog: str | None) -> "list[Migration]":
    """How long each way from FOUND onto the candidate takes (plan/move.py), the build's own method first; none
    when the candidate does not exist (its check says so)."""
    from blockfit.catalog import resolve_catalog
    from blockfit.plan.move import migrations

    if not 0 <= candidate < len(plan.candidates):
        return []
    cat = resolve_catalog(plan.cloud, catalog or plan.catalog_version)
    moves = migrations(cat, found, plan.candidates[candidate], plan.requirements.large_io, str(manager))
    chosen = "lvm-mirror" if method == Method.ONLINE else "offline-block-copy"
    return sorted(moves, key=lambda m: m.method != chosen)
