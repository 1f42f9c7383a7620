"""model.resolve: a layout and instance checked against the catalog before anything is predicted."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model.resolve import layout_spec, normalize_volume, resolve, volume_type
from blockfit.schema import Volume, Workload
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


def test_an_unknown_volume_type_names_the_types_there_are() -> None:
    with pytest.raises(InputError, match="volume type 'gp9': expected one of .*gp3"):
        volume_type(AWS, Volume(cloud="aws", type="gp9", size_gb=100))


def test_normalising_fills_defaults_and_is_idempotent() -> None:
    vol = normalize_volume(AWS, Volume(cloud="aws", type="gp3", size_gb=100))
    assert vol.provisioned_iops is not None and normalize_volume(AWS, vol) == vol


@pytest.mark.parametrize("spec", ["2x500G@gp3", "4x1T@io2:16000", "1x2T@st1"])
def test_the_spec_written_reads_back_as_the_same_layout(spec: str) -> None:
    lay = parse_layout(spec, "aws", AWS)
    again = parse_layout(layout_spec(AWS, lay), "aws", AWS)
    assert again.members == lay.members and again.volume.size_gb == lay.volume.size_gb
    assert normalize_volume(AWS, again.volume) == normalize_volume(AWS, lay.volume)


def test_another_clouds_layout_is_refused() -> None:
    oci = load_catalog("oci")
    lay = parse_layout("2x1T@balanced", "oci", oci)
    with pytest.raises(InputError, match="expected aws for both"):
        resolve(AWS, lay, parse_instance("m6i.large", "aws", AWS), Workload())


def test_mirroring_needs_a_volume_per_copy() -> None:
    lay = parse_layout("2x500G@gp3", "aws", AWS).model_copy(update={"redundancy": "high"})
    with pytest.raises(InputError, match="expected at least 3 volumes"):
        resolve(AWS, lay, parse_instance("m6i.large", "aws", AWS), Workload())
    ok = resolve(AWS, lay.model_copy(update={"members": 3}), parse_instance("m6i.large", "aws", AWS), Workload())
    assert ok.layout.members == 3 and ok.vt.name
