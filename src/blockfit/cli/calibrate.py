"""`blockfit calibrate TARGET...`: max IOPS at a latency bound, max MB/s and latency, measured with fio."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from blockfit.cli import app, burstopts, params
from blockfit.cli.common import supplied_by
from blockfit.cli.output import ReportOption, console, err_console, print_json, save_report
from blockfit.errors import InputError
from blockfit.files import check_distinct, check_target, write_atomically
from blockfit.measure.calibrate import CalibrateOptions, ProgressFn, calibrate
from blockfit.model.burst import burst_seconds, fmt_duration, measured_words
from blockfit.schema import Prediction
from blockfit.schema.measurement import Measurement
from blockfit.terminal import markup
from blockfit.units import parse_duration, parse_io_size


def _percent(text: str) -> float:
    try:
        return float(text.rstrip("%"))
    except ValueError:
        raise InputError(f"--percentile {text!r}: expected a number such as 95 or 99.9") from None


def _gain(gain: float | None, flat: bool) -> str:
    """'+95%', or 'flat +2%' for a doubling the search went past without stopping."""
    if gain is None:
        return ""
    return ("flat " if flat else "") + f"{gain:+.0%}"


def _table(m: Measurement) -> Table:
    """The curve: p50/p95/p99 always, plus a column for the bound's percentile when it is none of those."""
    extra = m.percentile not in (50, 95, 99)
    t = Table(title=f"curve (small I/O, then large I/O); bound: p{m.percentile:g} <= {m.max_latency_ms:g} ms")
    for col in ("phase", "outstanding", "IOPS", "MB/s", "p50 ms", "p95 ms", "p99 ms",
                *([f"p{m.percentile:g} ms"] if extra else []), "avg ms", "gain", "bound", "steady"):
        t.add_column(col, justify="right")
    for p in m.curve:
        t.add_row(p.phase, str(p.outstanding), f"{p.iops:,.0f}", f"{p.mbps:,.1f}", f"{p.p50_ms:.3f}",
                  f"{p.p95_ms:.3f}", f"{p.p99_ms:.3f}", *([f"{p.percentile_ms:.3f}"] if extra else []),
                  f"{p.avg_ms:.3f}", _gain(p.gain, p.flat),
                  "" if p.within_bound is None else ("ok" if p.within_bound else "over"),
                  ("yes" if p.steady else "no") + (" (again)" if p.confirmed else ""))
    return t


def _print_human(m: Measurement) -> None:
    console.print(_table(m))
    if m.member_share_at_max_iops:
        shares = ", ".join(f"{k} {v:.1%}" for k, v in m.member_share_at_max_iops.items())
        console.print(f"member share at max IOPS: {shares}", markup=False, highlight=False)
    if m.host_iops_at_max_iops:
        hosts = ", ".join(f"{k} {v:,.0f}" for k, v in m.host_iops_at_max_iops.items())
        console.print(f"host IOPS at max IOPS: {hosts}", markup=False, highlight=False)
    console.print(f"max_iops    {m.max_iops:,.0f}  ({m.small_io // 1024} KiB, {m.outstanding_at_max_iops} outstanding, "
                  f"p{m.percentile:g} <= {m.max_latency_ms:g} ms{'' if m.bound_met else ': BOUND NEVER MET'})")
    if m.outstanding_at_max_mbps:
        console.print(f"max_mbps    {m.max_mbps:,.1f}  ({m.large_io // 1024} KiB, {m.outstanding_at_max_mbps} "
                      "outstanding)")
    else:
        console.print("max_mbps    not measured (the run stopped before the large-I/O phase)")
    console.print(f"latency_ms  {m.latency_ms:.3f} p{m.percentile:g}, {m.avg_latency_ms:.3f} average (CALIBRATE_IO's)")
    engines = m.engine + (f" (large I/O: {m.large_engine})" if m.large_engine else "")
    console.print(f"{m.fio_version}, {engines}, direct={int(m.direct)}, kernel {m.kernel}, {m.elapsed_s:.0f}s",
                  markup=False, highlight=False)
    for w in m.warnings:
        console.print(f"[yellow]warning:[/yellow] {markup(w)}")


def _layout_measured(cloud: str | None, layout: str | None, instance: str | None,
                     sustained: bool) -> Prediction | None:
    """The prediction whose burst the measurement is judged against (the trio: all three or none); --sustained
    needs it (how long the burst lasts comes from the catalog)."""
    if sustained and not burstopts.given(cloud, layout, instance):
        raise InputError("--sustained: expected --cloud, --layout and --instance (how long the burst lasts "
                         "comes from the catalog)")
    return burstopts.measured_layout(cloud, layout, instance)


# the option that carries each field CalibrateOptions checks
OPTION_OF = {"percentile": "--percentile", "max_latency_ms": "--max-latency", "write_pct": "--write",
             "duration_s": "--duration", "small_io,large_io": "--io-sizes", "engine": "--engine", "hosts": "--host"}


def _calibrate(targets: list[str], options: CalibrateOptions, progress: ProgressFn | None) -> Measurement:
    """calibrate, naming --size: with the options checked above, the one value problem left is a test file too
    large for a directory target's free space (known only when the target is resolved)."""
    with supplied_by("--size"):
        return calibrate(targets, options, progress=progress)


