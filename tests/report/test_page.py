"""report.page: one self-contained page; result text is escaped and control characters made visible."""

from __future__ import annotations

import re
from html import unescape

from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.report.page import CSP, Section, Table, render_page
from support.report import check_self_contained


def _page(text: str) -> str:
    s = Section("inventory", f"Inventory: {text}", "inv.json", f"summary {text}",
                tables=[Table("t", ["a"], [[text]])], notes=[text])
    return render_page("Report", [s], ["inv.json"])


def test_sections_are_anchored_in_order_by_kind() -> None:
    sections = [Section("plan", "P", "p.json", "s"), Section("build", "B", "b.json", "s"),
                Section("plan", "P2", "q.json", "s")]
    html = render_page("Report", sections, ["p.json", "b.json", "q.json"])
    assert [s.anchor for s in sections] == ["s1-plan", "s2-build", "s3-plan"]
    assert [m for m in re.findall(r'id="(s\d-\w+)"', html)] == ["s1-plan", "s2-build", "s3-plan"]


def test_markup_in_a_result_is_text_and_the_page_loads_nothing() -> None:
    html = _page('<script>alert(1)</script><img src="http://x/y">')
    assert "<script>alert" not in html and "&lt;script&gt;" in html and '<img src="http' not in html
    meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert meta is not None and unescape(meta.group(1)) == CSP
    check_self_contained(html)


@settings(max_examples=12, deadline=None)
@given(st.characters(min_codepoint=0, max_codepoint=0x9F).filter(lambda c: c not in "\t\n\r" and
                                                                  (ord(c) < 0x20 or ord(c) >= 0x7F)))
def test_a_control_character_is_shown_as_its_escape(ch: str) -> None:
    html = _page(f"dm{ch}0")
    assert ch not in html and f"dm\\x{ord(ch):02x}0" in html
