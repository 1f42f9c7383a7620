"""`blockfit inspect`: read this host's block stack and say which cloud volume each disk is."""

# Annotations here are objects, not strings: typer reads the command's signature (see cli/model.py).
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blockfit.cli import app
from blockfit.cli.output import console, print_json
from blockfit.errors import InputError
from blockfit.schema.inventory import BlockNode, Inventory

if TYPE_CHECKING:
    from rich.table import Table

ROOT_HELP = "read a copy of another host's /sys, /proc and /dev instead of this host's (a directory holding them)"
VOLUMES_HELP = ("the provider CLI's JSON of the volumes (repeatable): aws ec2 describe-volumes, az vm show and az disk "
                "list, gcloud compute disks list and instances describe (--format=json), oci bv volume list and oci "
                "compute volume-attachment list")


@app.command("inspect")
def inspect_command(
    volumes: Annotated[list[Path] | None, typer.Option("--volumes", metavar="FILE", help=VOLUMES_HELP)] = None,
    instance: Annotated[str | None, typer.Option(help="the instance, SHAPE[:COUNT][/OPTION], where DMI does not "
                                                      "name it (only AWS Nitro does)")] = None,
    cloud: Annotated[str | None, typer.Option(help="the cloud (oci, aws, azure or gcp), only where the host shows "
                                                   "none; refused when it shows another")] = None,
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
    try:
        is_dir = root.is_dir()
    except (OSError, ValueError):   # a name too long for the filesystem, a NUL
        is_dir = False
    if not is_dir:
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
    """The inventory for people: the host, its block devices, filesystems and layouts, then what did not match."""
    from blockfit.terminal import markup

    console.print(_heading(inv))
    console.print(_devices_table(inv))
    console.print(_filesystems_table(inv))
    _render_layouts(inv)
    for line in inv.unmatched_volumes:
        console.print(f"[yellow]unmatched volume:[/] {markup(line)} (no disk of this host shows it)")
    for w in inv.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}")


def _heading(inv: Inventory) -> str:
    """The host, its cloud and instance (each said unknown where the host did not show it), as escaped markup."""
    from blockfit.terminal import markup

    cloud = inv.cloud or "no cloud identity seen"
    inst = inv.instance.spec if inv.instance else "instance unknown"
    return (f"[bold]{markup(inv.hostname or 'this host')}[/]: {markup(cloud)}, {markup(inst)}"
            + (f" ({markup(inv.instance_evidence)})" if inv.instance_evidence else ""))


def _devices_table(inv: Inventory) -> "Table":
    """Each block device with what it is made of and which cloud volume it was matched to, and on what evidence."""
    from rich.table import Table

    from blockfit.terminal import cell
    from blockfit.units import fmt_io_size

    devices = Table(title="Block devices", title_justify="left")
    for col in ("device", "kind", "size", "members", "stripes", "identity", "volume", "seen"):
        devices.add_column(col)
    for n in inv.devices:
        ident = "unknown" if n.identity is None else f"{n.identity.cloud} {n.identity.volume_id or '(no ID)'}"
        vol = "" if n.volume is None else f"{n.volume.type} {n.volume.size_gb:g} GB"
        stripes = "" if n.stripes is None else f"{n.stripes} x {fmt_io_size(n.stripe_size or 0)}"
        devices.add_row(cell(n.name), cell(n.kind + (f" {n.level}" if n.level else "")), _size(n.size_bytes),
                        cell(", ".join(n.members)), stripes, cell(ident), cell(vol), cell(_seen(n)))
    return devices


def _seen(n: BlockNode) -> str:
    """What the device's identity rests on; without one, what the host shows of it (transport, vendor, serial...),
    so a reader can match it by hand."""
    if n.identity:
        return n.identity.evidence
    return ", ".join(x for x in (n.transport, n.vendor, n.model, n.serial and f"serial {n.serial}", n.asm_label and
                                 f"ASM {n.asm_label}") if x)


def _filesystems_table(inv: Inventory) -> "Table":
    """Each mounted filesystem, with only the mount options that bear on I/O (atime, barriers, XFS stripe unit)."""
    from rich.table import Table

    from blockfit.terminal import cell

    fs = Table(title="Filesystems", title_justify="left")
    for col in ("mount point", "device", "type", "size", "used", "options"):
        fs.add_column(col)
    for f in inv.filesystems:
        opts = [o for o in f.options if o in ("noatime", "relatime", "nobarrier") or o.startswith(("sunit", "swidth"))]
        fs.add_row(cell(f.mount_point), cell(f.device), cell(f.fstype), _size(f.size_bytes), _size(f.used_bytes),
                   cell(", ".join(opts)))
    return fs


def _render_layouts(inv: Inventory) -> None:
    from rich.table import Table

    from blockfit.cli.model import limit_label
    from blockfit.terminal import cell
    from blockfit.units import fmt_io_size

    table = Table(title="Layouts (what model predicts)", title_justify="left")
    columns = ("mount point", "device", "spec", "stripe", "max IOPS", "max MB/s", "binding limits (or what is unknown)")
    for col in columns:
        table.add_column(col, justify="right" if col.startswith("max") else "left")
    for lay in inv.layouts:
        p = lay.prediction
        why = "; ".join(lay.unknown)
        stripe = "" if lay.layout is None or lay.layout.stripe_size is None else \
            f"{fmt_io_size(lay.layout.stripe_size)} {lay.layout.manager}"
        table.add_row(cell(lay.mount_point or "(not mounted)"), cell(lay.device), cell(lay.spec or "unknown"),
                      cell(stripe), f"{p.max_iops:,.0f}" if p else "", f"{p.max_mbps:,.1f}" if p else "",
                      cell(f"IOPS: {limit_label(p.iops_limited_by)}; MB/s: {limit_label(p.mbps_limited_by)}"
                           if p else why))
    console.print(table)
