"""`blockfit plan --from prometheus+http://HOST:PORT`: the fleet's options checked, the library called, the answer
printed (a table by shortfall, the summary, one line per host that could not be planned)."""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.table import Table

from blockfit.catalog import Catalog
from blockfit.cli.output import console, err_console, print_json, save_report
from blockfit.errors import InputError
from blockfit.files import write_atomically
from blockfit.fleet.promapi import Client, parse_source
from blockfit.fleet.query import (
    FleetQuery,
    check_selector,
    device_regex,
    fmt_span,
    parse_span,
    parse_until,
    window,
)
from blockfit.fleet.hosts import FleetOptions, Mapping, load_mapping, plan_fleet, with_defaults
from blockfit.schema import Requirements
from blockfit.schema.fleet import FleetResult
from blockfit.terminal import cell, markup, one_line, safe
from blockfit.units import fmt_count, fmt_money, fmt_num

FLEET_OPTIONS = ("--match", "--range", "--step", "--until", "--mount", "--hosts", "--concurrency")


@dataclass
class FleetArgs:
    """The fleet's own options, as typed."""

    source: str
    match: str | None
    range: str | None
    step: str | None
    until: str | None
    mount: str | None
    hosts: Path | None
    concurrency: int | None
    devices: list[str] | None

    def given(self) -> list[str]:
        values = (self.match, self.range, self.step, self.until, self.mount, self.hosts, self.concurrency)
        return [name for name, v in zip(FLEET_OPTIONS, values, strict=True) if v is not None]


def refuse_without_source(args: FleetArgs) -> None:
    """The fleet options mean nothing for a history file."""
    for name in args.given():
        raise InputError(f"{name}: goes with --from prometheus+http://HOST:PORT (a fleet's history in Prometheus)")


