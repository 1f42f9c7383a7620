"""`blockfit bench --dir A --dir B`: a throwaway PostgreSQL on each layout decides which is faster, and why."""

from __future__ import annotations

import math
import os
import string
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from blockfit import tools
from blockfit.cli import app, burstopts, params
from blockfit.cli.common import supplied_by
from blockfit.cli.output import ReportOption, err_console, show_result, write_result
from blockfit.dbbench.evidence import KnownCap
from blockfit.dbbench.profiles import PROFILES
from blockfit.dbbench.runner import BenchRequest, LayoutSpec, checks, parse_workloads, run_bench
from blockfit.dbbench.runner import Progress as BenchProgress
from blockfit.errors import InputError
from blockfit.files import check_distinct
from blockfit.schema.bench import BenchResult
from blockfit.views.bench import render as render_bench

if TYPE_CHECKING:
    from blockfit.schema import Prediction


def _layouts(dirs: list[str], labels: list[str]) -> list[LayoutSpec]:
    """--dir PATH or PATH=LABEL; --label gives labels in --dir order; default A, B, C, …"""
    if labels and len(labels) != len(dirs):
        raise InputError(f"--label: {len(labels)} given for {len(dirs)} --dir: expected one per --dir")
    if "" in labels:
        raise InputError("--label '': expected a non-empty label")
    return [_layout(text, labels[i] if labels else None, i) for i, text in enumerate(dirs)]


def _layout(text: str, label: str | None, i: int) -> LayoutSpec:
    """The Ith --dir, PATH or PATH=LABEL (a --label given for it wins over its own)."""
    if not text:
        raise InputError("--dir '': expected a directory on the filesystem under test")
    path = text
    head, sep, tail = text.rpartition("=")
    if sep and head and tail and "/" not in tail:
        path, label = head, label or tail
    if label is not None and ("/" in label or len(label) > 64 or any(not c.isprintable() for c in label)):
        # a label names pgbench's log files in the bench's folder: a '/' failed there, after initdb and the load
        raise InputError(f"--label {label!r}: expected at most 64 characters without '/' or control characters")
    return LayoutSpec(path=Path(path), label=label or string.ascii_uppercase[i % 26])


def _caps(texts: list[str], layouts: list[LayoutSpec], option: str = "--cap") -> None:
    """--cap / --instance-cap [LABEL=]IOPS[:MBPS]: caps the host cannot see (qemu throttle, cloud volume)."""
    labels = {s.label for s in layouts}
    for text in texts:
        label, iops, mbps = _cap(text, labels, option)
        for spec in layouts:
            if not label or spec.label == label:
                spec.cap = spec.cap or KnownCap()
                if option == "--cap":
                    spec.cap.iops, spec.cap.mbps = iops, mbps
                else:
                    spec.cap.instance_iops, spec.cap.instance_mbps = iops, mbps


def _cap(text: str, labels: set[str], option: str) -> tuple[str, float | None, float | None]:
    """One [LABEL=]IOPS[:MBPS] of OPTION: its label ('' for every layout), IOPS and MB/s (None: not given)."""
    label, _, figures = text.rpartition("=")
    iops_text, _, mbps_text = figures.partition(":")
    iops, mbps = _cap_figure(iops_text), _cap_figure(mbps_text)
    if (iops is None and mbps is None) or any(not (math.isfinite(v) and v >= 0) for v in (iops, mbps)
                                              if v is not None):
        raise InputError(f"{option} {text!r}: expected [LABEL=]IOPS[:MBPS] with finite figures of at least 0 "
                         "(0: no cap), e.g. B=300 or 300:40")
    if label and label not in labels:
        raise InputError(f"{option} {text!r}: no layout labelled {label!r} (labels: {', '.join(sorted(labels))})")
    return label, iops, mbps


def _cap_figure(text: str) -> float | None:
    """A cap's figure: None where it is left out, NaN where it is no number (refused by the caller)."""
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return math.nan


# the option that carries each field of the request dbbench checks
OPTION_OF = {"layouts": "--dir", "repeat": "--repeat", "precision_pct": "--precision", "labels": "--label",
             "dirs": "--dir"}


def _run(request: BenchRequest, progress: BenchProgress) -> BenchResult:
    """run_bench, naming --dir: with the request checked above, the one value problem left is a cluster directory
    the server's user cannot reach, found when the cluster is made."""
    with supplied_by("--dir"):
        return run_bench(request, progress)


def _check_out_dir(out: Path) -> None:
    """--out is made at the end, after the run: a path where no directory can be made must fail now."""
    try:
        if out.exists() and not out.is_dir():
            raise InputError(f"--out {out}: is a file (expected a directory)")
        existing = next((p for p in (out, *out.parents) if p.exists()), Path("/"))
        usable = existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)
    except OSError as exc:  # a name too long
        raise InputError(f"--out {str(out)!r}: cannot be used ({exc.strerror})") from None
    if not usable:
        raise InputError(f"--out {str(out)!r}: {existing} is not a writable directory (expected a directory, or "
                         "a path where one can be made)")


