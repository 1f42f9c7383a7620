"""`blockfit catalog`: which limits and prices blockfit believes, from which source, as of which date."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from blockfit.catalog import Catalog, is_catalog_date, load_catalog, load_catalog_file, versions
from blockfit.catalog.models import Shape, VolumeType, tier_caps
from blockfit.cli import app, print_help_without_command
from blockfit.cli.common import CATALOG_HELP, catalog_for, supplied_by
from blockfit.cli.output import console, print_json
from blockfit.errors import InputError
from blockfit.model.kinds.clouds import cloud_of
from blockfit.schema.clouds import CLOUD_NAMES
from blockfit.terminal import cell, markup, safe
from blockfit.units import fmt_count

catalog_app = typer.Typer(help="Show the dated, sourced cloud limits and prices the model uses.",
                          invoke_without_command=True, callback=print_help_without_command)
app.add_typer(catalog_app, name="catalog")


@catalog_app.command("list")
def list_command(
    catalog: Annotated[list[str] | None, typer.Option(help="also list this catalog file (repeatable), e.g. one "
                                                            "'blockfit catalog import' wrote")] = None,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Every shipped catalog version of every cloud, and the catalog files named with --catalog."""
    rows: list[dict[str, Any]] = [{"cloud": c, "version": v.isoformat(), "title": load_catalog(c, v).title,
                                   "file": None, "based_on": None} for c in CLOUD_NAMES for v in versions(c)]
    for path in catalog or []:
        cat = load_catalog_file(path)
        rows.append({"cloud": cat.cloud, "version": cat.version.isoformat(), "title": cat.title, "file": path,
                     "based_on": cat.based_on.isoformat() if cat.based_on else None})
    if json_out:
        print_json(rows)
        return
    table = Table("cloud", "version", "title", "file")
    for r in rows:
        table.add_row(*(cell(v) for v in (r["cloud"], r["version"], r["title"], r["file"] or "shipped")))
    console.print(table)


@catalog_app.command("show")
def show_command(
    cloud: Annotated[str | None, typer.Argument(help="oci, aws, azure or gcp (default: the --catalog file's)")] = None,
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the whole catalog version as JSON")] = False,
) -> None:
    """Volume types and levels, instance shapes, and the sources behind them."""
    if cloud is None and (catalog is None or is_catalog_date(catalog)):
        raise InputError("catalog show: expected a CLOUD (oci, aws, azure, gcp) or --catalog PATH (a date needs the "
                         "CLOUD too)")
    cat = catalog_for(cloud, catalog, what="cloud")
    if json_out:
        print_json(cat)
        return
    shipped = "shipped" if cat.based_on is None else f"imported over the shipped {cat.based_on}, {cat.path}"
    console.print(f"[bold]{markup(cat.title)}[/] (version {cat.version}, {markup(shipped)})")
    console.print(f"size unit: {markup(cat.size_unit)}")
    for key, vt in cat.volume_types.items():
        console.print(f"\n[bold]{markup(key)}[/]: {markup(vt.name)} — {markup(vt.description)}; {vt.min_gb:g}-"
                      f"{vt.max_gb:g} GB [dim](source {markup(vt.source)})[/]")
        if vt.levels:
            t = Table("level", "VPU/GB", "IOPS/GB", "max IOPS", "KB/s per GB", "max MB/s", "source")
            for lv in vt.levels:
                t.add_row(*(cell(v) for v in (lv.name, str(lv.vpu), f"{lv.iops_per_gb:g}", f"{lv.max_iops:,.0f}",
                                               f"{lv.kbps_per_gb:g}", f"{lv.max_mbps:,.0f}", lv.source)))
            console.print(t)
        if vt.latencies:
            _latency_table(vt)
        if vt.note:
            console.print(f"  [dim]{markup(vt.note)}[/]")
    t = Table("shape", "kind", "OCPUs", "vCPUs", "memory GB", "IOPS cap", "MB/s cap", "attach", "source",
              title="instance shapes", title_justify="left")
    entry = cloud_of(cat.cloud)
    for name, s in cat.shapes.items():
        ocpus = f"{s.ocpus_min:g}-{s.ocpus_max:g}" if entry.sized_by_count(s) else (f"{s.ocpus:g}" if s.ocpus else "")
        per_tier = "per tier" if not s.tiers or _tier_caps(s) else "unknown"
        rule = cat.instance_rule
        iops = (f"{rule.iops_per_gbps:,.0f} x Gbps" if entry.sized_by_count(s) and rule and "iops" not in s.unknown
                else _figure(s, "iops", per_tier))
        mbps = (f"{rule.mbps_per_gbps:g} x Gbps" if entry.sized_by_count(s) and rule and "mbps" not in s.unknown
                else _figure(s, "mbps", per_tier))
        t.add_row(*(cell(v) for v in (name, s.kind, ocpus, "" if s.vcpus is None else str(s.vcpus),
                                      "" if s.memory_gb is None else f"{s.memory_gb:g}", iops, mbps, _attach(s),
                                      ", ".join(dict.fromkeys([s.source, *s.sources.values()])))))
    console.print(t)
    if cat.compute_prices:
        _compute_table(cat)
    st = Table("id", "date", "url", title="sources", title_justify="left")
    for src in cat.sources.values():
        st.add_row(cell(src.id), cell(src.date.isoformat()), cell(src.url))
    console.print(st)
    for note in cat.notes:
        console.print(f"[dim]note: {markup(note)}[/]")


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


