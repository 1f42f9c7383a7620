"""README.md and ARCHITECTURE.md stay short enough to be read whole (detail belongs on the documentation site):
words counted as `wc -w` counts them, whitespace-separated."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMITS = {"README.md": 1200, "ARCHITECTURE.md": 1000}


def words(text: str) -> int:
    return len(text.split())


def test_words_are_counted_as_wc_counts_them() -> None:
    assert words("one two\n\nthree | `four`\tfive") == 6


@pytest.mark.parametrize(("name", "limit"), LIMITS.items())
def test_page_is_within_its_word_limit(name: str, limit: int) -> None:
    count = words((ROOT / name).read_text(encoding="utf-8"))
    assert count <= limit, f"{name}: {count} words; at most {limit} (move detail to docs/)"
