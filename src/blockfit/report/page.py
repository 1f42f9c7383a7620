"""The page: sections (one per result) rendered by a jinja2 template into one self-contained HTML file.

Self-contained means: CSS inline, figures inline SVG, no script, no link to anything outside the file. Text from
results is escaped by the template; control characters (a terminal escape in a device name) are shown as `\x1b`,
as HTML and SVG text may not hold them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import jinja2

from blockfit import __version__
from blockfit.report.figures import ReportFigure


@dataclass
class Table:
    """Cells are already formatted text; `numeric` columns are right-aligned, `wrap` ones (URLs) break anywhere,
    `nowrap` ones (short names such as "oltp-select", which broke at the hyphen) never break."""

    caption: str
    headers: list[str]
    rows: list[list[str]]
    numeric: set[int] = field(default_factory=set)
    wrap: set[int] = field(default_factory=set)
    nowrap: set[int] = field(default_factory=set)
    muted_rows: set[int] = field(default_factory=set)
    strong_rows: set[int] = field(default_factory=set)


@dataclass
class Details:
    """A collapsed block (generated scripts): a one-line summary and preformatted text."""

    summary: str
    text: str


@dataclass
class Section:
    kind: str
    title: str
    source: str
    summary: str
    figures: list[ReportFigure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    lists: list[tuple[str, list[str]]] = field(default_factory=list)
    details: list[Details] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    anchor: str = ""


_env = jinja2.Environment(
    loader=jinja2.PackageLoader("blockfit.report", "templates"),
    undefined=jinja2.StrictUndefined,
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


# What the page may load: nothing (no script, font, frame, fetch or form target); the styles it holds inline (its own
# <style>, and the SVG figures' style elements and attributes). The figures are inline SVG, not images, so no
# img-src. `base-uri` and `form-action` are not covered by default-src. A meta cannot set frame-ancestors.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

# C0 and C1 controls but tab, newline and carriage return; DEL; lone surrogates (a name that was not UTF-8)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def render_page(title: str, sections: list[Section], inputs: list[str]) -> str:
    for i, section in enumerate(sections):
        section.anchor = f"s{i + 1}-{section.kind}"
    page = _env.get_template("report.html.j2").render(
        title=title, sections=sections, inputs=inputs, version=__version__, csp=CSP,
        created=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    return _CONTROL.sub(_visible, page)