@app.command("calibrate")
def calibrate_command(
    targets: Annotated[list[str], typer.Argument(metavar="TARGET", help="a directory (a test file is created "
                                                 "there), a file, or block device(s); several = a simulated stripe")],
    max_latency: Annotated[str, typer.Option("--max-latency", help="latency bound at the percentile",
                                                       callback=params.duration)] = "20ms",
    percentile: Annotated[str, typer.Option("--percentile", help="latency percentile the bound applies to",
                                                      callback=params.percentile)] = "95",
    io_sizes: Annotated[str | None, typer.Option("--io-sizes", help=f"{params.IO_SIZES_HELP}: the database block "
                                                 "and the scan I/O size, max IOPS at SMALL, max MB/s at LARGE",
                                                 callback=params.io_sizes)] = None,
    duration: Annotated[str, typer.Option("--duration", help="total time budget for the measurement (laying "
                                          "out a test file in a directory comes on top)",
                                          callback=params.duration)] = "60s",
    size: Annotated[str, typer.Option("--size", help="size of the test file created in a directory target",
                                                callback=params.byte_size)] = "4G",
    write: Annotated[int, typer.Option("--write", help="percentage of small I/Os that are writes (needs "
                                       "--allow-write on block devices and existing files; never on mounted "
                                       "devices)", **params.PERCENT, callback=params.whole_percent)] = 0,
    allow_write: Annotated[bool, typer.Option("--allow-write", help="allow a write test on a block device or "
                                              "existing file")] = False,
    host: Annotated[list[str] | None, typer.Option("--host", help="HOST[:PORT] of a 'fio --server' (repeat for "
                                                   "several hosts)")] = None,
    engine: Annotated[str | None, typer.Option("--engine", help="fio engine (default: io_uring, else libaio)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the Measurement as JSON")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="write a PNG of latency versus IOPS here")] = None,
    cloud: burstopts.CloudOption = None,
    layout: burstopts.LayoutOption = None,
    instance: burstopts.InstanceOption = None,
    sustained: Annotated[bool, typer.Option("--sustained", help="spend the layout's burst credits first (as long "
                                            "as its burst lasts from full), then measure")] = False,
    report: ReportOption = None,
    # the old spellings, still taken (hidden), saying the new spelling once
    small_io: Annotated[str | None, typer.Option("--small-io", hidden=True, callback=params.io_size)] = None,
    large_io: Annotated[str | None, typer.Option("--large-io", hidden=True, callback=params.io_size)] = None,
) -> None:
    """Measure max IOPS at a latency bound, max MB/s and latency (CALIBRATE_IO's triplet) with fio."""
    renamed = params.Renamed()
    small, large = renamed.io_sizes(io_sizes, small_io, large_io)
    named = renamed.io_size_options(io_sizes)
    options = CalibrateOptions(
        max_latency_ms=parse_duration(max_latency, "--max-latency") * 1000, percentile=_percent(percentile),
        small_io=parse_io_size(small, named[0]), large_io=parse_io_size(large, named[1]),
        duration_s=parse_duration(duration, "--duration"), size_bytes=parse_io_size(size, "--size"),
        allow_write=allow_write, write_pct=write, hosts=list(host or []), engine=engine)
    bursting = _layout_measured(cloud, layout, instance, sustained)
    if sustained and bursting is not None:
        _spend_burst_first(options, bursting)
    for fields, check in options.checks().items():
        with supplied_by(OPTION_OF[fields]):
            check()
    if plot is not None:
        check_target(plot, "--plot")
    check_distinct([("--plot", plot), ("--report", report)],
                   [("target", Path(t)) for t in targets if not t.startswith("/dev/")])
    # SIGTERM, SIGINT and SIGHUP stop the measurement like Ctrl-C (the CLI's handlers): a partial result follows
    m = _measure(targets, options)
    renamed.warn()   # after the measurement: a target it refuses is one line, alone
    if bursting is not None:
        m.warnings.append(measured_words(bursting, m.elapsed_s - options.drain_s, options.drain_s))
    if plot is not None:
        from blockfit.report.calibrate import latency_png  # matplotlib only when a figure is asked for
        write_atomically(plot, latency_png(m), what="--plot")
    save_report(m, report)
    if json_out:
        print_json(m)
    else:
        _print_human(m)
        if plot is not None:
            console.print(f"plot: {plot}", markup=False, highlight=False)
    if m.partial:
        err_console.print(f"blockfit: calibrate stopped early ({m.stopped_by}); the curve above is partial")
        raise typer.Exit(130 if m.stopped_by == "interrupted" else 4)


def _spend_burst_first(options: CalibrateOptions, bursting: Prediction) -> None:
    """--sustained: drain the credits for as long as the layout's burst lasts from full, said once on stderr."""
    options.drain_s = burst_seconds(bursting) or 0.0
    if options.drain_s:
        err_console.print(f"calibrate --sustained: spending the burst credits first, "
                          f"{fmt_duration(options.drain_s)} on top of --duration", markup=False, highlight=False)


def _measure(targets: list[str], options: CalibrateOptions) -> Measurement:
    """The measurement, with a progress bar on stderr when it is a terminal (so it never mixes with the table or
    the JSON on stdout)."""
    if not err_console.is_terminal:
        return _calibrate(targets, options, None)
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn(),
                  console=err_console, transient=True) as bar:
        task = bar.add_task("calibrate", total=options.duration_s)

        def progress(elapsed: float, budget: float, what: str) -> None:
            bar.update(task, completed=min(elapsed, budget), description=f"calibrate: {what}")

        return _calibrate(targets, options, progress)
