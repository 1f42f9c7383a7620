"""The bench section at 1,280 px in Debian's headless chromium (issue 49 item 9): no cell of its tables wraps a
word to a line (the verdict column of a 14-column table was 70 px wide and 546 px tall, a word per line), and the
page does not scroll sideways. The page: the shipped bench example, a real two-layout `blockfit bench` run; the
live bench run of test_report_browser.py is checked the same way (`wrapped_cells`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from blockfit.report import report
from support.browser import CHROMIUM

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")]

WIDTH = 1280
EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "bench.json"

# Every table cell of the bench sections: its text's words and the lines the browser laid them out on (the distinct
# tops of the text's line boxes).
CELLS = """() => [...document.querySelectorAll('section[data-kind="bench"] table')].flatMap(t =>
  [...t.querySelectorAll('th, td')].map(c => {
    const range = document.createRange();
    range.selectNodeContents(c);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
    const box = c.getBoundingClientRect();
    return {caption: t.caption ? t.caption.textContent.slice(0, 40) : '', text: c.textContent.trim(),
            words: c.textContent.trim().split(/\\s+/).filter(w => w).length, lines: tops.size,
            width: Math.round(box.width), height: Math.round(box.height)};
  }))"""


def measure(html: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            page.goto(html.resolve().as_uri(), wait_until="load")
            return {"cells": page.evaluate(CELLS), "scroll": page.evaluate("document.documentElement.scrollWidth"),
                    "inner": page.evaluate("window.innerWidth")}
        finally:
            browser.close()


def wrapped_cells(html: Path) -> list[dict[str, Any]]:
    """The cells of the page's bench tables laid out a word (or less) to a line, at 1,280 px; [] when none."""
    seen = measure(html)
    assert seen["inner"] == WIDTH and seen["cells"], seen
    assert seen["scroll"] <= WIDTH, f"the page scrolls sideways ({seen['scroll']} px)"
    return [c for c in seen["cells"] if c["lines"] >= 2 and c["lines"] >= c["words"]]


def test_no_bench_table_cell_wraps_a_word_to_a_line_at_1280px(tmp_path: Path) -> None:
    html = tmp_path / "bench.html"
    report([EXAMPLE], html)
    assert wrapped_cells(html) == []
