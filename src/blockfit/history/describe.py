"""Where the targets came from, in words: the lines `plan` prints and the report's history section reuses."""

from __future__ import annotations

from blockfit.schema.history import DerivedTargets, HistorySource, PeakWindow
from blockfit.units import fmt_num

KIND_WORDS = {"device": "devices", "instance": "instances", "file": "files", "volume": "volumes", "disk": "disks",
              "series": ""}


def interval_words(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 < 60:
        return f"{seconds / 3600:,.0f} h"
    if seconds >= 120:
        return f"{seconds / 60:,.0f} min"
    return f"{seconds:.3g} s"


def source_line(s: HistorySource) -> str:
    what = f"{s.format} history {s.path}"
    if s.members:
        what += f" ({KIND_WORDS.get(s.member_kind, s.member_kind)} {', '.join(s.members[:8])}" + \
                (f" and {len(s.members) - 8} more" if len(s.members) > 8 else "") + ")"
    span = f", {s.start} to {s.end}" if s.start and s.end else ""
    return f"{what}: {s.samples} interval{'s' if s.samples != 1 else ''} of {interval_words(s.interval_s)}{span}"


def percentile_words(h: DerivedTargets) -> str:
    if h.percentile_name == "peak":
        return "the peak"
    if h.percentile_name == "median":
        return "the median"
    return f"p{h.percentile:g}"


def window_words(w: PeakWindow | None) -> str:
    if w is None:
        return ""
    when = w.label if not w.start else (w.label if w.label.startswith("snapshots") else f"{w.start}")
    return f"{when} ({fmt_num(w.iops)} IOPS, {fmt_num(w.mbps)} MB/s)"


def summary_line(h: DerivedTargets) -> str:
    """One line: the arithmetic from history to targets."""
    mix = f"reads {h.read_pct:.0f} % of {'I/Os' if h.read_pct_from == 'ios' else 'bytes'}"
    line = (f"Targets from {len(h.sources)} histor{'ies' if len(h.sources) > 1 else 'y'}: {percentile_words(h)} of "
            f"{h.samples} interval{'s' if h.samples != 1 else ''} of {interval_words(h.interval_s)}")
    if h.peak_factor != 1:
        line += f" x peak factor {h.peak_factor:g}"
    line += f" = {h.iops:,.0f} IOPS ({mix}), {h.mbps:,.1f} MB/s"
    if h.headroom_pct:
        line += f"; +{h.headroom_pct:g} % headroom = {h.target_iops:,.0f} IOPS, {h.target_mbps:,.1f} MB/s"
    return line


def lines(h: DerivedTargets) -> list[str]:
    """Everything a DBA needs to check the targets, one statement a line."""
    out = [summary_line(h)]
    out += [f"  from {source_line(s)}" for s in h.sources]
    out.append(f"  peak factor {h.peak_factor_source}")
    if h.peak_iops_window is not None:
        out.append(f"  peak window: {window_words(h.peak_iops_window)}")
    out += [f"  note: {n}" for n in h.notes]
    out += [f"  skipped {s}" for s in h.skipped]
    return out
