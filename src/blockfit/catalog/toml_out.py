"""Write a catalog's raw TOML data back as TOML, in the layout of the shipped files, so an imported catalog reads
like a shipped one and loads through the same code (`tomllib` reads; the standard library has no writer).

Only what catalogs hold: tables of tables (`[shapes."r7i.2xlarge"]`), strings, booleans, integers, floats,
dates, arrays and inline tables. `tomllib.loads(dumps(raw)) == raw` for every shipped catalog (tested).
"""

from __future__ import annotations

import json
import math
import re
from datetime import date
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+\Z")
# sections written as [section.KEY] tables, in this order; anything else at the top level is a plain table
_TABLES_OF_TABLES = ("sources", "volume_types", "shapes", "compute_prices")


def dumps(raw: dict[str, Any], header: str = "") -> str:
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
    # JSON leaves DEL as it is, which TOML forbids in a string: escaped, like the C0 controls json escapes itself
    safe = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return json.dumps(safe, ensure_ascii=False).replace("\x7f", "\\u007f")


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
