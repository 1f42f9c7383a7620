"""Log-axis tick labels (issue 37 item 6): a model's MB/s limits on a log axis read "0.001M … 1M", because one
suffix, chosen from the largest tick, was forced on every decade."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from blockfit.report.figures import number_axis, report_style

SUFFIX = {"k": 1e3, "M": 1e6, "G": 1e9}


def _value(label: str) -> float:
    text = label.replace(",", "").replace("\u2212", "-")
    return float(text[:-1]) * SUFFIX[text[-1]] if text[-1] in SUFFIX else float(text)


@settings(max_examples=25, deadline=None)
@given(st.integers(-3, 4), st.integers(2, 7))
def test_each_log_tick_is_labelled_in_its_own_size(low: int, decades: int) -> None:
    with report_style():
        fig = Figure()
        ax = fig.subplots()
        values = [10.0 ** low * 1.5, 10.0 ** (low + decades) * 0.9]
        ax.barh(["a", "b"], values)
        ax.set_xscale("log")
        number_axis(ax, "x")
        fig.canvas.draw()
        lo, hi = ax.get_xlim()
        ticks = [(t.get_position()[0], t.get_text()) for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
    labels = [text for _, text in ticks]
    assert len(ticks) >= 2, labels
    for at, text in ticks:
        assert abs(_value(text) - at) <= 0.01 * at, (at, text)
        # a suffix only where the tick is that large: 1,000 MB/s is "1,000", never "0.001M"
        assert text[-1] not in SUFFIX or at >= 1e5, labels
        assert not (text.startswith("0.") and at >= 1), labels
