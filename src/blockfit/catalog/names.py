"""Names a user may have meant: the nearest shape and family names of a cloud by edit distance, and how to bring a
missing instance into a catalog (`blockfit catalog import`)."""

from __future__ import annotations

import re

from blockfit.catalog.models import Catalog, Shape

_AZURE_SIZE = re.compile(r"^([A-Z]+)(\d+)(?:-\d+)?([a-z]*)(?:_(v\d+))?\Z")

IMPORT_HOWTO = {
    "aws": "aws ec2 describe-instance-types --output json > types.json; blockfit catalog import --cloud aws types.json "
           "--out aws.toml; then --catalog aws.toml",
    "azure": "az vm list-skus --location REGION --output json > skus.json; blockfit catalog import --cloud azure "
             "skus.json --out azure.toml; then --catalog azure.toml",
    "oci": "oci compute shape list --compartment-id OCID --all --output json > shapes.json; blockfit catalog import "
           "--cloud oci shapes.json --out oci.toml; then --catalog oci.toml",
    "gcp": "GCP publishes no machine-readable per-VM disk limits, so it cannot be imported; name a series with a vCPU "
           "count (n2:16) or see 'blockfit catalog show gcp'",
}


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


def family_of(shape: Shape, cloud: str) -> str:
    """The family a size belongs to: its catalog `series`, else what its name says (AWS 'r6i.2xlarge' → r6i, Azure
    'Standard_E8s_v5' → Esv5); a shape without either (OCI) is its own family."""
    if shape.series:
        return shape.series
    if cloud == "aws" and "." in shape.name:
        return shape.name.split(".")[0]
    if cloud == "azure":
        return azure_series(shape.name) or shape.name
    return shape.name


def families(cat: Catalog) -> list[str]:
    """The families of a catalog, in catalog order."""
    return list(dict.fromkeys(family_of(s, cat.cloud) for s in cat.shapes.values()))


def unknown_instance_message(cat: Catalog, name: str, what: str = "instance shape") -> str:
    """One line: the name is not in this catalog, the nearest known names of the same cloud, and how to import it."""
    close = nearest(name, list(cat.shapes) + families(cat))
    where = f"the {cat.cloud} catalog {cat.version}" + ("" if cat.based_on is None else f" ({cat.path})")
    return (f"{what} {name!r}: not in {where}; nearest: {', '.join(close)}; to add it: "
            f"{IMPORT_HOWTO[cat.cloud]}")
