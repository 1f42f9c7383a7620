"""`blockfit catalog`: which limits and prices blockfit believes, from which source, as of which date."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from blockfit.catalog import is_catalog_date, load_catalog, load_catalog_file, versions
from blockfit.cli import app, print_help_without_command
from blockfit.cli.common import CATALOG_HELP, catalog_for, supplied_by
from blockfit.cli.output import console, print_json
from blockfit.errors import InputError
from blockfit.schema.clouds import CLOUD_NAMES
from blockfit.terminal import cell, markup, safe
from blockfit.units import fmt_count
from blockfit.views.catalog import render_catalog

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
    render_catalog(cat, console)


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
