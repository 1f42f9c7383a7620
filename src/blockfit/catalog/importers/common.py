"""What the provider importers share: a file format, a file read, what a provider contributes, and the checks
every importer makes of a provider's figures. The package's `__init__` lays a contribution over the base catalog;
each provider module (aws, azure, gcp, oci) imports from here, never from the package above it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from blockfit.catalog.models import TINY, Catalog
from blockfit.errors import InputError, ValueProblem


@dataclass(frozen=True)
class Format:
    """One file format a provider's importer reads."""

    key: str
    title: str            # what the user ran, e.g. "aws ec2 describe-instance-types"
    doc_url: str          # public reference of the format
    prices: bool = False  # a price list (--region picks among its regions)


@dataclass
class InputFile:
    shown: str            # the path as the user gave it
    path: Path
    data: Any
    format: Format
    date: date
    source_id: str


@dataclass
class Contribution:
    """What a provider read: raw catalog entries (TOML field names), each figure citing its file's source id.

    `shapes` and `compute_prices`: name → fields laid over the base entry (a value None removes the field);
    `sources_of`: name → {field: source id} for those fields; `volume_types`: key → fields (prices) likewise."""

    shapes: dict[str, dict[str, Any]] = field(default_factory=dict)
    shape_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    compute_prices: dict[str, dict[str, Any]] = field(default_factory=dict)
    price_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    volume_types: dict[str, dict[str, Any]] = field(default_factory=dict)
    volume_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)       # source id → entries read from that file
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def shape(self, name: str, src: str, cite: dict[str, str] | None = None, **fields: Any) -> None:
        """Fields of one shape from the file `src`; `cite` names another source for some (a figure the base
        catalog's sources give, such as AWS's direction of the EBS caps)."""
        self.shapes.setdefault(name, {}).update(fields)
        self.shape_sources.setdefault(name, {}).update({k: src for k in fields} | (cite or {}))
        self.counts[src] = self.counts.get(src, 0) + 1

    def price(self, name: str, src: str, **fields: Any) -> None:
        self.compute_prices.setdefault(name, {}).update(fields)
        self.price_sources.setdefault(name, {}).update({k: src for k in fields})
        self.counts[src] = self.counts.get(src, 0) + 1

    def volume(self, key: str, src: str, **fields: Any) -> None:
        self.volume_types.setdefault(key, {}).update(fields)
        self.volume_sources.setdefault(key, {}).update({k: src for k in fields})
        self.counts[src] = self.counts.get(src, 0) + 1


class ImportProblem(InputError):
    """A file that cannot be imported: one line naming the file, the entry and what was expected."""


class RegionProblem(ValueProblem):
    """A price region the file does not price: found while the file is read, named by the CLI as --region's."""


def need(obj: Any, dotted: str, where: str, kinds: type | tuple[type, ...] = (int, float)) -> Any:
    """obj[a][b]... by a dotted path; missing or of the wrong type is an ImportProblem naming the entry."""
    value = obj
    for part in dotted.split("."):
        if not isinstance(value, dict) or value.get(part) is None:
            raise ImportProblem(f"{where}: missing {dotted}")
        value = value[part]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise ImportProblem(f"{where}: {dotted} = {value!r}: expected a number")
    if not isinstance(value, kinds):
        raise ImportProblem(f"{where}: {dotted} = {value!r}: expected {_kind_name(kinds)}")
    return value


def positive(value: float, what: str, where: str, most: float | None = None, unit_hint: str = "") -> float:
    """A figure a provider file gives: finite, and at least TINY (1e-320 is a typo or an attack, not a rate)."""
    if not (math.isfinite(value) and value >= TINY):
        raise ImportProblem(f"{where}: {what} = {value!r}: expected a positive figure (at least {TINY:g})")
    if most is not None and value > most:
        raise ImportProblem(f"{where}: {what} = {value!r}: more than {most:g}; the unit contradicts the field"
                            + (f" ({unit_hint})" if unit_hint else ""))
    return value


def _kind_name(kinds: type | tuple[type, ...]) -> str:
    names = {int: "a whole number", float: "a number", str: "text", list: "a list", dict: "an object",
             bool: "true or false"}
    seq = kinds if isinstance(kinds, tuple) else (kinds,)
    if set(seq) == {int, float}:
        return "a number"
    return " or ".join(names.get(k, k.__name__) for k in seq)


def iso_date(text: Any) -> date | None:
    """'2025-11-20T19:20:42Z' or '2025-11-20' → a date; None when absent or not a timestamp."""
    if not isinstance(text, str) or len(text) < 10:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


def one_region(regions: dict[str, Any], region: str | None, where: str, option_hint: str) -> str | None:
    """The one price region to take: --region, or the file's only one; several without --region is an error."""
    if region is not None:
        if region not in regions:
            listed = ", ".join(sorted(regions)[:8]) or "none"
            raise RegionProblem(f"{region}: {where} has no prices for it (regions: {listed})")
        return region
    if len(regions) > 1:
        listed = ", ".join(sorted(regions)[:8])
        raise ImportProblem(f"{where}: prices for {len(regions)} regions ({listed}); expected one ({option_hint}) or "
                            "give --region")
    return next(iter(regions), None)


def cited(cat: Catalog, source_id: str) -> str | None:
    """The base catalog's source id if it has it (a figure blockfit reads from the shipped sources, not the file)."""
    return source_id if source_id in cat.sources else None
