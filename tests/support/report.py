"""Shared by the report tests: run the CLI, and check a report's HTML without a browser (parse, references)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import html5lib

BLOCKFIT = [sys.executable, "-c", "from blockfit.cli import main; main()"]


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BLOCKFIT, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def cli_json(path: Path, *args: str) -> dict[str, Any]:
    """Run a command with --json, keep its stdout in PATH (a real result file), return it parsed."""
    proc = cli(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    path.write_text(proc.stdout)
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


class _Refs(HTMLParser):
    """Every attribute that can pull something in from outside: src, href, xlink:href, srcset, action."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "srcset", "action", "data", "poster"):
                self.refs.append((tag, name, value or ""))


def check_self_contained(html: str) -> None:
    """Valid HTML5 (html5lib in strict mode raises on any parse error), and nothing referenced outside the file."""
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)
    parser = _Refs()
    parser.feed(html)
    outside = [r for r in parser.refs if not r[2].startswith("#")]
    assert outside == [], f"references outside the page: {outside[:5]}"
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parser.tags)
    assert not re.search(r"url\((?!#)", html), "a CSS url() to something outside the page"
    assert "@import" not in html


def kinds_in_order(html: str) -> list[str]:
    return re.findall(r'<section class="result" id="[^"]+" data-kind="([a-z-]+)"', html)


def section_html(html: str, kind: str) -> str:
    start = html.index(f'data-kind="{kind}"')
    end = html.find('<section class="result"', start)
    return html[start:end if end > 0 else len(html)]
