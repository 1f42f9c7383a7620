"""Section for `blockfit inspect` (Inventory): the layout under each mount point with what the model predicts for
it, each block device with the cloud volume it is (and the evidence), and what the host could not tell.

Everything shown is the result's own text and figures, escaped by the page; nothing is read from the host."""

from __future__ import annotations

from blockfit.report.model import limit_name
from blockfit.report.page import Section, Table
from blockfit.schema import BlockNode, Inventory, InventoryLayout
from blockfit.units import fmt_num


def summary(inv: Inventory) -> str:
    host = inv.hostname or "the host"
    inst = inv.instance.spec if inv.instance is not None else "an instance it could not tell"
    known = [e for e in inv.layouts if e.spec is not None]
    text = (f"{host} ({inv.cloud or 'no cloud identity seen'}, {inst}): {len(inv.devices)} block devices, "
            f"{len(inv.layouts)} layouts, {len(known)} of them known in spec grammar.")
    predicted = [e for e in known if e.prediction is not None]
    for e in predicted[:3]:
        p = e.prediction
        assert p is not None
        text += (f" {e.mount_point or e.device}: {e.spec} delivers {fmt_num(p.max_iops)} IOPS / "
                 f"{fmt_num(p.max_mbps)} MB/s, limited by {limit_name(p.iops_limited_by)}.")
    return text


def _layout_row(e: InventoryLayout) -> list[str]:
    p = e.prediction
    return [e.mount_point or "(not mounted)", e.device, e.spec or "unknown",
            "" if e.instance is None else e.instance.spec,
            "" if e.used_bytes is None else f"{e.used_bytes / 1e9:,.0f} GB",
            "" if p is None else fmt_num(p.max_iops), "" if p is None else fmt_num(p.max_mbps),
            "" if p is None else f"{limit_name(p.iops_limited_by)}; {limit_name(p.mbps_limited_by)}",
            "; ".join(e.unknown)]


def _device_row(d: BlockNode) -> list[str]:
    ident = "unknown" if d.identity is None else f"{d.identity.cloud} {d.identity.volume_id or ''}".strip()
    vol = "" if d.volume is None else f"{d.volume.type} {d.volume.size_gb:g} GB" + (
        f" {d.volume.vpu_per_gb} VPU/GB" if d.volume.vpu_per_gb is not None else "") + (
        f" {d.volume.provisioned_iops:,} IOPS" if d.volume.provisioned_iops else "")
    return [d.name, d.kind, f"{d.size_bytes:,}", ", ".join(d.members), ident, vol,
            "" if d.identity is None else d.identity.evidence]


def section(inv: Inventory, source: str) -> Section:
    s = Section("inventory", f"Inventory: {inv.hostname or 'host'}", source, summary(inv))
    if inv.layouts:
        s.tables.append(Table("The layout under each mount point and what the model predicts for it",
                              ["mount point", "device", "layout", "instance", "used", "max IOPS", "max MB/s",
                               "limited by (IOPS; MB/s)", "unknown"],
                              [_layout_row(e) for e in inv.layouts], numeric={4, 5, 6}))
    if inv.devices:
        s.tables.append(Table("Block devices, and the cloud volume each is (from what the host shows)",
                              ["device", "kind", "bytes", "members", "cloud volume", "provider file", "evidence"],
                              [_device_row(d) for d in inv.devices], numeric={2}, wrap={6}))
    if inv.unmatched_volumes:
        s.lists.append(("Volumes the provider files name that no disk of this host matches",
                        list(inv.unmatched_volumes)))
    if inv.warnings:
        s.lists.append(("Warnings", list(inv.warnings)))
    if inv.instance_evidence:
        s.notes.append(f"Instance from: {inv.instance_evidence}.")
    return s
