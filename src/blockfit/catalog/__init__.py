"""The cloud volume catalog: dated, sourced limits and prices, one TOML file per cloud and version.

`load_catalog("oci")` gives the newest version; `load_catalog("oci", as_of=date(2020, 12, 31))` the
newest version in force on that date, so an old measurement can be checked against the limits of its day.
"""

from __future__ import annotations

import tomllib
from datetime import date
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from blockfit.catalog.models import (
    CapSet,
    Catalog,
    ComputePrice,
    InstanceRule,
    MachineFamily,
    OciLevel,
    Shape,
    Source,
    VolumeType,
)
from blockfit.errors import InputError

CLOUDS = ("oci", "aws", "azure", "gcp")

__all__ = ["CLOUDS", "CapSet", "Catalog", "ComputePrice", "InstanceRule", "MachineFamily", "OciLevel", "Shape",
           "Source", "VolumeType", "load_catalog", "parse_catalog_date", "versions"]


def _data_dir() -> Path:
    return Path(str(resources.files("blockfit.catalog") / "data"))


def versions(cloud: str) -> list[date]:
    """All catalog versions of a cloud, oldest first."""
    _check_cloud(cloud)
    return sorted(date.fromisoformat(p.stem) for p in (_data_dir() / cloud).glob("*.toml"))


def parse_catalog_date(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text) if len(text) == 10 else date.fromisoformat(text + "-28")
    except ValueError:
        raise InputError(f"--catalog {text!r}: expected a date YYYY-MM-DD or YYYY-MM") from None


def load_catalog(cloud: str, as_of: date | None = None) -> Catalog:
    """The newest catalog version of `cloud` dated on or before `as_of` (default: the newest)."""
    available = versions(cloud)
    chosen = [v for v in available if as_of is None or v <= as_of]
    if not chosen:
        listed = ", ".join(v.isoformat() for v in available)
        raise InputError(f"--catalog {as_of}: no {cloud} catalog version that early (versions: {listed})")
    return _load_file(str(_data_dir() / cloud / f"{chosen[-1].isoformat()}.toml"))


def _check_cloud(cloud: str) -> None:
    if cloud not in CLOUDS:
        raise InputError(f"--cloud {cloud!r}: expected one of {', '.join(CLOUDS)}")


@cache
def _load_file(path: str) -> Catalog:
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    return catalog_from_toml(raw, path)


def catalog_from_toml(raw: dict[str, Any], path: str = "<memory>") -> Catalog:
    """Build a Catalog from parsed TOML, checking every source id an entry cites exists."""
    head = raw.get("catalog", {})
    sources = {sid: {"id": sid, **body} for sid, body in raw.get("sources", {}).items()}
    data = {
        **head,
        "path": path,
        "sources": sources,
        "volume_types": raw.get("volume_types", {}),
        "instance_rule": raw.get("instance_rule"),
        "shapes": raw.get("shapes", {}),
        "compute_prices": {k: {"shape": k, **v} for k, v in raw.get("compute_prices", {}).items()},
    }
    try:
        cat = Catalog.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"catalog {path}: {exc}") from exc
    _copy_levels(cat)
    _check_citations(cat)
    return cat


def _copy_levels(cat: Catalog) -> None:
    """A type with levels_from (OCI boot volumes) sells the other type's levels from its min_vpu up, and shares
    its per-I/O latency figures unless it has its own."""
    for key, vt in cat.volume_types.items():
        if vt.levels_from is None:
            continue
        if vt.levels_from not in cat.volume_types:
            raise ValueError(f"catalog {cat.path}: type {key!r} takes levels from unknown type {vt.levels_from!r}")
        src = cat.volume_types[vt.levels_from]
        vt.levels = [lv for lv in src.levels if lv.vpu >= vt.min_vpu]
        vt.latencies = vt.latencies or list(src.latencies)


def _check_citations(cat: Catalog) -> None:
    entries: list[Any] = list(cat.volume_types.values()) + list(cat.shapes.values())
    entries += list(cat.compute_prices.values())
    for name in cat.compute_prices:
        if name not in cat.shapes:
            raise ValueError(f"catalog {cat.path}: compute price for unknown shape {name!r}")
    entries += [lvl for vt in cat.volume_types.values() for lvl in vt.levels]
    entries += [fig for vt in cat.volume_types.values() for fig in vt.latencies]
    entries += [cs for shape in cat.shapes.values() for cs in shape.caps]
    for shape in cat.shapes.values():
        named = set(shape.volume_types) | {t for cs in shape.caps for t in cs.volume_types}
        for key in sorted(named - set(cat.volume_types)):
            raise ValueError(f"catalog {cat.path}: shape {shape.name!r} names unknown volume type {key!r}")
        for fld in shape.unknown:
            if fld not in Shape.model_fields or getattr(shape, fld) not in (None, [], {}):
                raise ValueError(f"catalog {cat.path}: shape {shape.name!r} marks {fld!r} unknown but it is not "
                                 "an empty figure of a shape")
    if cat.instance_rule:
        entries.append(cat.instance_rule)
    for e in entries:
        for sid in [e.source, *e.sources.values()]:
            if sid not in cat.sources:
                raise ValueError(f"catalog {cat.path}: entry {getattr(e, 'name', e)!r} cites unknown source {sid!r}")
        for fld in e.sources:
            if fld not in type(e).model_fields:
                raise ValueError(f"catalog {cat.path}: entry {getattr(e, 'name', e)!r} sources unknown field {fld!r}")
