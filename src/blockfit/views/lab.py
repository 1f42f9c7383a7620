"""`blockfit lab` on the terminal: a run's measured figures beside the model, and a lab bench's ratios (the HTML is
report/lab.py's and report/lab_bench.py's)."""

from __future__ import annotations

from typing import Literal

from rich.console import Console
from rich.table import Table

from blockfit.lab.figures import judge
from blockfit.schema.lab import LabBenchLayout, LabBenchResult, LabFigures, LabResult
from blockfit.terminal import cell, markup
from blockfit.units import fmt_io_size


def _ratio(r: float) -> str:
    colour = "green" if abs(r - 1) <= 0.10 else "red"
    return f"[{colour}]{r:.2f}[/]"


def _spread(spread: float | None, windows: int) -> str:
    return f"±{2 * spread:.1%}, {windows}" if spread is not None else f"no spread, {windows}"


def _limit(predicted: str, measured: str) -> str:
    return predicted if predicted == measured else f"[red]{predicted} (lab: {measured})[/]"


def render(r: LabResult, console: Console) -> None:
    """A lab run: the stripe (and the single volume) measured beside the model, the steps, the guest."""
    paths = f", {r.caps.paths} path(s) per volume (dm-multipath)" if r.caps.paths else ""
    console.print(f"[bold]lab[/]: {markup(r.layout)} on {markup(r.instance)} ({r.cloud}), {r.manager} + {r.fs}{paths}, "
                  f"scale {r.scale:g} (every IOPS and MB/s cap multiplied by it)")
    columns: list[LabFigures] = [r] + ([r.single] if r.single is not None else [])
    large = "sequential writes" if r.direction == "write" else "random reads"
    table = Table(title=f"{fmt_io_size(r.small_io)} random {r.direction}s (IOPS), {fmt_io_size(r.large_io)} {large} "
                        f"(MB/s); windows of at least {r.runtime_s:g} s, longer until narrow", title_justify="left")
    table.add_column("")
    for name, f in zip(("stripe", "single volume"), columns, strict=False):
        table.add_column(cell(f"{name} {f.layout}"), justify="right")
    for label, cells in _rows(r, columns):
        table.add_row(label, *cells)
    console.print(table)
    _print_notes(r, columns, console)


def _rows(r: LabResult, columns: list[LabFigures]) -> list[tuple[str, list[str]]]:
    """The table's rows: IOPS and MB/s predicted, measured, their ratio, spread and limits; the cloud equivalent."""
    rows = [*_figure_rows(columns, "iops"), *_figure_rows(columns, "mbps"),
            ("cloud equivalent (/ scale)",
             [f"{f.measured_iops / r.scale:,.0f} IOPS, {f.measured_mbps / r.scale:,.0f} MB/s" for f in columns])]
    if any(f.model_limited_by is not None for f in columns):  # a latency-bound limit the lab does not emulate
        rows.append(("model, all limits x scale", [
            f"{f.model_iops or f.predicted_iops:,.0f} IOPS ({(f.model_limited_by or f.predicted_limited_by).iops}), "
            f"{f.model_mbps or f.predicted_mbps:,.1f} MB/s" for f in columns]))
    return rows


def _figure_rows(columns: list[LabFigures], kind: Literal["iops", "mbps"]) -> list[tuple[str, list[str]]]:
    """One quantity's rows (IOPS to the unit, MB/s to a tenth): predicted, measured, ratio, spread, the emulator's
    own figure, the binding limit."""
    unit, spec = ("IOPS", ",.0f") if kind == "iops" else ("MB/s", ",.1f")

    def emulator(f: LabFigures) -> str:
        value = f.emulator_iops if kind == "iops" else f.emulator_mbps
        return format(value, spec) if value else "-"

    return [
        (f"{unit} predicted x scale", [format(getattr(f, f"predicted_{kind}"), spec) for f in columns]),
        (f"{unit} measured", [format(getattr(f, f"measured_{kind}"), spec) for f in columns]),
        ("  measured / predicted", [_ratio(getattr(f, f"{kind}_ratio")) for f in columns]),
        ("  ± (95 %), sub-windows", [_spread(getattr(f, f"{kind}_spread"), getattr(f, f"{kind}_windows"))
                                     for f in columns]),
        ("  emulator uncapped", [emulator(f) for f in columns]),
        ("  binding limit", [_limit(getattr(f.predicted_limited_by, kind), getattr(f.limited_by, kind))
                             for f in columns]),
    ]


