"""`blockfit bench` on the terminal: the medians per measure and layout, then the verdicts (the HTML is
report/bench.py's)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from blockfit.dbbench.stats import fmt_ratio
from blockfit.schema.bench import BenchResult, LayoutInfo, MeasureResult
from blockfit.terminal import cell, markup


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.2f} s" if unit == "seconds" else f"{value:,.0f} {unit}"


def _median_share(values: list[float]) -> str:
    return f"{sorted(values)[len(values) // 2]:.0%}" if values else "-"


def _row(lay: LayoutInfo, mr: MeasureResult) -> tuple[Text | str, ...]:
    """One layout's line of a measure: its median, runs, the median hit ratios and what bound it."""
    evs = [x.evidence for x in mr.runs if x.evidence is not None]
    hits = [e.db.hit_ratio for e in evs if e.db.hit_ratio is not None]
    cache = [e.db.page_cache_hit_ratio for e in evs if e.db.page_cache_hit_ratio is not None]
    detail = evs[len(evs) // 2].binding_detail if evs else ""
    failed = [x.failed for x in mr.runs if x.failed]
    return (cell(mr.measure), cell(f"{lay.label} ({lay.dir})"), _fmt(mr.median, mr.unit), str(len(mr.runs)),
            _median_share(hits) + " / " + _median_share(cache), cell(f"FAILED: {failed[0]}" if failed else detail))


def render(r: BenchResult, console: Console) -> None:
    """A bench: each measure's layouts side by side, the warm-ups, the comparisons, the warnings."""
    t = Table(title=f"blockfit bench ({r.settings.profile}, {r.postgres_version}, "
                    f"server memory {r.settings.memory_limit_bytes // 2**20} MiB)")
    for col in ("measure", "layout", "median", "runs", "hit: buffers / page cache", "binding (evidence)"):
        t.add_column(col, justify="left" if col in ("measure", "layout", "binding (evidence)") else "right")
    for measure in r.measures:  # measure by measure, so A and B sit next to each other
        for lay, mr in ((x, m) for x in r.layouts for m in x.measures if m.measure == measure):
            t.add_row(*_row(lay, mr))
    console.print(t)
    for lay in r.layouts:
        for mr in lay.measures:
            if mr.warmup is not None:
                console.print(f"{mr.measure} warm-up on {lay.label}: {mr.warmup.text}", highlight=False,
                              markup=False)
    for c in r.comparisons:
        model = f"; the model says {fmt_ratio(c.model_ratio)} from the {c.model_basis} caps" if c.model_ratio else ""
        console.print(f"{c.measure}: {c.text}{model}", highlight=False, markup=False)
    for w in r.warnings:
        console.print(f"[yellow]warning:[/yellow] {markup(w)}")
