"""Names a user may have meant: the nearest names by edit distance, and Azure's series read from a size's name (the
importer and the Azure cloud entry both read it)."""

from __future__ import annotations

import re

_AZURE_SIZE = re.compile(r"^([A-Z]+)(\d+)(?:-\d+)?([a-z]*)(?:_(v\d+))?\Z")


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, case-insensitive."""
    a, b = a.lower(), b.lower()
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def nearest(name: str, candidates: list[str], limit: int = 3) -> list[str]:
    """The `limit` candidates closest to `name` (ties in catalog order)."""
    ranked = sorted(enumerate(dict.fromkeys(candidates)), key=lambda ic: (edit_distance(name, ic[1]), ic[0]))
    return [c for _i, c in ranked[:limit]]


def azure_series(name: str) -> str | None:
    """'Standard_E8bds_v5' → 'Ebdsv5'; isolated sizes join their series ('E112ibds_v5' → 'Ebdsv5'), constrained
    ones too ('E16-4ds_v4' → 'Edsv4')."""
    m = _AZURE_SIZE.match(name.removeprefix("Standard_"))
    if not m:
        return None
    suffix = m.group(3)
    if len(suffix) > 1 and suffix.startswith("i"):
        suffix = suffix[1:]
    return f"{m.group(1)}{suffix}{m.group(4) or ''}"
