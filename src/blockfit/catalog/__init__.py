"""The cloud volume catalog: dated, sourced limits and prices, one TOML file per cloud and version.

`load_catalog("oci")` gives the newest version; `load_catalog("oci", as_of=date(2020, 12, 31))` the
newest version in force on that date, so an old measurement can be checked against the limits of its day.
`resolve_catalog(cloud, "--catalog" text)` takes either such a date or the path of a catalog file that
`blockfit catalog import` wrote (`load_catalog_file`).
"""

from __future__ import annotations

import re
import tomllib
from datetime import date
from functools import cache
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
from blockfit.errors import InputError, ValueProblem
from blockfit.inputs import read_capped, user_path
from blockfit.schema.clouds import CLOUD_NAMES

CLOUDS = CLOUD_NAMES   # the old name of schema.clouds.CLOUD_NAMES, kept while branches move to it

__all__ = ["CATALOG_SPEC_HELP", "CLOUDS", "CapSet", "Catalog", "ComputePrice", "InstanceRule", "MachineFamily",
           "OciLevel", "Shape", "Source", "VolumeType", "is_catalog_date", "load_catalog", "load_catalog_file",
           "parse_catalog_date", "raw_catalog", "resolve_catalog", "versions"]

# --catalog takes a date (YYYY-MM-DD or YYYY-MM) or a file path: text of exactly this form is always a date (give a
# file named like a date as ./2026-11-25), anything else is a path
_DATE_FORM = re.compile(r"^\d{4}-\d{2}(-\d{2})?\Z", re.ASCII)
CATALOG_SPEC_HELP = ("catalog: a date YYYY-MM-DD or YYYY-MM (the shipped version in force that day; default the "
                     "newest) or the path of a catalog file 'blockfit catalog import' wrote")


def _data_dir() -> Path:
    """The shipped catalogs: files beside this module (read as paths, so an install must unpack them anyway)."""
    return Path(__file__).parent / "data"


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
        raise ValueProblem(f"{text!r}: expected a date YYYY-MM-DD or YYYY-MM") from None


def is_catalog_date(text: str) -> bool:
    return bool(_DATE_FORM.match(text.strip()))


def resolve_catalog(cloud: str | None, spec: str | None, what: str = "--catalog") -> Catalog:
    """The catalog `--catalog SPEC` names for `cloud`: the shipped version in force on a date, or a catalog file.
    A file's own cloud decides when `cloud` is None; a different one is an input error."""
    if cloud is not None:
        _check_cloud(cloud)
    if spec is None or is_catalog_date(spec):
        try:
            return load_catalog(cloud or "oci", parse_catalog_date(spec.strip() if spec else None))
        except ValueProblem as exc:   # a date: named as the caller's option, like a file below
            raise ValueProblem(exc.bare, what) from None
    cat = load_catalog_file(spec, what)
    if cloud is not None and cat.cloud != cloud:
        raise InputError(f"{what} {spec!r}: a catalog of {cat.cloud}, not {cloud} (give --cloud {cat.cloud} or leave "
                         "--cloud out)")
    return cat


def load_catalog_file(path_text: str, what: str = "--catalog") -> Catalog:
    """A catalog file (as `blockfit catalog import` writes them: the shipped TOML layout); one-line InputError
    when it cannot be read or is not a catalog."""
    path = user_path(path_text, what)
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(f"{what} {path_text!r}: expected a date YYYY-MM-DD / YYYY-MM or a catalog file "
                         f"({exc.strerror.lower() if exc.strerror else 'cannot be read'})") from None
    if not path.is_file():
        raise InputError(f"{what} {path_text!r}: expected a catalog file, not a directory or device")
    return _load_user_file(str(path.resolve()), st.st_mtime_ns, st.st_size, what, path_text)


MAX_CATALOG_BYTES = 64 * 1024**2  # a shipped catalog is about 100 KB; an import adds a few hundred shapes


