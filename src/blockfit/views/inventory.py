"""`blockfit inspect` on the terminal: the host, its block devices, filesystems and layouts, then what the
provider's files name that no disk shows."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from blockfit.schema.inventory import BlockNode, Inventory
from blockfit.terminal import cell, markup
from blockfit.units import GIB, MIB, fmt_io_size
from blockfit.views.limits import limit_label


def render_inventory(inv: Inventory, console: Console) -> None:
    """The inventory for people: the host, its block devices, filesystems and layouts, then what did not match."""
    console.print(_heading(inv))
    console.print(_devices_table(inv))
    console.print(_filesystems_table(inv))
    console.print(_layouts_table(inv))
    for line in inv.unmatched_volumes:
        console.print(f"[yellow]unmatched volume:[/] {markup(line)} (no disk of this host shows it)")
    for w in inv.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}")


def _size(n: int | None) -> str:
    """Bytes for people: '4,608.0 GiB', '20.0 MiB'; a stripe's '64k' as fio and the spec grammar spell it."""
    if n is None:
        return ""
    if n >= GIB:
        return f"{n / GIB:,.1f} GiB"
    return f"{n / MIB:,.1f} MiB" if n >= MIB else fmt_io_size(n)


def _heading(inv: Inventory) -> str:
    """The host, its cloud and instance (each said unknown where the host did not show it), as escaped markup."""
    cloud = inv.cloud or "no cloud identity seen"
    inst = inv.instance.spec if inv.instance else "instance unknown"
    return (f"[bold]{markup(inv.hostname or 'this host')}[/]: {markup(cloud)}, {markup(inst)}"
            + (f" ({markup(inv.instance_evidence)})" if inv.instance_evidence else ""))


def _devices_table(inv: Inventory) -> Table:
    """Each block device with what it is made of and which cloud volume it was matched to, and on what evidence."""
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


def _filesystems_table(inv: Inventory) -> Table:
    """Each mounted filesystem, with only the mount options that bear on I/O (atime, barriers, XFS stripe unit)."""
    fs = Table(title="Filesystems", title_justify="left")
    for col in ("mount point", "device", "type", "size", "used", "options"):
        fs.add_column(col)
    for f in inv.filesystems:
        opts = [o for o in f.options if o in ("noatime", "relatime", "nobarrier") or o.startswith(("sunit", "swidth"))]
        fs.add_row(cell(f.mount_point), cell(f.device), cell(f.fstype), _size(f.size_bytes), _size(f.used_bytes),
                   cell(", ".join(opts)))
    return fs


def _layouts_table(inv: Inventory) -> Table:
    """Each layout with what `blockfit model` predicts for it and the limits that bind, or what is unknown of it."""
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
    return table
