"""`blockfit fleet --from prometheus+http://HOST:PORT`: every host's history from a Prometheus-API server, a plan
per host beside its layout now, the fleet's totals. The options are parsed here into a FleetQuery and a template
of the hosts' Requirements before the first request; the library (`blockfit.fleet`) plans; this prints the answer
(a table by shortfall, the summary, one line per host that could not be planned)."""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from blockfit import lifecycle
from blockfit.catalog import Catalog
from blockfit.cli import app, params
from blockfit.cli.common import (
    ATTACHMENT_HELP,
    CATALOG_HELP,
    CLOUD_HELP,
    FLEET_CPUS_HELP,
    MEMORY_HELP,
    QUEUE_DEPTH_HELP,
    REDUNDANCY_HELP,
    catalog_for,
    comma_list,
    cpu_floor_or_range,
    ocpu_range,
    supplied_by,
)
from blockfit.cli.output import ReportOption, err_console, show_result, write_result
from blockfit.cli.shared import Shared
from blockfit.errors import InputError
from blockfit.files import check_target
from blockfit.fleet.hosts import FleetOptions
from blockfit.fleet.mapping import Mapping, load_mapping, with_defaults
from blockfit.fleet.promapi import Client, parse_source
from blockfit.fleet.query import (
    FleetQuery,
    SelectorProblem,
    check_selector,
    device_regex,
    parse_span,
    parse_until,
    window,
)
from blockfit.fleet.run import plan_fleet
from blockfit.plan.shapes import is_search
from blockfit.schema import Requirements
from blockfit.specs import parse_instance
from blockfit.terminal import one_line, safe
from blockfit.units import parse_volume_gb
from blockfit.views.fleet import render_fleet