def _print_notes(r: LabResult, columns: list[LabFigures], console: Console) -> None:
    """The verdicts where measured and predicted part, the steps, and the guest."""
    for f in columns:
        for kind in ("iops", "mbps"):
            verdict = judge(f, kind, 0.10)
            if verdict is not None:
                console.print(f"  [yellow]note:[/] {markup(verdict)}")
    for s in r.steps:
        console.print(f"  {'[green]ok[/]' if s.ok else '[red]FAILED[/]'} {markup(s.name)}: {markup(s.detail)}")
    console.print(f"  guest {markup(r.kernel)}, {r.guest_seconds:g} s" + (f", console log {markup(r.console_log)}"
                                                                  if r.console_log else ""))


def render_bench(r: LabBenchResult, console: Console) -> None:
    """A lab bench: the model's ratio beside the database's, per measure, and each layout's caps."""
    b, o = r.baseline, r.other
    console.print(f"[bold]lab bench[/]: {markup(o.label)} ({markup(o.layout)}, {o.manager}, {o.fs}) against "
                  f"{markup(b.label)} ({markup(b.layout)}, "
                  f"{b.manager}, {b.fs}) on {r.instance} ({r.cloud}), scale {r.scale:g} (IOPS) and {r.mbps_scale:g} "
                  f"(MB/s); PostgreSQL "
                  f"{r.bench.postgres_version}, profile {r.bench.settings.profile}")
    console.print(_ratios_table(r))
    for lay in (b, o):
        console.print(_layout_line(lay))
    for w in r.bench.warnings:
        console.print(f"  [yellow]warning:[/] {markup(w)}")
    for s in r.steps:
        console.print(f"  {'[green]ok[/]' if s.ok else '[red]FAILED[/]'} {markup(s.name)}: {markup(s.detail)}")
    console.print(f"  caps: {markup(', '.join(r.cap_changes) or 'never changed')}; guest {markup(r.kernel)}, "
                  f"{r.guest_seconds:g} s")


def _ratios_table(r: LabBenchResult) -> Table:
    """Per measure: the model's ratio of the two layouts beside the database's, its interval and the verdict."""
    b, o = r.baseline, r.other
    table = Table(title=cell(f"{o.label} / {b.label}: the model's ratio beside the database's"), title_justify="left")
    for col in ("measure", "predicted", "measured [95 % CI]", "verdict", "I/O-bound runs"):
        table.add_column(col, justify="left" if col in ("measure", "verdict") else "right")
    for x in r.ratios:
        measured = (f"{x.measured_ratio:.2f} [{x.ci_low:.2f}, {x.ci_high:.2f}]"
                    if x.measured_ratio is not None and x.ci_low is not None and x.ci_high is not None else "-")
        table.add_row(cell(x.measure), cell(f"{x.predicted_ratio:.2f} ({x.basis})"), measured, cell(x.text),
                      cell(x.io_bound_runs))
    return table


def _layout_line(lay: LabBenchLayout) -> str:
    """One side of the bench: its members and their caps, its mount, stripe unit and member balance."""
    balance = (", member balance " + ", ".join(f"{m} {v:.2f}" for m, v in lay.member_balance.items())
               if lay.member_balance else "")
    unit = f", stripe unit {fmt_io_size(lay.stripe_size)}" if lay.stripe_size else ""
    return (f"  {markup(lay.label)}: {lay.members} x ({lay.caps.member_iops} IOPS, "
            f"{(lay.caps.member_bps or 0) / 1e6:g} MB/s) on {markup(lay.mount)}{unit}{markup(balance)}")
