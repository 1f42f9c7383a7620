"""`blockfit lab` on the terminal: a run's measured figures beside the model, and a lab bench's ratios (the HTML is
report/lab.py's and report/lab_bench.py's)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from blockfit.lab.figures import judge
from blockfit.schema.lab import LabBenchResult, LabFigures, LabResult
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
    rows: list[tuple[str, list[str]]] = [
        ("IOPS predicted x scale", [f"{f.predicted_iops:,.0f}" for f in columns]),
        ("IOPS measured", [f"{f.measured_iops:,.0f}" for f in columns]),
        ("  measured / predicted", [_ratio(f.iops_ratio) for f in columns]),
        ("  ± (95 %), sub-windows", [_spread(f.iops_spread, f.iops_windows) for f in columns]),
        ("  emulator uncapped", [f"{f.emulator_iops:,.0f}" if f.emulator_iops else "-" for f in columns]),
        ("  binding limit", [_limit(f.predicted_limited_by.iops, f.limited_by.iops) for f in columns]),
        ("MB/s predicted x scale", [f"{f.predicted_mbps:,.1f}" for f in columns]),
        ("MB/s measured", [f"{f.measured_mbps:,.1f}" for f in columns]),
        ("  measured / predicted", [_ratio(f.mbps_ratio) for f in columns]),
        ("  ± (95 %), sub-windows", [_spread(f.mbps_spread, f.mbps_windows) for f in columns]),
        ("  emulator uncapped", [f"{f.emulator_mbps:,.1f}" if f.emulator_mbps else "-" for f in columns]),
        ("  binding limit", [_limit(f.predicted_limited_by.mbps, f.limited_by.mbps) for f in columns]),
        ("cloud equivalent (/ scale)", [f"{f.measured_iops / r.scale:,.0f} IOPS, {f.measured_mbps / r.scale:,.0f} MB/s"
                                        for f in columns]),
    ]
    if any(f.model_limited_by is not None for f in columns):  # a latency-bound limit the lab does not emulate
        rows.append(("model, all limits x scale", [
            f"{f.model_iops or f.predicted_iops:,.0f} IOPS ({(f.model_limited_by or f.predicted_limited_by).iops}), "
            f"{f.model_mbps or f.predicted_mbps:,.1f} MB/s" for f in columns]))
    for label, cells in rows:
        table.add_row(label, *cells)
    console.print(table)
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
    table = Table(title=cell(f"{o.label} / {b.label}: the model's ratio beside the database's"), title_justify="left")
    for col in ("measure", "predicted", "measured [95 % CI]", "verdict", "I/O-bound runs"):
        table.add_column(col, justify="left" if col in ("measure", "verdict") else "right")
    for x in r.ratios:
        measured = (f"{x.measured_ratio:.2f} [{x.ci_low:.2f}, {x.ci_high:.2f}]"
                    if x.measured_ratio is not None and x.ci_low is not None and x.ci_high is not None else "-")
        table.add_row(cell(x.measure), cell(f"{x.predicted_ratio:.2f} ({x.basis})"), measured, cell(x.text),
                      cell(x.io_bound_runs))
    console.print(table)
    for lay in (b, o):
        balance = (", member balance " + ", ".join(f"{m} {v:.2f}" for m, v in lay.member_balance.items())
                   if lay.member_balance else "")
        unit = f", stripe unit {fmt_io_size(lay.stripe_size)}" if lay.stripe_size else ""
        console.print(f"  {markup(lay.label)}: {lay.members} x ({lay.caps.member_iops} IOPS, "
                      f"{(lay.caps.member_bps or 0) / 1e6:g} MB/s) on {markup(lay.mount)}{unit}{markup(balance)}")
    for w in r.bench.warnings:
        console.print(f"  [yellow]warning:[/] {markup(w)}")
    for s in r.steps:
        console.print(f"  {'[green]ok[/]' if s.ok else '[red]FAILED[/]'} {markup(s.name)}: {markup(s.detail)}")
    console.print(f"  caps: {markup(', '.join(r.cap_changes) or 'never changed')}; guest {markup(r.kernel)}, "
                  f"{r.guest_seconds:g} s")
