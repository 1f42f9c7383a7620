"""Shared matplotlib helpers: a figure in the report's style, turned into inline SVG text (and PNG for slides).

Figures are made with matplotlib's object API (no pyplot state), text kept as SVG text so it stays
searchable and small, ids made unique per figure so several SVGs can live in one HTML page.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import matplotlib
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.text import Text
from matplotlib.textpath import TextToPath
from matplotlib.ticker import FixedFormatter, Formatter

from blockfit.units import fmt_compact

# The report's look. Applied only while the report's figures are drawn and saved (report_style), never to
# matplotlib's global rcParams: importing this module changes nothing for anyone else. Text is never parsed as
# mathtext or TeX: labels carry strings from results ("$\frac{$" as a layout name crashed the drawing).
STYLE: dict[str, Any] = {
    "text.parse_math": False,
    "text.usetex": False,
    "svg.fonttype": "none",
    "svg.hashsalt": "blockfit-report",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
}


def report_style() -> contextlib.AbstractContextManager[Any]:
    """Draw and save inside this: the report's style for those figures only (matplotlib's own rc_context)."""
    return matplotlib.rc_context(cast(Any, STYLE))  # STYLE keys are rc names; matplotlib types them as literals


_ID = re.compile(r'\bid="([^"]+)"')


@dataclass
class ReportFigure:
    """A drawn figure: its slug (PNG file name), caption and inline SVG."""

    name: str
    caption: str
    svg: str


# Names from results (a limit, a device, a host, a layout) can be of any length. A tick label is drawn with at most
# LABEL_CHARS characters a line, any other text (a title, a legend entry, a note) with at most TEXT_CHARS; what is
# cut ends in "…" and the figure's caption gives the full text. The margins follow the shortened labels, so no
# label can push the plot out of its figure (a 110-character limit name made the left margin wider than the figure).
LABEL_CHARS = 36
TEXT_CHARS = 80
MIN_PLOT_SHARE = 0.3   # of the figure's width and height, whatever the margins asked for


def new_figure(width: float = 7.5, height: float = 3.6, left: float = 0.75, bottom: float = 0.5, top: float = 0.2,
               right: float = 0.15, wspace: float = 0.25, hspace: float = 0.3) -> Figure:
    """A figure with fixed margins in inches: a layout engine would cost a second draw of every figure. Margins are
    held so the plot keeps MIN_PLOT_SHARE of the figure."""
    spare_w, spare_h = width * (1 - MIN_PLOT_SHARE), height * (1 - MIN_PLOT_SHARE)
    if left + right > spare_w:
        left, right = left * spare_w / (left + right), right * spare_w / (left + right)
    if bottom + top > spare_h:
        bottom, top = bottom * spare_h / (bottom + top), top * spare_h / (bottom + top)
    fig = Figure(figsize=(width, height), dpi=100)
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                        wspace=wspace, hspace=hspace)
    return fig


# A legend's entry as drawn: the key's width (handlelength + handletextpad + columnspacing, in font sizes) beside
# its text's; a row's height.
LEGEND_KEY_EMS = 4.8
LEGEND_ROW_EMS = 1.6
_TEXT_WIDTH = TextToPath()   # measures a text in points without drawing a figure


def legend_above(fig: Figure, *axes: Axes, fontsize: float = 8.0) -> None:
    """The legend of AXES (their entries, each label once) in a band added above every plot of FIG, so it can never
    cover a data point (a legend inside the plot area covered the curve it described). The figure grows by the band;
    the plots keep their size in inches. Entries go as many to a row as fit in the figure's width."""
    entries: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if not entries:
        return
    labels, handles = list(entries), list(entries.values())
    width, height = fig.get_size_inches()
    em = fontsize / 72
    font = FontProperties(family=STYLE["font.family"], size=fontsize)
    text = max(_TEXT_WIDTH.get_text_width_height_descent(shorten(label, TEXT_CHARS), font, ismath=False)[0]
               for label in labels) / 72
    entry = text + LEGEND_KEY_EMS * em
    ncols = max(1, min(len(labels), int((width - 0.2) // entry)))
    rows = -(-len(labels) // ncols)
    band = rows * LEGEND_ROW_EMS * em + 0.1
    pars = fig.subplotpars
    top_in, bottom_in = (1 - pars.top) * height, pars.bottom * height
    fig.set_size_inches(width, height + band)
    fig.subplots_adjust(top=1 - (top_in + band) / (height + band), bottom=bottom_in / (height + band))
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.1 / width, 1.0), ncols=ncols, fontsize=fontsize,
               borderaxespad=0.2, borderpad=0.2)


def label_width(labels: list[str]) -> float:
    """Inches a column of 9 pt tick labels needs (a left margin for horizontal bars), as they are drawn: at most
    LABEL_CHARS characters a line."""
    longest = max((min(len(line), LABEL_CHARS) for text in labels for line in text.split("\n")), default=4)
    return 0.2 + 0.068 * longest


def shorten(text: str, limit: int) -> str:
    """TEXT with each line cut to LIMIT characters, a cut line ending in "…"."""
    return "\n".join(line if len(line) <= limit else line[:limit - 1] + "…" for line in text.split("\n"))


def _shorten_texts(fig: Figure) -> list[str]:
    """Shorten every text of FIG that is longer than it may be drawn (tick labels set as a list, titles, legend
    entries, annotations, figure notes); the full texts that were cut, in order, once each."""
    cut: dict[str, None] = {}

    def fit(text: str, limit: int) -> str:
        short = shorten(text, limit)
        if short != text:
            cut[" ".join(text.split())] = None
        return short

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, FixedFormatter):
                formatter.seq = [fit(str(label), LABEL_CHARS) for label in formatter.seq]
    for artist in fig.findobj(Text):
        if isinstance(artist, Text) and artist.get_text():
            artist.set_text(fit(artist.get_text(), TEXT_CHARS))
    return list(cut)


class NumberTicks(Formatter):
    """Tick labels through the report's number formatter, with as many significant digits as it takes to tell
    neighbouring ticks apart (228, 229, 230 rather than 228, 228, 230)."""

    def __init__(self) -> None:
        self.sig = 3

    def __call__(self, x: float, pos: int | None = None) -> str:
        return fmt_compact(x, self.sig)

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        # the suffix follows the visible range (a locator also hands over ticks just outside it)
        view = self.axis.get_view_interval() if self.axis is not None else values
        top = max((abs(float(v)) for v in view), default=0.0)
        # on a log axis ticks span decades: one shared suffix read 1,000 MB/s as "0.001M", so each tick is
        # labelled on its own (1,000 · 10,000 · 100k · 1M)
        log = isinstance(self.axis, Axis) and self.axis.get_scale() == "log"
        scale_of = None if log else top
        for sig in range(3, 8):
            labels = [fmt_compact(v, sig, scale_of=scale_of) for v in values]
            if len(set(labels)) == len(labels):
                break
        self.sig = sig
        return labels


def number_axis(ax: Axes, which: str = "y") -> None:
    """Tick labels through the report's number formatter (thousands separators, 150k above 100,000)."""
    for axis in ([ax.xaxis] if which in ("x", "both") else []) + ([ax.yaxis] if which in ("y", "both") else []):
        axis.set_major_formatter(NumberTicks())


class FigureSink:
    """Turns figures into ReportFigures, numbering them for unique SVG ids, and keeps their PNGs when asked: they
    are written only with the page (report.report, one files.Batch), so a failed write leaves neither behind."""

    def __init__(self, png_dir: Path | None = None) -> None:
        self.png_dir = png_dir
        self.count = 0
        self.pngs: list[tuple[Path, bytes]] = []

    @property
    def png_paths(self) -> list[Path]:
        return [path for path, _ in self.pngs]

    def add(self, fig: Figure, name: str, caption: str) -> ReportFigure:
        self.count += 1
        slug = f"{self.count:02d}-{name}"
        cut = _shorten_texts(fig)
        if cut:
            caption += " Shortened in the figure (…): " + "; ".join(cut) + "."
        buf = io.StringIO()
        with warnings.catch_warnings():
            # a name from a result may hold a character no font draws (a terminal escape): the SVG keeps it as text
            # (the page shows it as \x1b), and no warning echoes it raw to the terminal
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
            if self.png_dir is not None:
                png = io.BytesIO()
                fig.savefig(png, format="png", dpi=150, metadata={"Software": None})
                self.pngs.append((self.png_dir / f"{slug}.png", png.getvalue()))
        return ReportFigure(slug, caption, _inline(buf.getvalue(), f"f{self.count}-"))


def _inline(svg: str, prefix: str) -> str:
    """Drop the XML prolog and doctype; prefix every id (and its references) so figures cannot collide."""
    svg = svg[svg.index("<svg"):]
    ids = set(_ID.findall(svg))
    if not ids:
        return svg

    def rename(match: re.Match[str]) -> str:
        text = match.group(0)
        ident = match.group(2)
        return text.replace(ident, prefix + ident) if ident in ids else text

    svg = re.sub(r'(\bid=")([^"]+)(")', rename, svg)
    svg = re.sub(r'(url\(#)([^)]+)(\))', rename, svg)
    return re.sub(r'((?:xlink:)?href="#)([^"]+)(")', rename, svg)


def label_bars(ax: Axes, bars: Any, labels: list[str]) -> None:
    """Text at the end of horizontal bars (headroom, error %)."""
    for bar, text in zip(bars, labels, strict=True):
        ax.annotate(text, (bar.get_width(), bar.get_y() + bar.get_height() / 2), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=8)
