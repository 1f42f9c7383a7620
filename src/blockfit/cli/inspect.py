"""`blockfit inspect`: read this host's block stack and say which cloud volume each disk is."""

# Annotations here are objects, not strings: typer reads the command's signature (see cli/model.py).
from pathlib import Path
from typing import Annotated

import typer

from blockfit.cli import app
from blockfit.cli.common import CLOUD_HELP
from blockfit.cli.output import console, print_json
from blockfit.errors import InputError
from blockfit.schema.inventory import Inventory

ROOT_HELP = "read a copy of another host's /sys, /proc and /dev instead of this host's (a directory holding them)"
VOLUMES_HELP = ("the provider CLI's JSON of the volumes (repeatable): aws ec2 describe-volumes, az vm show and az disk "
                "list, gcloud compute disks list --format=json, oci bv volume list and oci compute volume-attachment "
                "list")


@app.command("inspect")
def inspect_command(
    volumes: Annotated[list[Path] | None, typer.Option("--volumes", metavar="FILE", help=VOLUMES_HELP)] = None,
    instance: Annotated[str | None, typer.Option(help="the instance, SHAPE[:COUNT][/OPTION], where DMI does not "
                                                      "name it (only AWS Nitro does)")] = None,
    cloud: Annotated[str | None, typer.Option(help=f"{CLOUD_HELP}; only where the host shows none")] = None,
    root: Annotated[Path, typer.Option(help=ROOT_HELP, metavar="DIR")] = Path("/"),
    json_out: Annotated[bool, typer.Option("--json", help="print the Inventory as JSON")] = False,
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE", help="also write the Inventory (JSON) to "
                                                                           "this file")] = None,
) -> None:
    """Read this host's block stack and say which cloud volume each disk is, with each layout's figures."""
    from blockfit.files import check_distinct, check_target, write_atomically
    from blockfit.inputs import user_path
    from blockfit.inventory.inspect import inspect_host

    if cloud is not None:
        from blockfit.cli.common import catalog_for
        cloud = catalog_for(cloud, None).cloud
    given = [user_path(str(v), "--volumes") for v in volumes or []]
    if not root.is_dir():
        raise InputError(f"--root {str(root)!r}: expected a directory holding a copy of a host's sys, proc and dev")
    if out is not None:
        check_target(out, "--out")
    check_distinct([("--out", out)], [("--volumes", v) for v in given])
    inv = inspect_host(root, given, instance, cloud)
    if out is not None:
        write_atomically(out, inv.model_dump_json(indent=2) + "\n", what="--out")
    if json_out:
        print_json(inv)
    else:
        render_inventory(inv)


def _size(n: int | None) -> str:
    """Bytes for people: '4,608.0 GiB', '20.0 MiB'; a stripe's '64k' as fio and the spec grammar spell it."""
    from blockfit.units import GIB, MIB, fmt_io_size
    if n is None:
        return ""
    if n >= GIB:
        return f"{n / GIB:,.1f} GiB"
    return f"{n / MIB:,.1f} MiB" if n >= MIB else fmt_io_size(n)


def render_inventory(inv: Inventory) -> None:
    from rich.table import Table

    from blockfit.terminal import cell, markup
    from blockfit.units import fmt_io_size

    cloud = inv.cloud or "no cloud identity seen"
    inst = inv.instance.spec if inv.instance else "instance unknown"
    console.print(f"[bold]{markup(inv.hostname or 'this host')}[/]: {markup(cloud)}, {markup(inst)}"
                  + (f" ({markup(inv.instance_evidence)})" if inv.instance_evidence else ""))
    devices = Table(title="Block devices", title_justify="left")
    for col in ("device", "kind", "size", "members", "stripes", "identity", "volume", "seen"):
        devices.add_column(col)
    for n in inv.devices:
        ident = "unknown" if n.identity is None else f"{n.identity.cloud} {n.identity.volume_id or '(no ID)'}"
        vol = "" if n.volume is None else f"{n.volume.type} {n.volume.size_gb:g} GB"
        stripes = "" if n.stripes is None else f"{n.stripes} x {fmt_io_size(n.stripe_size or 0)}"
        seen = n.identity.evidence if n.identity else ", ".join(
            x for x in (n.transport, n.vendor, n.model, n.serial and f"serial {n.serial}", n.asm_label and
                        f"ASM {n.asm_label}") if x)
        devices.add_row(cell(n.name), cell(n.kind + (f" {n.level}" if n.level else "")), _size(n.size_bytes),
                        cell(", ".join(n.members)), stripes, cell(ident), cell(vol), cell(seen))
    console.print(devices)
    fs = Table(title="Filesystems", title_justify="left")
    for col in ("mount point", "device", "type", "size", "used", "options"):
        fs.add_column(col)
    for f in inv.filesystems:
        opts = [o for o in f.options if o in ("noatime", "relatime", "nobarrier") or o.startswith(("sunit", "swidth"))]
        fs.add_row(cell(f.mount_point), cell(f.device), cell(f.fstype), _size(f.size_bytes), _size(f.used_bytes),
                   cell(", ".join(opts)))
    console.print(fs)
    _render_layouts(inv)
    for line in inv.unmatched_volumes:
        console.print(f"[yellow]unmatched volume:[/] {markup(line)} (no disk of this host shows it)")
    for w in inv.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}")


def _render_layouts(inv: Inventory) -> None:
    from rich.table import Table

    from blockfit.terminal import cell
    from blockfit.units import fmt_io_size

    table = Table(title="Layouts (what model predicts)", title_justify="left")
    for col in ("mount point", "device", "spec", "stripe", "max IOPS", "max MB/s", "binding limit"):
        table.add_column(col, justify="right" if col.startswith("max") else "left")
    for lay in inv.layouts:
        p = lay.prediction
        why = "; ".join(lay.unknown)
        stripe = "" if lay.layout is None or lay.layout.stripe_size is None else \
            f"{fmt_io_size(lay.layout.stripe_size)} {lay.layout.manager}"
        table.add_row(cell(lay.mount_point or "(not mounted)"), cell(lay.device), cell(lay.spec or "unknown"),
                      cell(stripe), f"{p.max_iops:,.0f}" if p else "", f"{p.max_mbps:,.1f}" if p else "",
                      cell(p.iops_limited_by if p else why))
    console.print(table)
