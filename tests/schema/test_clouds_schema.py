"""One registry of cloud names (schema.clouds): the schema's types, the catalog's list, the catalogs shipped and the
kinds table's entries all say the same clouds, and a capability is asked of a cloud's entry."""

from __future__ import annotations

from importlib import resources
from typing import get_args

import pytest
from pydantic import ValidationError

from blockfit.catalog import CLOUDS, load_catalog
from blockfit.catalog.models import Catalog
from blockfit.model.kinds import CLOUDS as ENTRIES
from blockfit.model.kinds import cloud_of
from blockfit.schema import Volume
from blockfit.schema.clouds import CLOUD_NAMES, CloudName


def test_every_list_of_clouds_is_the_registry() -> None:
    assert CLOUD_NAMES == get_args(CloudName) == ("oci", "aws", "azure", "gcp")
    assert get_args(Volume.model_fields["cloud"].annotation) == CLOUD_NAMES
    assert get_args(Catalog.model_fields["cloud"].annotation) == CLOUD_NAMES
    assert CLOUDS == CLOUD_NAMES
    assert tuple(ENTRIES) == CLOUD_NAMES and all(ENTRIES[n].name == n for n in CLOUD_NAMES)
    shipped = {p.name for p in resources.files("blockfit.catalog").joinpath("data").iterdir() if p.is_dir()}
    assert shipped >= set(CLOUD_NAMES)


def test_a_name_outside_the_registry_is_refused_by_the_schema() -> None:
    with pytest.raises(ValidationError):
        Volume(cloud="ibm", type="block", size_gb=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("cloud", CLOUD_NAMES)
def test_sized_by_count_is_the_flexible_shapes_of_each_catalog(cloud: str) -> None:
    """The entry answers for each shape: a shape whose size is a count has the count's bounds in the catalog."""
    cat = load_catalog(cloud)
    entry = cloud_of(cloud)
    counted = {name for name, s in cat.shapes.items() if entry.sized_by_count(s)}
    assert counted == {name for name, s in cat.shapes.items() if s.kind == "flex"}
    assert all(cat.shapes[n].ocpus_min is not None and cat.shapes[n].ocpus_max is not None for n in counted)
    assert bool(counted) == (cloud == "oci")
