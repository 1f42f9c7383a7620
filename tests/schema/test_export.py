"""schema.export: one JSON Schema per result kind, written as the files docs/schema carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockfit.schema.export import schema_text, write
from blockfit.schema.kinds import RESULT_TYPES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "schema"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """What `python -m blockfit.schema.export DIR` writes (generating the schemas once, ~0.7 s)."""
    return write(tmp_path_factory.mktemp("export") / "schema")


def test_a_file_per_kind_each_naming_its_kind(written: list[Path]) -> None:
    assert sorted(p.name for p in written) == sorted(f"{k}.json" for k in RESULT_TYPES)
    for p in written:
        kind = p.stem
        schema = json.loads(p.read_text())
        assert schema["$id"] == f"blockfit/{kind}.json"
        assert schema["properties"]["kind"].get("const", kind) == kind


def test_the_text_is_sorted_and_stable(written: list[Path]) -> None:
    for p in written:
        text = p.read_text()
        assert text.endswith("}\n") and schema_text(json.loads(text)) == text


def test_the_files_are_the_ones_docs_carry(written: list[Path]) -> None:
    for p in written:
        assert p.read_text() == (DOCS / p.name).read_text(), p.name
