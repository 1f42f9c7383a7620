"""`blockfit catalog`: which limits and prices blockfit believes, from which source, as of which date."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from blockfit.catalog import CLOUDS, Catalog, load_catalog, versions
from blockfit.catalog.models import VolumeType
from blockfit.cli import app, print_help_without_command
from blockfit.cli.common import CATALOG_HELP, catalog_for
from blockfit.cli.output import console, print_json

catalog_app = typer.Typer(help="Show the dated, sourced cloud limits and prices the model uses.",
                          invoke_without_command=True, callback=print_help_without_command)
app.add_typer(catalog_app, name="catalog")


@catalog_app.command("list")
def list_command(json_out: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Every catalog version of every cloud."""
    rows = [{"cloud": c, "version": v.isoformat(), "title": load_catalog(c, v).title} for c in CLOUDS
            for v in versions(c)]
    if json_out:
        print_json(rows)
        return
    table = Table("cloud", "version", "title")
    for r in rows:
        table.add_row(r["cloud"], r["version"], r["title"])
    console.print(table)


@catalog_app.command("show")
def show_command(
    cloud: Annotated[str, typer.Argument(help="oci, aws, azure or gcp")],
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the whole catalog version as JSON")] = False,
) -> None:
    """Volume types and levels, instance shapes, and the sources behind them."""
    cat = catalog_for(cloud, catalog, what="cloud")
    if json_out:
        print_json(cat)
        return
    console.print(f"[bold]{cat.title}[/] (version {cat.version}, {cat.path})")
    console.print(f"size unit: {cat.size_unit}")
    for key, vt in cat.volume_types.items():
        console.print(f"\n[bold]{key}[/]: {vt.name} — {vt.description}; {vt.min_gb:g}-{vt.max_gb:g} GB "
                      f"[dim](source {vt.source})[/]")
        if vt.levels:
            t = Table("level", "VPU/GB", "IOPS/GB", "max IOPS", "KB/s per GB", "max MB/s", "source")
            for lv in vt.levels:
                t.add_row(lv.name, str(lv.vpu), f"{lv.iops_per_gb:g}", f"{lv.max_iops:,.0f}", f"{lv.kbps_per_gb:g}",
                          f"{lv.max_mbps:,.0f}", lv.source)
            console.print(t)
        if vt.latencies:
            _latency_table(vt)
        if vt.note:
            console.print(f"  [dim]{vt.note}[/]")
    t = Table("shape", "kind", "OCPUs", "IOPS cap", "MB/s cap", "attach", "source", title="instance shapes",
              title_justify="left")
    for name, s in cat.shapes.items():
        ocpus = f"{s.ocpus_min:g}-{s.ocpus_max:g}" if s.kind == "flex" else (f"{s.ocpus:g}" if s.ocpus else "")
        iops = "20,000 x Gbps" if s.kind == "flex" else (f"{s.iops:,.0f}" if s.iops else "per tier")
        mbps = "120 x Gbps" if s.kind == "flex" else (f"{s.mbps:,.0f}" if s.mbps else "per tier")
        t.add_row(name, s.kind, ocpus, iops, mbps, str(s.attach_max or "?"), s.source)
    console.print(t)
    if cat.compute_prices:
        _compute_table(cat)
    st = Table("id", "date", "url", title="sources", title_justify="left")
    for src in cat.sources.values():
        st.add_row(src.id, src.date.isoformat(), src.url)
    console.print(st)
    for note in cat.notes:
        console.print(f"[dim]note: {note}[/]")


def _latency_table(vt: VolumeType) -> None:
    """The per-I/O time the queueing model uses, by shape family: all DERIVED from measurements (notes say how)."""
    t = Table("shape families", "attachment", "base ms", "path MB/s (transfer)", "host ms", "source",
              title=f"{vt.name}: unloaded time of one I/O", title_justify="left")
    for f in vt.latencies:
        t.add_row(", ".join(f.families), f.attachment or "any", f"{f.base_ms:g}",
                  f"{f.path_mbps:g}" if f.path_mbps else "", f"{f.host_ms:g}",
                  ", ".join(dict.fromkeys([f.source, *f.sources.values()])))
    console.print(t)


def _compute_table(cat: Catalog) -> None:
    """On-demand compute prices per hour (plan counts 730 h a month), each with its source."""
    t = Table("shape", "per OCPU-h", "per GB-h", "min GB/OCPU", "default GB/OCPU", "per hour", "region", "source",
              title="compute prices (USD, on demand; a month = 730 h)", title_justify="left")

    def fmt(v: float | None) -> str:
        return "" if v is None else f"{v:g}"
    for name, p in cat.compute_prices.items():
        t.add_row(name, fmt(p.per_ocpu_hour), fmt(p.per_gb_hour), fmt(p.memory_min_gb_per_ocpu),
                  fmt(p.memory_default_gb_per_ocpu), fmt(p.per_hour), p.region,
                  ", ".join(dict.fromkeys([p.source, *p.sources.values()])))
    console.print(t)
    unpriced = [s for s in cat.shapes if s not in cat.compute_prices]
    if unpriced:
        console.print(f"[dim]no compute price (compute cost unknown): {', '.join(unpriced)}[/]")
