"""The cloud entries of the kinds table, looked up once by a catalog's cloud, and what follows from them alone:
a catalog's families and the one line that names a missing instance."""

from __future__ import annotations

from blockfit.catalog.models import Catalog, Shape
from blockfit.catalog.names import nearest
from blockfit.model.kinds.aws import AwsCloud
from blockfit.model.kinds.azure import AzureCloud
from blockfit.model.kinds.base import Cloud
from blockfit.model.kinds.gcp import GcpCloud
from blockfit.model.kinds.oci import OciCloud
from blockfit.schema.clouds import CLOUD_NAMES

_ENTRIES: dict[str, Cloud] = {c.name: c for c in (OciCloud(), AwsCloud(), AzureCloud(), GcpCloud())}
if set(_ENTRIES) != set(CLOUD_NAMES):  # a name without an entry, or an entry the schema would refuse
    raise ImportError(f"cloud entries {sorted(_ENTRIES)} differ from the registry {sorted(CLOUD_NAMES)}")
# each registered cloud's entry, in the registry's order
CLOUDS: dict[str, Cloud] = {name: _ENTRIES[name] for name in CLOUD_NAMES}


def cloud_of(name: str) -> Cloud:
    """The entry of a cloud the schema already checked (a catalog's or a volume's `cloud`)."""
    return CLOUDS[name]


def family_of(shape: Shape, cloud: str) -> str:
    """The family a size belongs to: its catalog `series`, else what its name says (AWS 'r6i.2xlarge' → r6i, Azure
    'Standard_E8s_v5' → Esv5); a shape without either (OCI) is its own family."""
    return cloud_of(cloud).family(shape)


def families(cat: Catalog) -> list[str]:
    """The families of a catalog, in catalog order."""
    cloud = cloud_of(cat.cloud)
    return list(dict.fromkeys(cloud.family(s) for s in cat.shapes.values()))


def unknown_instance_message(cat: Catalog, name: str, what: str = "instance shape") -> str:
    """One line: the name is not in this catalog, the nearest known names of the same cloud, and how to import it."""
    close = nearest(name, list(cat.shapes) + families(cat))
    where = f"the {cat.cloud} catalog {cat.version}" + ("" if cat.based_on is None else f" ({cat.path})")
    return (f"{what} {name!r}: not in {where}; nearest: {', '.join(close)}; to add it: "
            f"{cloud_of(cat.cloud).import_howto}")