@app.command("fleet")
def fleet_command(
    source: Annotated[str, typer.Option(
        "--from", help="the fleet's metrics server: prometheus+http://HOST:PORT[/PREFIX] (or https; Prometheus, "
                       "Thanos, Mimir, VictoriaMetrics), node_exporter's diskstats")],
    match: Annotated[str | None, typer.Option(help="label selector of the hosts, e.g. "
                                                   "'job=\"node\",instance=~\"db-.*\"'")] = None,
    range_: Annotated[str, typer.Option("--range", help="history to read, e.g. 30d")] = "30d",
    step: Annotated[str, typer.Option(help="sample interval, e.g. 1m; at least two scrapes per step")] = "1m",
    until: Annotated[str | None, typer.Option(help="end of the history, ISO 8601 or Unix seconds (default now)")]
    = None,
    devices: Annotated[str | None, typer.Option(help="comma list of each host's database devices, names or regular "
                                                     "expressions, e.g. dm-3 or 'sd[b-e]'",
                                                callback=params.comma_list)] = None,
    mount: Annotated[str | None, typer.Option(help="sum the device under this mount point instead of --devices")]
    = None,
    hosts: Annotated[Path | None, typer.Option(help="TOML file of each host's current layout, instance, capacity "
                                                    "and devices")] = None,
    concurrency: Annotated[int, typer.Option(help="queries at once", **params.NUMBER, callback=params.count)] = 4,
    percentile: Annotated[float | None, typer.Option(
        help="the steps' percentile to plan for: peak (100), p99.9, p99, p95 (default), median, or a number",
        parser=str, metavar="PERCENTILE", callback=params.history_percentile)] = None,
    headroom: Annotated[float, typer.Option(help="added on top of the percentile, e.g. 30%", **params.PERCENT,
                                            callback=params.growth_pct)] = 0.0,
    capacity: Annotated[str | None, typer.Option(help="usable capacity of a host the mapping file and its layout "
                                                      "say nothing about, e.g. 2T",
                                                 callback=params.volume_size)] = None,
    instance: Annotated[str | None, typer.Option(help="SHAPE[:OCPUS][/OPTION] of a host the mapping file and labels "
                                                      "say nothing about")] = None,
    cloud: Annotated[str | None, typer.Option(help=CLOUD_HELP)] = None,
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    growth: Annotated[float, typer.Option(help="extra capacity headroom in percent, e.g. 20%", **params.PERCENT,
                                          callback=params.growth_pct)] = 0.0,
    max_latency: Annotated[str | None, typer.Option(help="mean latency bound at the target IOPS, e.g. 2ms",
                                                    callback=params.latency)] = None,
    io_sizes: Annotated[str | None, typer.Option(help=params.IO_SIZES_HELP, callback=params.io_sizes)] = None,
    levels: Annotated[str | None, typer.Option(help="comma list of levels/types to consider, e.g. balanced,higher",
                                               callback=params.comma_list)] = None,
    max_volumes: Annotated[int | None, typer.Option(help="at most this many volumes (default: attach limit)",
                                                    **params.NUMBER, callback=params.count)] = None,
    manager: Annotated[str | None, typer.Option(help="volume manager: lvm, mdadm or asm; default lvm, or what "
                                                     "--redundancy needs")] = None,
    redundancy: Annotated[str, typer.Option(help=REDUNDANCY_HELP)] = "none",
    memory: Annotated[str | None, typer.Option(help=MEMORY_HELP, callback=params.volume_size)] = None,
    cpus: Annotated[str | None, typer.Option(help=FLEET_CPUS_HELP, callback=params.cpus)] = None,
    attach: Annotated[str | None, typer.Option("--attachment", help=ATTACHMENT_HELP)] = None,
    paths: Annotated[int | None, typer.Option(help="paths per volume the host can use", **params.NUMBER,
                                              callback=params.count)] = None,
    queue_depth: Annotated[int | None, typer.Option(help=QUEUE_DEPTH_HELP, **params.NUMBER,
                                                    callback=params.count)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the fleet result as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="write the fleet result to this file")] = None,
    report: ReportOption = None,
    # the old spellings, still taken (hidden), each saying its new spelling once
    small_io: Annotated[str | None, typer.Option(hidden=True, callback=params.io_size)] = None,
    large_io: Annotated[str | None, typer.Option(hidden=True, callback=params.io_size)] = None,
    ocpus: Annotated[str | None, typer.Option(hidden=True)] = None,
) -> None:
    """Plan every host of a fleet from its history in Prometheus: who is under- or over-provisioned, and the
    cost."""
    if out is not None:
        check_target(out, "--out")
    if ocpus is not None:
        ocpu_range(ocpus, "--ocpus")
    renamed = params.Renamed()
    small, large = renamed.io_sizes(io_sizes, small_io, large_io)
    cpus = renamed.pick("--cpus", cpus, "--ocpus", ocpus, f"--cpus {ocpus}")
    shared = Shared(cloud=cloud, catalog=catalog, growth=growth, max_latency=max_latency, small_io=small,
                    large_io=large, levels=levels, max_volumes=max_volumes, manager=manager,
                    redundancy=redundancy, memory=memory, attach=attach, paths=paths, queue_depth=queue_depth,
                    ocpus=None if cpus is None else cpu_floor_or_range(cpus)[1] or f"{cpus.strip()}-")
    renamed.warn()
    args = FleetArgs(source=source, match=match, range=range_, step=step, until=until, mount=mount, hosts=hosts,
                     concurrency=concurrency, devices=comma_list(devices, "--devices"))
    run_fleet(args, shared, percentile, headroom, capacity, instance, json_out, out, report)


