"""Rich live view: one line per device per interval, members indented under their stripe; Findings table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from blockfit.devices.capture import Capture, CaptureHeader
from blockfit.devices.iostat import Interval, latest
from blockfit.schema.finding import Diagnosis

HEADER = (f"{'device':<14}{'r/s':>9}{'w/s':>9}{'MB/s':>9}{'rqKB':>7}{'r_await':>9}{'w_await':>9}"
          f"{'aqu':>7}{'util%':>7}{'fl/s':>8}{'fl_ms':>7}")


def ordered(names: list[str], header: CaptureHeader) -> list[tuple[str, int]]:
    """Devices in stack order: each top device followed by its members, indented one level per layer."""
    devices = header.devices
    out: list[tuple[str, int]] = []

    def visit(name: str, depth: int) -> None:
        if any(n == name for n, _ in out):
            return
        out.append((name, depth))
        dev = devices.get(name)
        for s in dev.slaves if dev else []:
            if s in names:
                visit(s, depth + 1)

    for name in names:
        dev = devices.get(name)
        if dev is None or not [h for h in dev.holders if h in names]:
            visit(name, 0)
    for name in names:
        visit(name, 0)
    return out


def line(iv: Interval, depth: int) -> str:
    fl = f"{iv.flushes_per_s:8.0f}" if iv.flushes_per_s is not None else f"{'-':>8}"
    fa = f"{iv.flush_await_ms:7.2f}" if iv.flush_await_ms is not None else f"{'-':>7}"
    name = ("  " * depth + iv.device)[:14]
    return (f"{name:<14}{iv.r_iops:9.0f}{iv.w_iops:9.0f}{iv.mbps:9.1f}{iv.avg_rq_kb:7.1f}{iv.r_await_ms:9.2f}"
            f"{iv.w_await_ms:9.2f}{iv.aqu_sz:7.2f}{iv.util_pct:7.0f}{fl}{fa}")


class LiveView:
    """Prints the active devices of the newest interval each time a sample arrives."""

    def __init__(self, console: Console, show_idle: bool = False) -> None:
        self.console = console
        self.show_idle = show_idle
        self.header_shown = False

    def __call__(self, capture: Capture) -> None:
        ivs = latest(capture)
        if not ivs:
            return
        names = sorted(n for n, iv in ivs.items() if self.show_idle or iv.iops > 0 or iv.aqu_sz > 0)
        if not self.header_shown:
            self.console.print(f"{'time':>7}  {HEADER}", style="bold", highlight=False, markup=False, crop=False,
                               soft_wrap=True)
            self.header_shown = True
        stamp = f"{capture.samples[-1].t:6.1f}s"
        for name, depth in ordered(names, capture.header):
            self.console.print(f"{stamp}  {line(ivs[name], depth)}", highlight=False, markup=False, crop=False,
                               soft_wrap=True)
            stamp = " " * len(stamp)


def findings_table(diagnosis: Diagnosis) -> Table:
    table = Table(title=f"Findings ({diagnosis.source}, {diagnosis.samples} samples, {diagnosis.duration_s:.0f} s)",
                  show_lines=True)
    for col in ("severity", "kind", "device", "summary / evidence", "recommendation"):
        table.add_column(col, overflow="fold")
    for f in diagnosis.findings:
        table.add_row(f.severity, f.kind, f.device, f.summary + "\n" + "\n".join("• " + e for e in f.evidence),
                      f.recommendation)
    return table
