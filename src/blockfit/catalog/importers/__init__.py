"""`blockfit catalog import`: refresh a catalog from the output of the user's own provider CLI, offline.

One module per provider behind one small interface (`Provider`): the file formats it reads (`FORMATS`), how it
recognises them (`detect`), the timestamp a file carries (`file_date`), what the figures of its files are
(`read` → a `Contribution` of shape, price and volume-type figures) and which of a shape's cap sets the API's
flat figures describe (`covers_capset`). This module does the rest for all of them: read and recognise the files
(a file of another provider, or of none, is an input error), lay the contribution over the base catalog (the
newest shipped version unless told otherwise), cite every imported figure to its file and that file's own date,
list what changed (old → new), check the result loads, and write it atomically as TOML.
"""

from __future__ import annotations

import copy
import json
import tomllib
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from blockfit.catalog import CLOUDS, Catalog, catalog_from_toml, raw_catalog
from blockfit.catalog.importers.common import (
    Contribution,
    Format,
    ImportProblem,
    InputFile,
    RegionProblem,
    cited,
    iso_date,
    need,
    one_region,
    positive,
)
from blockfit.catalog.toml_out import dumps
from blockfit.errors import InputError, ValueProblem
from blockfit.files import check_target, write_atomically
from blockfit.inputs import read_capped, user_path
from blockfit.units import fmt_count


class Provider(Protocol):
    CLOUD: str
    FORMATS: tuple[Format, ...]

    def detect(self, data: Any) -> Format | None: ...

    def file_date(self, fmt: Format, data: Any) -> date | None: ...

    def read(self, files: list[InputFile], base: Catalog, region: str | None) -> Contribution: ...

    def covers_capset(self, capset: dict[str, Any], shape: dict[str, Any]) -> bool: ...


class Change(BaseModel):
    item: str = Field(description="shapes.NAME, compute_prices.NAME or volume_types.KEY (caps[i] for a cap set)")
    field: str
    old: Any = Field(description="the base catalog's figure; None = not known there")
    new: Any


class ImportedFileInfo(BaseModel):
    path: str
    format: str
    date: date
    source: str
    entries: int


class ImportResult(BaseModel):
    """What `blockfit catalog import` did."""

    kind: Literal["catalog-import"] = "catalog-import"
    schema_version: int = 1
    cloud: str
    out: str
    version: date
    based_on: date
    files: list[ImportedFileInfo]
    added: list[str] = Field(description="shapes the base catalog did not have")
    replaced: list[str] = Field(description="shapes of the base catalog whose figures the import gives")
    prices: int = Field(description="compute prices written or updated")
    changes: list[Change] = Field(description="every figure of the base catalog the import changed, old → new")
    skipped: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def providers() -> dict[str, Provider]:
    from blockfit.catalog.importers import aws, azure, gcp, oci

    found: dict[str, Provider] = {"aws": aws.PROVIDER, "azure": azure.PROVIDER, "gcp": gcp.PROVIDER,
                                  "oci": oci.PROVIDER}
    return found


IMPORTABLE = tuple(sorted(CLOUDS))   # every registered cloud has an importer (providers)
# One provider file is parsed whole; the cap is far above any (the largest, AWS's EC2 price list of one region, is
# hundreds of MB) and only bounds what is no provider output at all.
MAX_PROVIDER_BYTES = 4 * 1024**3
SHAPE_FIGURES = ("kind", "iops", "mbps", "iops_burst", "mbps_burst", "attach_max", "vcpus", "memory_gb", "gbps",
                 "gbps_per_ocpu", "gbps_max", "ocpus", "ocpus_min", "ocpus_max", "current")
PRICE_FIGURES = ("per_hour", "per_ocpu_hour", "per_gb_hour", "memory_min_gb_per_ocpu", "memory_default_gb_per_ocpu",
                 "memory_max_gb_per_ocpu", "region")
CAP_FIGURES = ("iops", "mbps", "iops_burst", "mbps_burst")