@cache
def _load_user_file(path: str, _mtime_ns: int, _size: int, what: str, shown: str) -> Catalog:
    """Cached by modification time and size, so a file rewritten by an import is read again. Read as every user
    file is (`inputs.read_capped`): a /proc file is refused, a regular file read against a cap."""
    body = read_capped(Path(path), f"{what} {shown!r}", "a catalog file", MAX_CATALOG_BYTES)
    try:
        raw = tomllib.loads(body.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{what} {shown!r}: not a blockfit catalog (TOML: {exc})") from None
    if not isinstance(raw.get("catalog"), dict) or raw["catalog"].get("cloud") not in CLOUD_NAMES:
        raise InputError(f"{what} {shown!r}: not a blockfit catalog (expected a [catalog] table naming the cloud, "
                         f"one of {', '.join(CLOUD_NAMES)})")
    try:
        return catalog_from_toml(raw, path)
    except ValueError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        detail = " ".join(lines[:3]).replace(f"catalog {path}: ", "")
        raise InputError(f"{what} {shown!r}: not a valid blockfit catalog ({detail})") from None


def is_shipped(cat: Catalog) -> bool:
    """Whether CAT is one of the catalogs blockfit ships (not a file `catalog import` wrote)."""
    return Path(cat.path).resolve().parent.parent == _data_dir().resolve()


def raw_catalog(cat: Catalog) -> dict[str, Any]:
    """The parsed TOML a catalog was loaded from (an import starts from it and writes it back with its changes)."""
    body = read_capped(Path(cat.path), f"catalog {cat.path}", "a catalog file", MAX_CATALOG_BYTES)
    return tomllib.loads(body.decode("utf-8"))


def load_catalog(cloud: str, as_of: date | None = None) -> Catalog:
    """The newest catalog version of `cloud` dated on or before `as_of` (default: the newest)."""
    available = versions(cloud)
    chosen = [v for v in available if as_of is None or v <= as_of]
    if not chosen:
        listed = ", ".join(v.isoformat() for v in available)
        raise ValueProblem(f"{as_of}: no {cloud} catalog version that early (versions: {listed})")
    return _load_file(str(_data_dir() / cloud / f"{chosen[-1].isoformat()}.toml"))


def _check_cloud(cloud: str) -> None:
    if cloud not in CLOUD_NAMES:
        raise ValueProblem(f"{cloud!r}: expected one of {', '.join(CLOUD_NAMES)}")


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
        "instance_burst": raw.get("instance_burst"),
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


def _predefined_machine_type(cat: Catalog, name: str) -> bool:
    """A machine type the catalog lists (GCP's m4-ultramem-224): Google prices a few of them apart from their series.
    Only GCP shapes carry machine families, so no other cloud's name matches."""
    parts = name.split("-")
    if len(parts) != 3 or not parts[2].isdigit() or parts[0] not in cat.shapes:
        return False
    family = cat.shapes[parts[0]].machine_families.get(parts[1])
    return family is not None and int(parts[2]) in family.vcpus


def _check_tier_sources(cat: Catalog, shape: Shape) -> None:
    """A volume type's own source for its per-VM caps in tiers: a known source, a type the shape attaches, and
    rows that carry that type's IOPS and MB/s (so no figure is cited by a source that does not give it)."""
    for vtype, sid in shape.tier_sources.items():
        where = f"catalog {cat.path}: shape {shape.name!r} tier_sources {vtype!r}"
        if sid not in cat.sources:
            raise ValueError(f"{where} cites unknown source {sid!r}")
        if shape.volume_types and vtype not in shape.volume_types and vtype != "all-disks":
            raise ValueError(f"{where}: the shape does not attach {vtype!r}")
        rows = [t.get(vtype) for t in shape.tiers]
        if not rows or not all(isinstance(r, dict) and all(_cap(r.get(k)) for k in ("iops", "mbps")) for r in rows):
            raise ValueError(f"{where}: every tier must give {vtype} = {{ iops = N, mbps = N }}, each at least 1")


def _cap(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 1


def _check_citations(cat: Catalog) -> None:
    """Every name an entry gives (a shape, a volume type, a source, a sourced field) must exist in the catalog, so a
    typo in a TOML file fails at load and not as a wrong figure later. The checks run in this order so the first
    error a bad file shows stays the same."""
    _check_compute_prices(cat)
    _check_vm_caps_as(cat)
    for shape in cat.shapes.values():
        _check_shape_names(cat, shape)
        _check_tier_sources(cat, shape)
    for e in _cited_entries(cat):
        _check_entry_sources(cat, e)


def _check_compute_prices(cat: Catalog) -> None:
    """A compute price must price a shape the catalog has (or one of GCP's predefined machine types)."""
    for name in cat.compute_prices:
        if name not in cat.shapes and not _predefined_machine_type(cat, name):
            raise ValueError(f"catalog {cat.path}: compute price for unknown shape {name!r}")


def _check_vm_caps_as(cat: Catalog) -> None:
    """A type that takes another type's instance caps must name a type the catalog has."""
    for key, vt in cat.volume_types.items():
        if vt.vm_caps_as is not None and vt.vm_caps_as not in cat.volume_types:
            raise ValueError(f"catalog {cat.path}: type {key!r} takes the instance caps of unknown type "
                             f"{vt.vm_caps_as!r}")


def _check_shape_names(cat: Catalog, shape: Shape) -> None:
    """A shape attaches only known volume types and marks unknown only shape figures it leaves empty."""
    named = set(shape.volume_types) | {t for cs in shape.caps for t in cs.volume_types}
    for key in sorted(named - set(cat.volume_types)):
        raise ValueError(f"catalog {cat.path}: shape {shape.name!r} names unknown volume type {key!r}")
    for fld in shape.unknown:
        if fld not in Shape.model_fields or getattr(shape, fld) not in (None, [], {}):
            raise ValueError(f"catalog {cat.path}: shape {shape.name!r} marks {fld!r} unknown but it is not "
                             "an empty figure of a shape")


def _cited_entries(cat: Catalog) -> list[Any]:
    """Every entry of the catalog that cites a source, in the order their errors are reported."""
    types = list(cat.volume_types.values())
    entries: list[Any] = types + list(cat.shapes.values()) + list(cat.compute_prices.values())
    entries += [lvl for vt in types for lvl in vt.levels]
    entries += [fig for vt in types for fig in vt.latencies]
    entries += [vt.latency for vt in types if vt.latency is not None]
    entries += [cs for shape in cat.shapes.values() for cs in shape.caps]
    entries += [e for e in (cat.instance_rule, cat.instance_burst) if e is not None]
    return entries


def _check_entry_sources(cat: Catalog, e: Any) -> None:
    """An entry cites known sources, and its per-field sources name fields the entry has."""
    for sid in [e.source, *e.sources.values()]:
        if sid not in cat.sources:
            raise ValueError(f"catalog {cat.path}: entry {getattr(e, 'name', e)!r} cites unknown source {sid!r}")
    for fld in e.sources:
        if fld not in type(e).model_fields:
            raise ValueError(f"catalog {cat.path}: entry {getattr(e, 'name', e)!r} sources unknown field {fld!r}")
