"""catalog/toml_out writes through tomli-w; the hand-written writer it replaces is kept here as the reference. On
every shipped catalog and on drawn catalog-like documents both texts load to the same data, and what cannot be a
catalog figure is refused by both."""

from __future__ import annotations

import json
import math
import re
import tomllib
from datetime import date
from importlib import resources
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog.toml_out import dumps

# ---- the replaced writer, verbatim (the reference)

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+\Z")
# sections written as [section.KEY] tables, in this order; anything else at the top level is a plain table
_TABLES_OF_TABLES = ("sources", "volume_types", "shapes", "compute_prices")


def old_dumps(raw: dict[str, Any], header: str = "") -> str:
    """TOML text for a catalog's raw data: [catalog] first, then sources, volume types, the instance rule, shapes
    and compute prices, each entry a table of its own."""
    out: list[str] = [f"# {line}" if line else "#" for line in header.splitlines()]
    order = ["catalog", "sources", "volume_types", "instance_rule", "instance_burst", "shapes", "compute_prices"]
    for section in order + sorted(set(raw) - set(order)):
        if section not in raw:
            continue
        body = raw[section]
        if not isinstance(body, dict):
            raise TypeError(f"catalog section {section!r}: expected a table")
        if section in _TABLES_OF_TABLES:
            for name, entry in body.items():
                out += ["", f"[{_key(section)}.{_key(name)}]", *_pairs(entry)]
        else:
            out += ["", f"[{_key(section)}]", *_pairs(body)]
    return "\n".join(out).lstrip("\n") + "\n"


def _pairs(table: dict[str, Any]) -> list[str]:
    return [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    # JSON's escapes are TOML's (TOML has no \/ and json never writes it); non-ASCII stays literal so no
    # surrogate pair escapes appear, and a lone surrogate (an undecodable file name) is spelt out instead
    safe = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return json.dumps(safe, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"catalog figure {value!r}: expected a finite number")
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        inner = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        items = [_value(v) for v in value]
        if any(isinstance(v, dict) for v in value):
            return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
        return "[" + ", ".join(items) + "]"
    raise TypeError(f"catalog value {value!r}: cannot be written as TOML")


# ----

SHIPPED = sorted(p for cloud in resources.files("blockfit.catalog").joinpath("data").iterdir() if cloud.is_dir()
                 for p in cloud.iterdir() if p.name.endswith(".toml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shipped_catalog_loads_the_same_from_both_writers(path: Any) -> None:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    new, old = dumps(raw, "imported\n\nheader"), old_dumps(raw, "imported\n\nheader")
    assert tomllib.loads(new) == tomllib.loads(old) == raw
    assert new.splitlines()[:4] == old.splitlines()[:4] == ["# imported", "#", "# header", ""]


KEYS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
SCALARS = st.one_of(st.booleans(), st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=30), st.dates(date(1990, 1, 1), date(2100, 1, 1)))
VALUES = st.recursive(SCALARS | st.none(), lambda inner: st.lists(inner.filter(lambda v: v is not None), max_size=4)
                      | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)
ENTRY = st.dictionaries(KEYS, VALUES, max_size=6)
DOC = st.fixed_dictionaries({"catalog": ENTRY, "sources": st.dictionaries(KEYS, ENTRY, max_size=3)},
                            optional={"shapes": st.dictionaries(KEYS, ENTRY, max_size=3), "instance_rule": ENTRY,
                                      "extra": ENTRY})


def _homogeneous(value: Any) -> bool:
    """TOML 1.0 (tomllib) takes mixed arrays; a list of tables and scalars is the one shape writers disagree on."""
    if isinstance(value, dict):
        return all(_homogeneous(v) for v in value.values())
    if isinstance(value, list):
        tables = [isinstance(v, dict) for v in value]
        return (all(tables) or not any(tables)) and all(_homogeneous(v) for v in value)
    return True


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


@settings(max_examples=150, deadline=None)
@given(DOC)
def test_drawn_documents_load_the_same_from_both_writers(raw: dict[str, Any]) -> None:
    """Both load to the document without its None fields. The differences: an empty section of tables
    (`sources = {}`), which the old writer dropped and tomli-w keeps (no catalog has one: each cites sources), and
    a DEL character, which the old writer left raw (a file TOML refuses, which `catalog import` then reported)."""
    if not _homogeneous(raw):
        return
    expected = _without_none(raw)
    assert tomllib.loads(dumps(raw)) == expected
    dropped = {k for k in ("sources", "volume_types", "shapes", "compute_prices") if raw.get(k) == {}}
    try:
        old = tomllib.loads(old_dumps(raw))
    except tomllib.TOMLDecodeError:   # the old writer left DEL raw in a string: TOML refuses it, tomli-w escapes it
        assert any("\x7f" in s for s in _strings(raw))
        return
    assert old == {k: v for k, v in expected.items() if k not in dropped}


def test_what_no_catalog_holds_is_refused_by_both() -> None:
    for bad in ({"catalog": {"iops": math.inf}}, {"catalog": {"iops": math.nan}}):
        for writer in (dumps, old_dumps):
            with pytest.raises(ValueError):
                writer(bad)
    for writer in (dumps, old_dumps):
        with pytest.raises(TypeError):
            writer({"catalog": "not a table"})
        with pytest.raises(TypeError):
            writer({"catalog": {"x": object()}})


def test_a_lone_surrogate_is_spelt_out_the_same() -> None:
    raw = {"catalog": {"path": "/tmp/\udcff.json"}}
    assert tomllib.loads(dumps(raw)) == tomllib.loads(old_dumps(raw)) == {"catalog": {"path": "/tmp/\\udcff.json"}}