def import_catalog(cloud: str, paths: list[str], out: Path, base: Catalog, region: str | None = None,
                   today: date | None = None) -> ImportResult:
    """Read the provider files, lay them over `base`, write the catalog to `out` (atomically) and say what changed.
    Every problem is an InputError raised before anything is written."""
    check_cloud(cloud)
    check_base(cloud, base)
    files = load_files(cloud, paths, out)
    check_out(out, files)
    check_region(cloud, region, files)
    return import_files(cloud, files, out, base, region, today)


def check_cloud(cloud: str) -> None:
    if cloud not in IMPORTABLE:
        raise ValueProblem(f"{cloud!r}: expected one of {', '.join(IMPORTABLE)}")


def check_base(cloud: str, base: Catalog) -> None:
    """The catalog an import starts from is one of the cloud it imports."""
    if base.cloud != cloud:
        raise ValueProblem(f"a {base.cloud} catalog, not {cloud}")


def load_files(cloud: str, paths: list[str], out: Path) -> list[InputFile]:
    """Each provider file read and recognized (an InputError naming the file when it is not)."""
    if not paths:
        raise InputError("catalog import: expected at least one FILE (the provider CLI's JSON output)")
    check_target(out, "--out")
    provider = providers()[cloud]
    return [_load(provider, text, i + 1) for i, text in enumerate(paths)]


def check_region(cloud: str, region: str | None, files: list[InputFile]) -> None:
    """A price region goes with a price file of a cloud that prices by region."""
    if region is not None and (cloud == "oci" or not any(f.format.prices for f in files)):
        raise ValueProblem(f"{region}: " + ("OCI prices are the same in every commercial region; drop it"
                                            if cloud == "oci" else "goes with a price file (it picks one of "
                                            "the regions the file prices)"))


def import_files(cloud: str, files: list[InputFile], out: Path, base: Catalog, region: str | None = None,
                 today: date | None = None) -> ImportResult:
    """Lay the checked files over `base` and write the catalog to `out` (atomically); say what changed."""
    provider = providers()[cloud]
    contribution = provider.read(files, base, region)
    raw = copy.deepcopy(raw_catalog(base))
    stamp = today or datetime.now(UTC).date()
    version = max([base.version, *(f.date for f in files)])
    _add_sources(raw, files)
    added, replaced = _lay_shapes(raw, contribution, provider)
    _lay_prices(raw, contribution)
    _lay_volumes(raw, contribution)
    head = raw.setdefault("catalog", {})
    kinds = ", ".join(dict.fromkeys(f.format.title for f in files))
    head.update({
        "version": version,
        "title": f"{base.title} + import of {stamp.isoformat()} ({kinds})",
        "based_on": base.version,
    })
    head["notes"] = [*head.get("notes", []),
                     f"Imported {stamp.isoformat()} over the shipped {cloud} catalog {base.version}: "
                     f"{fmt_count(len(added), 'shape')} added, {len(replaced)} updated, "
                     f"{fmt_count(len(contribution.compute_prices), 'compute price')}, from "
                     + "; ".join(f"{f.source_id} = {f.shown} ({f.format.title}, {f.date})" for f in files)
                     + ". Figures the files do not give keep their shipped sources.",
                     *contribution.notes]
    header = (f"blockfit catalog: {cloud}, imported {stamp.isoformat()} over the shipped version {base.version}.\n"
              "Every imported figure cites its file (sources IMPORT-N) and that file's own date.")
    text = dumps(raw, header)
    new = _loaded(text, out)   # what every command will read from the file, before anything is replaced
    changes = _changes(base, new, replaced, contribution)
    write_atomically(out, text, "--out")
    return ImportResult(
        cloud=cloud, out=str(out), version=version, based_on=base.version,
        files=[ImportedFileInfo(path=f.shown, format=f.format.title, date=f.date, source=f.source_id,
                                entries=contribution.counts.get(f.source_id, 0)) for f in files],
        added=added, replaced=replaced, prices=len(contribution.compute_prices), changes=changes,
        skipped=contribution.skipped, notes=contribution.notes)