def _latency_table(vt: VolumeType) -> None:
    """The per-I/O time the queueing model uses, by shape family: all DERIVED from measurements (notes say how)."""
    t = Table("shape families", "attachment", "base ms", "path MB/s (transfer)", "host ms", "source",
              title=cell(f"{vt.name}: unloaded time of one I/O"), title_justify="left")
    for f in vt.latencies:
        t.add_row(*(cell(v) for v in (", ".join(f.families), f.attachment or "any", f"{f.base_ms:g}",
                                      f"{f.path_mbps:g}" if f.path_mbps else "", f"{f.host_ms:g}",
                                      ", ".join(dict.fromkeys([f.source, *f.sources.values()])))))
    console.print(t)


def _compute_table(cat: Catalog) -> None:
    """On-demand compute prices per hour (plan counts 730 h a month), each with its source."""
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


@catalog_app.command("import")
def import_command(
    files: Annotated[list[str], typer.Argument(help="the provider CLI's JSON output: aws ec2 describe-instance-types "
                                               "and an AWS Price List file; az vm list-skus and a Retail Prices API "
                                               "response; oci compute shape list and the OCI products price list; "
                                               "GCP Cloud Billing Catalog SKUs (prices only)")],
    cloud: Annotated[str, typer.Option(help="aws, azure, gcp or oci")],
    out: Annotated[Path, typer.Option(help="the catalog file to write (TOML), for --catalog PATH")],
    catalog: Annotated[str | None, typer.Option(help="the catalog to start from: a date YYYY-MM-DD / YYYY-MM (the "
                                                     "shipped version in force) or a catalog file; default the "
                                                     "newest shipped")] = None,
    region: Annotated[str | None, typer.Option(help="the price region to take when a price file holds several "
                                                    "(AWS regionCode, Azure armRegionName, GCP region)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the ImportResult as JSON")] = False,
) -> None:
    """Refresh a catalog from your own provider CLI's output (blockfit needs no network): the newest shipped catalog
    with the imported shapes added or updated, each imported figure citing its file and that file's date."""
    from blockfit.catalog import importers

    with supplied_by("--cloud"):
        importers.check_cloud(cloud)
    base = catalog_for(cloud, catalog)
    with supplied_by("--catalog:"):
        importers.check_base(cloud, base)
    inputs = importers.load_files(cloud, files, out)
    with supplied_by("--out"):
        importers.check_out(out, inputs)
    with supplied_by("--region"):
        importers.check_region(cloud, region, inputs)
    with supplied_by("--region", only=importers.RegionProblem):
        result = importers.import_files(cloud, inputs, out, base, region)
    if json_out:
        print_json(result)
        return
    console.print(f"[bold]wrote {markup(result.out)}[/]: {cloud} catalog {result.version} over the shipped "
                  f"{result.based_on}: {fmt_count(len(result.added), 'shape')} added, "
                  f"{len(result.replaced):,} updated, "
                  f"{fmt_count(result.prices, 'compute price')}", highlight=False)
    for f in result.files:
        console.print(safe(f"  {f.source}: {f.path} ({f.format}, dated {f.date}): {f.entries} entries"),
                      highlight=False, markup=False)
    if result.changes:
        t = Table("entry", "field", "old", "new", title="figures the import changed (old -> new)",
                  title_justify="left")
        for ch in result.changes:
            t.add_row(*(cell(v) for v in (ch.item, ch.field, "unknown" if ch.old is None else f"{ch.old}",
                                          "none" if ch.new is None else f"{ch.new}")))
        console.print(t)
    else:
        console.print("  no figure of the base catalog changed")
    for line in [*result.skipped, *result.notes]:
        console.print(f"  [dim]{markup(line)}[/]", highlight=False)
    console.print(safe(f"use it with --catalog {result.out} (model, plan, lab; catalog show --catalog {result.out})"),
                  highlight=False, markup=False)
