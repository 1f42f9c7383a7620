"""report/palette.py: the report's colours are real colours, each one distinct, and the ones that carry meaning
stand apart from the greys that mean "the rest"."""

from __future__ import annotations

import matplotlib.colors as mcolors

from blockfit.report import palette

NAMES = ("ACCENT", "MAIN", "SECOND", "GREY", "LIGHT", "OK")


def _rgb(name: str) -> tuple[float, float, float]:
    return mcolors.to_rgb(getattr(palette, name))


def test_every_colour_parses_and_no_two_are_the_same() -> None:
    colours = [getattr(palette, n) for n in NAMES]
    assert all(isinstance(c, str) and mcolors.is_color_like(c) for c in colours)
    assert len({c.lower() for c in colours}) == len(colours)


def test_the_colours_that_mean_something_are_not_grey() -> None:
    """A hue, not a grey: the thing to look at, its reference and 'meets' must not read as 'the rest'."""
    for name in ("ACCENT", "MAIN", "SECOND", "OK"):
        r, g, b = _rgb(name)
        assert max(r, g, b) - min(r, g, b) > 0.3, name
    for name in ("GREY", "LIGHT"):
        r, g, b = _rgb(name)
        assert max(r, g, b) - min(r, g, b) < 0.02, name