def _loaded(text: str, out: Path) -> Catalog:
    """The catalog TEXT is, read as `--catalog FILE` reads it (TOML, then the catalog's models and bounds); an
    InputError when it would not load."""
    try:
        return catalog_from_toml(tomllib.loads(text), str(out))
    except tomllib.TOMLDecodeError as exc:   # a character TOML forbids, written as it came
        raise InputError(f"catalog import: the catalog written would not be TOML ({exc}); the imported catalog "
                         "would not load") from None
    except ValueError as exc:   # a figure out of the catalog's bounds (a negative OCPU count, a subnormal rate)
        raise InputError(f"catalog import: {_first_problem(exc)}; the imported catalog would not load") from None


def _first_problem(exc: ValueError) -> str:
    """One line for the first entry the catalog refused: its field (shapes.NAME.ocpus_min), the value, the bound."""
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and cause.errors():
        first = cause.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        msg = first["msg"].removeprefix("Value error, ")
        return f"{where} = {first['input']!r}: {msg[:1].lower()}{msg[1:]}"
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines[:3])


def check_out(out: Path, files: list[InputFile]) -> None:
    """The catalog written may not replace an input file or a catalog blockfit ships (they are read, never
    rewritten)."""
    target = out.resolve()
    if any(f.path.resolve() == target for f in files):
        raise ValueProblem(f"{str(out)!r}: is one of the files to import; expected a new catalog file")
    if target.is_relative_to(Path(str(resources.files("blockfit.catalog") / "data")).resolve()):
        raise ValueProblem(f"{str(out)!r}: a catalog blockfit ships; expected a file of your own")


def _load(provider: Provider, text: str, number: int) -> InputFile:
    path = user_path(text, "file")
    # a regular file only, read against a cap: a FIFO waited forever, /dev/zero read until memory ran out
    body = read_capped(path, text, "the provider CLI's JSON output", MAX_PROVIDER_BYTES)
    try:
        mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC).date()
    except OSError as exc:
        raise InputError(f"{text}: cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{text}: not JSON ({exc}); expected the provider CLI's --output json") from None
    fmt = provider.detect(data)
    if fmt is None:
        expected = " or ".join(f.title for f in provider.FORMATS)
        for other_cloud, other in providers().items():
            theirs = other.detect(data) if other_cloud != provider.CLOUD else None
            if theirs is not None:
                raise InputError(f"{text}: {theirs.title} output ({other_cloud}), not {provider.CLOUD}; expected "
                                 f"{expected}")
        raise InputError(f"{text}: not recognised; expected {expected} JSON")
    when = provider.file_date(fmt, data) or mtime
    return InputFile(shown=text, path=path, data=data, format=fmt, date=when, source_id=f"IMPORT-{number}")


def _add_sources(raw: dict[str, Any], files: list[InputFile]) -> None:
    sources = raw.setdefault("sources", {})
    for f in files:
        try:
            where = f.path.resolve().as_uri()
        except ValueError:
            where = str(f.path)
        sources[f.source_id] = {
            "url": where,
            "date": f.date,
            "copy": f"{f.format.title} output imported by 'blockfit catalog import' from {f.shown}",
            "note": f"The user's own provider output, dated {f.date} by the file ({f.format.title}; format: "
                    f"{f.format.doc_url}).",
        }


def _lay_shapes(raw: dict[str, Any], c: Contribution, provider: Provider) -> tuple[list[str], list[str]]:
    shapes = raw.setdefault("shapes", {})
    added, replaced = [], []
    for name, fields in c.shapes.items():
        cited = c.shape_sources.get(name, {})
        entry = shapes.get(name)
        if entry is None:
            entry = shapes[name] = {"name": name}
            added.append(name)
            main = max(set(cited.values()), key=list(cited.values()).count)   # the file most fields come from
            entry["source"] = main
        else:
            replaced.append(name)
            main = entry.get("source", "")
        sources = _set_fields(entry, fields, cited, main)
        _lay_capsets(entry, fields, cited, provider)
        unknown = [u for u in entry.get("unknown", []) if entry.get(u) in (None, [], {})]
        if unknown:
            entry["unknown"] = unknown
        else:
            entry.pop("unknown", None)
        if sources:
            entry["sources"] = sources
        else:
            entry.pop("sources", None)
        shapes[name] = _ordered(entry)
    return added, replaced