def run_fleet(args: FleetArgs, template: Requirements, cat: Catalog, percentile: float, headroom_pct: float,
              capacity: str | None, instance: str | None, json_out: bool, out: Path | None,
              report: Path | None) -> None:
    """Check every option before the first request, plan the fleet, print it; exit 2 or 4 after printing when a
    host could not be planned (the input's fault or the server's)."""
    source = parse_source(args.source)
    range_s = parse_span(args.range or "30d", "--range", minimum_s=2)
    step_s = parse_span(args.step or "1m", "--step", maximum_s=86400)
    end = parse_until(args.until, time.time())
    if args.concurrency is not None and not 1 <= args.concurrency <= 64:
        raise InputError(f"--concurrency {args.concurrency}: expected a whole number from 1 to 64")
    if args.mount is not None and (not args.mount.startswith("/") or any(not c.isprintable() for c in args.mount)):
        raise InputError(f"--mount {args.mount!r}: expected an absolute mount point, e.g. /u01")
    if args.mount is not None and args.devices:
        raise InputError("--mount: give --devices or --mount, not both")
    mapping = load_mapping(args.hosts) if args.hosts is not None else Mapping()
    query = with_defaults(FleetQuery(
        match=check_selector(args.match), window=window(end, range_s, step_s), percentile=percentile,
        devices=device_regex(args.devices), mount=args.mount, concurrency=args.concurrency or 4), mapping)
    if query.devices is None and query.mount is None and not query.overrides:
        raise InputError("--devices or --mount: name the database's devices (a comma list of names or regular "
                         "expressions, e.g. dm-3 or 'sd[b-e]') or its mount point (e.g. /u01)")
    opts = FleetOptions(template=template, percentile=percentile, headroom_pct=headroom_pct, capacity=capacity,
                        instance=instance)
    client = Client(source)
    progress = None
    if not json_out and sys.stderr.isatty():
        def progress(text: str) -> None:
            err_console.print(f"  {safe(text)} planned", end="\r", highlight=False, markup=False)
    previous = signal.signal(signal.SIGTERM, _interrupt)   # SIGTERM cleans up as Ctrl-C does (planner processes)
    try:
        result = plan_fleet(client, query, mapping, opts, cat, progress)
    except KeyboardInterrupt:   # the planner processes are gone; nothing was written
        print("blockfit: error: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if out is not None:
        write_atomically(out, result.model_dump_json(indent=2) + "\n", what="--out")
    save_report(result, report)
    if json_out:
        print_json(result)
    else:
        render_fleet(result)
    for p in result.problems:
        print(f"blockfit: {'server' if p.cause == 'server' else 'input'}: {one_line(p.message)}", file=sys.stderr)
    if any(p.cause == "server" for p in result.problems):
        raise typer.Exit(4)
    if result.problems:
        raise typer.Exit(2)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


STATUS_STYLE = {"under": "bold red", "over": "yellow", "within": "green", "unknown": "dim"}


def render_fleet(r: FleetResult) -> None:
    s = r.summary
    console.print(f"[bold]Fleet[/] {markup(r.source)} {{{markup(r.match)}}}: {fmt_count(s.planned, 'host')} "
                  "planned from "
                  f"p{r.percentile:g} of {fmt_span(r.range_s)} at {fmt_span(r.step_s)} steps"
                  f"{f' + {r.headroom_pct:g} % headroom' if r.headroom_pct else ''} ({r.cloud} catalog "
                  f"{r.catalog_version})")
    table = Table(title=f"Hosts, largest shortfall first: target = p{r.percentile:g} IOPS"
                        f"{' + headroom' if r.headroom_pct else ''}, $ a month", title_justify="left")
    for col in ("host", "status", "target", "now", "delivers", "short", "recommended", "now $", "rec. $"):
        table.add_column(col, justify="left" if col in ("host", "status", "now", "recommended") else "right",
                         no_wrap=col != "recommended")
    for h in r.hosts:
        best = h.plan.candidates[0] if h.plan is not None else None
        rec = h.recommended_cost
        same = best is None or (h.now is not None and best.instance == h.now.instance)
        where = "" if same or best is None else f" on {best.instance}"
        rest = (fmt_num(h.targets.target_iops),
                h.now.layout if h.now else "–", fmt_num(h.now.max_iops) if h.now else "–",
                "–" if h.shortfall_pct is None else f"{h.shortfall_pct:+.0f} %",
                f"{best.layout}{where}" if best else f"none ({h.infeasible})",
                fmt_money(h.now.cost.total) if h.now else "–", fmt_money(rec.total) if rec else "–")
        # host names and labels come from the server: cells of escaped text, never markup
        table.add_row(cell(h.host), cell(h.status, STATUS_STYLE[h.status]), *(cell(v) for v in rest))
    console.print(table)
    console.print(f"[bold]{s.under}[/] under-provisioned, [bold]{s.within}[/] within, [bold]{s.over}[/] "
                  f"over-provisioned" + (f", {s.unknown} without a current layout" if s.unknown else "")
                  + (f"; {s.problems} not planned (below)" if s.problems else ""))
    console.print(f"Monthly cost of {fmt_count(s.priced, 'host')}: now {fmt_money(s.cost_now.total)}, recommended "
                  f"{fmt_money(s.cost_recommended.total)}"
                  + ("" if s.savings is None else f" ({'saves' if s.savings >= 0 else 'adds'} "
                                                  f"{fmt_money(abs(s.savings))} a month)"))
    if s.largest_shortfalls:
        console.print("Largest shortfalls: " + ", ".join(f"{safe(a.host)} {a.value:+.0f} %"
                                                         for a in s.largest_shortfalls), markup=False)
    if s.largest_savings:
        console.print("Largest savings: " + ", ".join(f"{safe(a.host)} {fmt_money(a.value)}"
                                                      for a in s.largest_savings), markup=False)
    for h in r.hosts:
        for note in [*h.targets.skipped, *h.notes]:
            console.print(f"note: {safe(h.host)}: {safe(note)}", highlight=False, markup=False)