@dataclass
class FleetArgs:
    """The fleet's own options as given (text), parsed by `query` before the first request."""

    source: str
    devices: list[str] | None = None
    match: str | None = None
    range: str = "30d"
    step: str = "1m"
    until: str | None = None
    mount: str | None = None
    hosts: Path | None = None
    concurrency: int = 4

    def query(self, percentile: float) -> tuple[FleetQuery, Mapping]:
        """The typed query (window, selector, device rules) and the mapping file, or an InputError."""
        with supplied_by("--range"):
            range_s = parse_span(self.range, minimum_s=2)
        with supplied_by("--step"):
            step_s = parse_span(self.step, maximum_s=86400)
        with supplied_by("--until"):
            end = parse_until(self.until, time.time())
        if not 1 <= self.concurrency <= 64:
            raise InputError(f"--concurrency {self.concurrency}: expected a whole number from 1 to 64")
        if self.mount is not None and (not self.mount.startswith("/")
                                       or any(not c.isprintable() for c in self.mount)):
            raise InputError(f"--mount {self.mount!r}: expected an absolute mount point, e.g. /u01")
        if self.mount is not None and self.devices:
            raise InputError("--mount: give --devices or --mount, not both")
        if range_s < 2 * step_s:
            raise InputError(f"--range {self.range}: expected at least two steps of --step {self.step}")
        with supplied_by("--hosts"):
            mapping = load_mapping(self.hosts) if self.hosts is not None else Mapping()
        with supplied_by("--match"):
            match = check_selector(self.match)
        with supplied_by("--devices"):
            devices = device_regex(self.devices)
        with supplied_by("--range"):
            span = window(end, range_s, step_s)
        query = with_defaults(FleetQuery(match=match, window=span, percentile=percentile, devices=devices,
                                         mount=self.mount, concurrency=self.concurrency), mapping)
        if query.devices is None and query.mount is None and not query.overrides:
            raise InputError("--devices or --mount: name the database's devices (a comma list of names or regular "
                             "expressions, e.g. dm-3 or 'sd[b-e]') or its mount point (e.g. /u01)")
        return query, mapping


def fleet_options(shared: Shared, cat: Catalog, percentile: float, headroom_pct: float, capacity: str | None,
                  instance: str | None) -> FleetOptions:
    """What every host's plan shares: the template of its Requirements (capacity, targets, instance and history
    filled per host), parsed once."""
    if instance is not None and is_search(cat, instance):
        raise InputError(f"--instance {instance}: a fleet plans each host on one shape (its own, or the one "
                         "named here); searching a family or every shape goes with one workload (blockfit plan)")
    inst = parse_instance(instance, cat.cloud, cat, require_count=False) if instance else None
    template: Requirements = shared.requirements(cat.cloud, capacity_gb=1, instance_shape=inst.shape if inst else "")
    return FleetOptions(template=template, percentile=percentile, headroom_pct=headroom_pct,
                        capacity_gb=None if capacity is None else parse_volume_gb(capacity, "--capacity"),
                        instance=instance)


def run_fleet(args: FleetArgs, shared: Shared, percentile_given: float | None, headroom_pct: float,
              capacity: str | None, instance: str | None, json_out: bool, out: Path | None,
              report: Path | None) -> None:
    """Check every option before the first request, plan the fleet, print it; exit 2 or 4 after printing when a
    host could not be planned (the input's fault or the server's)."""
    with supplied_by("--from"):
        source = parse_source(args.source)
    percentile = 95.0 if percentile_given is None else percentile_given
    query, mapping = args.query(percentile)
    cat = catalog_for(shared.cloud, shared.catalog)
    opts = fleet_options(shared, cat, percentile, headroom_pct, capacity, instance)
    client = Client(source)
    progress = None
    if not json_out and sys.stderr.isatty():
        def progress(text: str) -> None:
            err_console.print(f"  {safe(text)} planned", end="\r", highlight=False, markup=False)
    try:   # the selector's problems are found mid-run; every other problem keeps its own words
        with lifecycle.interrupting(signal.SIGTERM), supplied_by("--match", only=SelectorProblem):
            result = plan_fleet(client, query, mapping, opts, cat, progress)
    except KeyboardInterrupt:   # the planner processes are gone; nothing was written
        print("blockfit: error: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    if out is not None:
        write_result(result, out)
    show_result(result, report, json_out, render_fleet)
    for p in result.problems:
        print(f"blockfit: {'server' if p.cause == 'server' else 'input'}: {one_line(p.message)}", file=sys.stderr)
    if any(p.cause == "server" for p in result.problems):
        raise typer.Exit(4)
    if result.problems:
        raise typer.Exit(2)