def _set_fields(entry: dict[str, Any], fields: dict[str, Any], cited: dict[str, str], main: str) -> dict[str, str]:
    """Write FIELDS into a catalog entry (None removes a field) and return its per-field sources: a field cited
    by other than the entry's MAIN source keeps its own."""
    sources = dict(entry.get("sources", {}))
    for key, value in fields.items():
        if value is None:
            entry.pop(key, None)
            sources.pop(key, None)
            continue
        entry[key] = value
        if cited.get(key) and cited[key] != main:
            sources[key] = cited[key]
        else:
            sources.pop(key, None)
    return sources


def _lay_capsets(entry: dict[str, Any], fields: dict[str, Any], cited: dict[str, str], provider: Provider) -> None:
    """The API's flat figures are the caps of the default interface, weighting and disk family: a cap set of the base
    that holds exactly for that selection takes them too, so the model reports the imported figures."""
    for cs in entry.get("caps", []):
        if not provider.covers_capset(cs, entry):
            continue
        sources = dict(cs.get("sources", {}))
        for key in CAP_FIGURES:
            if key in fields:
                if fields[key] is None:
                    cs.pop(key, None)
                    sources.pop(key, None)
                else:
                    cs[key] = fields[key]
                    sources[key] = cited[key]
        if sources:
            cs["sources"] = sources


def _ordered(entry: dict[str, Any]) -> dict[str, Any]:
    """name and kind first, source, sources, unknown and note last: the layout of the shipped files."""
    first: dict[str, Any] = {k: entry[k] for k in ("name", "kind") if k in entry}
    last: dict[str, Any] = {k: entry[k] for k in ("source", "sources", "unknown", "note") if k in entry}
    middle = {k: v for k, v in entry.items() if k not in first and k not in last}
    return {**first, **middle, **last}


def _lay_prices(raw: dict[str, Any], c: Contribution) -> None:
    prices = raw.setdefault("compute_prices", {})
    for name, fields in c.compute_prices.items():
        cited = c.price_sources.get(name, {})
        entry = prices.get(name)
        if entry is None:
            entry = prices[name] = {"source": next(iter(cited.values()))}
        main = entry["source"]
        sources = _set_fields(entry, fields, cited, main)
        if sources:
            entry["sources"] = sources
        else:
            entry.pop("sources", None)
        prices[name] = _ordered(entry)


def _lay_volumes(raw: dict[str, Any], c: Contribution) -> None:
    types = raw.get("volume_types", {})
    for key, fields in c.volume_types.items():
        entry = types[key]
        sources = dict(entry.get("sources", {}))
        for name, value in fields.items():
            entry[name] = value
            sources[name] = c.volume_sources[key][name]
        entry["sources"] = sources


def _changes(base: Catalog, new: Catalog, replaced: list[str], c: Contribution) -> list[Change]:
    out: list[Change] = []

    def compare(item: str, old: Any, fresh: Any, names: tuple[str, ...]) -> None:
        for name in names:
            before, after = getattr(old, name, None), getattr(fresh, name, None)
            if before != after:
                out.append(Change(item=item, field=name, old=before, new=after))

    for name in replaced:
        old, fresh = base.shapes[name], new.shapes[name]
        compare(f"shapes.{name}", old, fresh, SHAPE_FIGURES)
        for i, (a, b) in enumerate(zip(old.caps, fresh.caps, strict=True)):
            compare(f"shapes.{name}.caps[{i}]", a, b, CAP_FIGURES)
    for name in c.compute_prices:
        if name in base.shapes:   # a price of a shape the base has: changed, or known now (old None)
            compare(f"compute_prices.{name}", base.compute_prices.get(name), new.compute_prices[name], PRICE_FIGURES)
    for key, fields in c.volume_types.items():
        compare(f"volume_types.{key}", base.volume_types[key], new.volume_types[key], tuple(fields))
    return out


__all__ = ["CLOUDS", "Change", "Contribution", "Format", "IMPORTABLE", "ImportProblem", "ImportResult", "InputFile",
           "Provider", "RegionProblem", "cited", "import_catalog", "iso_date", "need", "one_region", "positive",
           "providers"]
