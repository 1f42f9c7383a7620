"""`blockfit build`: turn a plan into safe set-up and migration scripts (one per step) plus a README."""

# Annotations here are objects, not strings (no `from __future__ import annotations`): typer reads the command's
# signature several times a run and would evaluate every option's annotation again each time.
from pathlib import Path
from typing import Annotated

import typer

from blockfit.cli import app, params
from blockfit.cli.common import supplied_by
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.documents import read_plan
from blockfit.emit.bundle import build_from, check_device_paths
from blockfit.emit.context import BuildContext, mount_point, object_name
from blockfit.emit.options import Filesystem, Manager, Method, Provisioner
from blockfit.errors import InputError
from blockfit.files import check_distinct
from blockfit.terminal import markup
from blockfit.units import fmt_count

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


@app.command("build")
def build_command(
    plan: Annotated[Path, typer.Option("--plan", help="plan.json written by 'blockfit plan'")],
    manager: Annotated[Manager, typer.Option("--manager", help="lvm | mdadm | asm (none: a single volume, no manager)",
                                             parser=str, callback=params.choice(Manager))],
    devices: Annotated[str, typer.Option("--devices", help="comma-separated device paths, one per plan member",
                                                  callback=params.comma_list)],
    out: Annotated[Path, typer.Option("--out", help="directory to write the scripts and README.md into")],
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
    catalog: Annotated[str | None, typer.Option(
        "--catalog", help="the catalog file 'blockfit catalog import' wrote that the plan was made on (the plan is "
                          "checked against it); default: the shipped version the plan names")] = None,
    force: Annotated[bool, typer.Option("--force", help="write into a non-empty --out directory")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    report: ReportOption = None,
) -> None:
    """Write set-up scripts (LVM / mdadm / ASM, filesystem, OCI attachments, migration, provisioning)."""
    check_distinct([("--out", out), ("--report", report)], [("--plan", plan)])
    device_list = [d.strip() for d in devices.split(",") if d.strip()]
    if not device_list:
        raise InputError("--devices: expected comma-separated device paths, e.g. /dev/sdc,/dev/sdd")
    with supplied_by("--mount"):
        mount = None if mount is None else mount_point(mount)
    for name, option in ((vg, "--vg"), (lv, "--lv"), (md_name, "--md-name"), (diskgroup, "--diskgroup")):
        with supplied_by(option):
            object_name(name)
    ctx = BuildContext(plan=read_plan(plan, catalog=catalog), candidate_index=candidate, manager=manager,
                       devices=device_list, out_dir=out, mount=mount, fs=fs, migrate_from=migrate_from,
                       method=method, provision=provision, vg=vg, lv=lv, md_name=md_name, diskgroup=diskgroup)
    check_options(ctx)
    result = build_from(ctx, force=force)
    save_report(result, report)
    if as_json:
        print_json(result)
        return
    console.print(f"[bold]blockfit build[/bold]: wrote {fmt_count(len(result.steps), 'file')} to "
                  f"{markup(result.out_dir)}", soft_wrap=True)   # a path is never folded
    for step in result.steps:
        order = str(step.order) if step.order else "-"
        console.print(f"  {order:>3}  {step.path:<26} {step.description}", highlight=False, markup=False)
    for note in result.notes:
        console.print(f"  note: {note}", highlight=False, markup=False)
    console.print(f"Next: read {result.out_dir}/README.md, then sudo {result.out_dir}/run-all.sh --dry-run",
                  highlight=False, markup=False)
