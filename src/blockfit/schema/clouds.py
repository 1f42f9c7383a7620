"""The clouds blockfit knows: the one registry of their names. The schema's `Cloud` type, the catalog's list and
the kinds table's entries (`model.kinds.CLOUDS`, one per name, checked) are derived from it; a new cloud is a name
here, a catalog folder and a `Cloud` entry."""

from __future__ import annotations

from typing import Literal, get_args

CloudName = Literal["oci", "aws", "azure", "gcp"]
CLOUD_NAMES: tuple[str, ...] = get_args(CloudName)
