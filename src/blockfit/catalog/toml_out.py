"""Write a catalog's raw TOML data back as TOML (tomli-w), sections in the order of the shipped files, so an imported
catalog reads like a shipped one and loads through the same code (`tomllib` reads; the standard library has no
writer).

Only what catalogs hold: tables of tables (`[shapes."r7i.2xlarge"]`), strings, booleans, integers, floats,
dates, arrays and inline tables; a field whose value is None is left out, a figure that is not finite refused.
`tomllib.loads(dumps(raw)) == raw` for every shipped catalog (tested).
"""

from __future__ import annotations

import math
from typing import Any

import tomli_w

ORDER = ("catalog", "sources", "volume_types", "instance_rule", "instance_burst", "shapes", "compute_prices")


def dumps(raw: dict[str, Any], header: str = "") -> str:
    """TOML text for a catalog's raw data: [catalog] first, then sources, volume types, the instance rule, shapes
    and compute prices, each entry a table of its own."""
    out: list[str] = [f"# {line}" if line else "#" for line in header.splitlines()]
    doc: dict[str, Any] = {}
    for section in [*ORDER, *sorted(set(raw) - set(ORDER))]:
        if section not in raw:
            continue
        if not isinstance(raw[section], dict):
            raise TypeError(f"catalog section {section!r}: expected a table")
        doc[section] = _clean(raw[section])
    return ("\n".join(out) + "\n\n" if out else "") + tomli_w.dumps(doc)


def _clean(value: Any) -> Any:
    """VALUE as tomli-w writes it: None fields dropped, a figure that is not finite refused, a lone surrogate (an
    undecodable file name) spelt out as its escape."""
    if isinstance(value, dict):
        return {_text(k): _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"catalog figure {value!r}: expected a finite number")
    if isinstance(value, str):
        return _text(value)
    return value


def _text(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
