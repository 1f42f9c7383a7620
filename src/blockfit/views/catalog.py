"""`blockfit catalog show` on the terminal: a catalog version's volume types and levels, instance shapes, compute
prices and the sources behind them."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from blockfit.catalog import Catalog
from blockfit.catalog.models import InstanceRule, Shape, VolumeType, tier_caps
from blockfit.model.kinds.base import Cloud
from blockfit.model.kinds.clouds import cloud_of
from blockfit.terminal import cell, markup


def render_catalog(cat: Catalog, console: Console) -> None:
    """The catalog for people: its heading, each volume type, the shapes, the compute prices, the sources."""
    shipped = "shipped" if cat.based_on is None else f"imported over the shipped {cat.based_on}, {cat.path}"
    console.print(f"[bold]{markup(cat.title)}[/] (version {cat.version}, {markup(shipped)})")
    console.print(f"size unit: {markup(cat.size_unit)}")
    for key, vt in cat.volume_types.items():
        _print_volume_type(key, vt, console)
    console.print(_shapes_table(cat))
    if cat.compute_prices:
        _print_compute_prices(cat, console)
    st = Table("id", "date", "url", title="sources", title_justify="left")
    for src in cat.sources.values():
        st.add_row(cell(src.id), cell(src.date.isoformat()), cell(src.url))
    console.print(st)
    for note in cat.notes:
        console.print(f"[dim]note: {markup(note)}[/]")


def _print_volume_type(key: str, vt: VolumeType, console: Console) -> None:
    """One volume type: its line, its levels' table, its latency table and its note, each where it has them."""
    console.print(f"\n[bold]{markup(key)}[/]: {markup(vt.name)} — {markup(vt.description)}; {vt.min_gb:g}-"
                  f"{vt.max_gb:g} GB [dim](source {markup(vt.source)})[/]")
    if vt.levels:
        t = Table("level", "VPU/GB", "IOPS/GB", "max IOPS", "KB/s per GB", "max MB/s", "source")
        for lv in vt.levels:
            t.add_row(*(cell(v) for v in (lv.name, str(lv.vpu), f"{lv.iops_per_gb:g}", f"{lv.max_iops:,.0f}",
                                           f"{lv.kbps_per_gb:g}", f"{lv.max_mbps:,.0f}", lv.source)))
        console.print(t)
    if vt.latencies:
        console.print(_latency_table(vt))
    if vt.note:
        console.print(f"  [dim]{markup(vt.note)}[/]")


def _shapes_table(cat: Catalog) -> Table:
    t = Table("shape", "kind", "OCPUs", "vCPUs", "memory GB", "IOPS cap", "MB/s cap", "attach", "source",
              title="instance shapes", title_justify="left")
    entry = cloud_of(cat.cloud)
    for name, s in cat.shapes.items():
        iops, mbps = _caps(s, entry, cat.instance_rule)
        t.add_row(*(cell(v) for v in (name, s.kind, _ocpus(s, entry), "" if s.vcpus is None else str(s.vcpus),
                                      "" if s.memory_gb is None else f"{s.memory_gb:g}", iops, mbps, _attach(s),
                                      ", ".join(dict.fromkeys([s.source, *s.sources.values()])))))
    return t


def _ocpus(s: Shape, entry: Cloud) -> str:
    """A flexible shape's range of OCPUs, a fixed one's count, or nothing where the catalog has none."""
    if entry.sized_by_count(s):
        return f"{s.ocpus_min:g}-{s.ocpus_max:g}"
    return f"{s.ocpus:g}" if s.ocpus else ""


def _caps(s: Shape, entry: Cloud, rule: InstanceRule | None) -> tuple[str, str]:
    """The shape's IOPS and MB/s caps: per Gbps of its network for a shape sized by its count (the catalog's
    instance rule), else its own figures ('per tier' where its size tiers carry them)."""
    per_tier = "per tier" if not s.tiers or _tier_caps(s) else "unknown"
    iops, mbps = _figure(s, "iops", per_tier), _figure(s, "mbps", per_tier)
    if rule is not None and entry.sized_by_count(s):
        iops = iops if "iops" in s.unknown else f"{rule.iops_per_gbps:,.0f} x Gbps"
        mbps = mbps if "mbps" in s.unknown else f"{rule.mbps_per_gbps:g} x Gbps"
    return iops, mbps


def _tier_caps(s: Shape) -> bool:
    """Do the shape's size tiers carry per-volume-type caps (GCP N2: {pd-ssd = {iops, mbps}}), not only counts?"""
    return any(tier_caps(t) for t in s.tiers)


def _attach(s: Shape) -> str:
    """The volumes the shape attaches: one figure, or the range its size tiers give (GCP C4: 8 at 2 vCPUs up to 128
    from 96), 'some unknown' where a tier has none."""
    if s.attach_max:
        return str(s.attach_max)
    per_size = [t.get("attach_max") for t in s.tiers]
    known = sorted({int(v) for v in per_size if v is not None})
    if known:
        span = f"{known[0]}" if len(known) == 1 else f"{known[0]}-{known[-1]}"
        return f"{span} by size" + ("; some unknown" if None in per_size else "")
    return "unknown" if "attach_max" in s.unknown else "?"


def _figure(s: Shape, name: str, fallback: str) -> str:
    value = getattr(s, name)
    if value is not None:
        return f"{value:,.6g}"
    return "unknown" if name in s.unknown else fallback


def _latency_table(vt: VolumeType) -> Table:
    """The per-I/O time the queueing model uses, by shape family: all DERIVED from measurements (notes say how)."""
    t = Table("shape families", "attachment", "base ms", "path MB/s (transfer)", "host ms", "source",
              title=cell(f"{vt.name}: unloaded time of one I/O"), title_justify="left")
    for f in vt.latencies:
        t.add_row(*(cell(v) for v in (", ".join(f.families), f.attachment or "any", f"{f.base_ms:g}",
                                      f"{f.path_mbps:g}" if f.path_mbps else "", f"{f.host_ms:g}",
                                      ", ".join(dict.fromkeys([f.source, *f.sources.values()])))))
    return t


def _print_compute_prices(cat: Catalog, console: Console) -> None:
    """On-demand compute prices per hour (plan counts 730 h a month), each with its source; then the shapes
    without one."""
    t = Table("shape", "per OCPU-h", "per GB-h", "min GB/OCPU", "default GB/OCPU", "per hour", "region", "source",
              title="compute prices (USD, on demand; a month = 730 h)", title_justify="left")

    def fmt(v: float | None) -> str:
        return "" if v is None else f"{v:g}"
    for name, p in cat.compute_prices.items():
        t.add_row(*(cell(v) for v in (name, fmt(p.per_ocpu_hour), fmt(p.per_gb_hour), fmt(p.memory_min_gb_per_ocpu),
                                      fmt(p.memory_default_gb_per_ocpu), fmt(p.per_hour), p.region,
                                      ", ".join(dict.fromkeys([p.source, *p.sources.values()])))))
    console.print(t)
    unpriced = [s for s in cat.shapes if s not in cat.compute_prices]
    if unpriced:
        console.print(f"[dim]no compute price (compute cost unknown): {markup(', '.join(unpriced))}[/]")
