"""report.figures: figures as inline SVG with ids unique on the page, long texts shortened and said, tick labels
that tell neighbours apart."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.report.figures import LABEL_CHARS, FigureSink, NumberTicks, label_width, new_figure, shorten


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab …\n", max_size=120), st.integers(2, 60))
def test_each_line_is_cut_to_the_limit_and_marked(text: str, limit: int) -> None:
    out = shorten(text, limit)
    lines_in, lines_out = text.split("\n"), out.split("\n")
    assert len(lines_in) == len(lines_out)
    for a, b in zip(lines_in, lines_out, strict=True):
        assert b == a if len(a) <= limit else (len(b) == limit and b.endswith("…") and a.startswith(b[:-1]))


def test_label_width_grows_with_the_longest_line_up_to_the_cap() -> None:
    assert label_width(["ab"]) < label_width(["abcdefgh"]) < label_width(["x" * LABEL_CHARS])
    assert label_width(["x" * LABEL_CHARS]) == label_width(["x" * (LABEL_CHARS + 50)])
    assert label_width([]) == label_width(["abcd"])


def test_two_figures_on_a_page_share_no_svg_id_and_a_cut_title_is_said() -> None:
    sink = FigureSink()
    figs = []
    for title in ("short", "a title far longer than any figure may draw it " * 3):
        fig = new_figure(4, 2)
        ax = fig.subplots()
        ax.plot([0, 1], [0, 1])
        ax.set_title(title)
        figs.append(sink.add(fig, "test", "Caption."))
    ids = [set(re.findall(r'\bid="([^"]+)"', f.svg)) for f in figs]
    assert ids[0] and ids[1] and not ids[0] & ids[1]
    assert figs[0].caption == "Caption." and "Shortened in the figure" in figs[1].caption
    assert sink.count == 2 and sink.png_paths == []


def test_neighbouring_ticks_are_told_apart() -> None:
    fig = new_figure(4, 2)
    ax = fig.subplots()
    ax.set_ylim(227.5, 230.5)
    ticks = NumberTicks()
    ax.yaxis.set_major_formatter(ticks)
    labels = ticks.format_ticks([228.0, 228.5, 229.0, 229.5, 230.0])
    assert len(set(labels)) == 5