def _burst(result: BenchResult, p: Prediction) -> None:
    """Each layout's burst_check, and one warning line: did its windows fall inside the burst from full credits?"""
    from blockfit.dbbench.burst import check_burst
    from blockfit.model.burst import burst_seconds, fmt_duration

    lasts = burst_seconds(p)
    check_burst(result, p.layout, p.instance, lasts)
    checked = [(lay.label, lay.burst_check) for lay in result.layouts if lay.burst_check is not None]
    if not checked:
        return
    what = f"{p.layout} on {p.instance}"
    if lasts is None or p.burst is None:
        result.warnings.append(f"{what} does not burst on credits: the bench measured its sustained caps.")
        return
    spans = "; ".join(f"{label}'s windows ({fmt_duration(c.elapsed_s)}) "
                      + ("fell inside it" if c.inside else "outlasted it") for label, c in checked)
    result.warnings.append(
        f"{what} bursts for up to {fmt_duration(lasts)} from full credits (burst {p.burst.max_iops:,.0f} IOPS / "
        f"{p.burst.max_mbps:,.0f} MB/s, sustained {p.max_iops:,.0f} / {p.max_mbps:,.0f}): {spans}; windows inside "
        "it may have measured burst figures (if the credits were full when the bench began).")


@app.command("bench")
def bench_command(
    dirs: Annotated[list[str], typer.Option("--dir", help="a directory on the layout under test (PATH or "
                                            "PATH=LABEL); repeat for an A/B comparison. A cluster is made in "
                                            "a new subdirectory 'blockfit-bench' and removed at the end")],
    workload: Annotated[str, typer.Option("--workload", help="comma-separated: oltp (= oltp-select, oltp-tpcb), "
                                          "dss, load")] = "oltp,dss,load",
    profile: Annotated[str, typer.Option("--profile", help="quick | standard")] = "quick",
    repeat: Annotated[int | None, typer.Option("--repeat", help="most measured rounds per measure (stops earlier "
                                               "once the ratio's interval is within --precision)",
                                               **params.NUMBER, callback=params.count)] = None,
    precision: Annotated[str | None, typer.Option("--precision", help="percent: measure until the ratio's interval "
                                                  "is within ± this much of the ratio, or the profile's time budget "
                                                  "ends (quick and standard: 10)",
                                                  callback=params.open_percent)] = None,
    label: Annotated[list[str] | None, typer.Option("--label", help="layout labels, one per --dir, in order")] = None,
    cap: Annotated[list[str] | None, typer.Option("--cap", help="[LABEL=]IOPS[:MBPS]: a per-member cap the host "
                                                  "cannot see (qemu throttle, cloud volume), for the evidence")] = None,
    instance_cap: Annotated[list[str] | None, typer.Option("--instance-cap", help="[LABEL=]IOPS[:MBPS]: the "
                                                           "instance's cap over all members, for the evidence")]
    = None,
    before_measure: Annotated[str | None, typer.Option("--before-measure", help="shell command run once after "
                                                       "loading and before the first measured run (e.g. apply "
                                                       "caps)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the BenchResult as JSON")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="also write bench.json into this directory")] = None,
    cloud: burstopts.CloudOption = None,
    layout: burstopts.LayoutOption = None,
    instance: burstopts.InstanceOption = None,
    report: ReportOption = None,
) -> None:
    """Compare layouts with a real PostgreSQL: OLTP (pgbench), DSS with temp spills, bulk load; with evidence."""
    _check_options(profile, repeat, out)
    bursting = burstopts.measured_layout(cloud, layout, instance)
    tools.require("bench", "pgbench")  # Debian's PostgreSQL; its server binaries are found by find_bindir
    layouts = _layouts(dirs, list(label or []))
    _caps(list(cap or []), layouts)
    _caps(list(instance_cap or []), layouts, "--instance-cap")
    request = BenchRequest(layouts=layouts, measures=parse_workloads(workload), profile=PROFILES[profile],
                           repeat=repeat, before_measure=before_measure,
                           precision_pct=float(precision.rstrip("%")) if precision is not None else None)
    check_distinct([("--out", None if out is None else out / "bench.json"), ("--report", report)])
    for fields, check in checks(request).items():
        with supplied_by(OPTION_OF[fields]):
            check()
    # SIGTERM, SIGINT and SIGHUP stop the bench like Ctrl-C (the CLI's handlers): a partial result follows
    result = _run_with_progress(request)
    if bursting is not None:
        _burst(result, bursting)
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--out {str(out)!r}: cannot make the directory ({exc.strerror})") from None
        write_result(result, out / "bench.json")
    show_result(result, report, json_out, render_bench)
    if result.partial:
        err_console.print(f"blockfit: bench stopped early ({result.stopped_by}); the results above are partial")
        raise typer.Exit(130)


def _check_options(profile: str, repeat: int | None, out: Path | None) -> None:
    """--profile, --repeat and --out, checked before anything runs."""
    if profile not in PROFILES:
        raise InputError(f"--profile {profile!r}: expected one of {', '.join(PROFILES)}")
    if repeat is not None and repeat < 1:
        raise InputError(f"--repeat {repeat}: expected a whole number of at least 1")
    if out is not None:
        _check_out_dir(out)


def _run_with_progress(request: BenchRequest) -> BenchResult:
    """The bench, its progress on stderr: a bar on a terminal, else plain lines for a log (the lab polls them)."""
    if err_console.is_terminal:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err_console, transient=True) as bar:
            task = bar.add_task("bench", total=1)

            def progress(phase: str, done: int, total: int) -> None:
                bar.update(task, completed=done, total=total, description=f"bench: {phase}")

            return _run(request, progress)

    def lines(phase: str, done: int, total: int) -> None:
        err_console.print(f"bench [{done}/{total}] {phase}", highlight=False)

    return _run(request, lines)
