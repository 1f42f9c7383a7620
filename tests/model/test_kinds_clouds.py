"""The cloud entries of the kinds table (model/kinds/clouds.py): one per catalog cloud, looked up by name, and
what each decides (families, compute units, levels by name, device paths) where code used to branch on a name."""

from __future__ import annotations

import pytest

from blockfit.catalog import CLOUDS as CATALOG_CLOUDS
from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model.kinds import CLOUDS, cloud_of
from blockfit.model.kinds.clouds import families, family_of, unknown_instance_message
from blockfit.specs import instance_expected, parse_layout


def test_every_catalog_cloud_has_one_entry_under_its_own_name() -> None:
    assert sorted(CLOUDS) == sorted(CATALOG_CLOUDS)
    assert all(cloud_of(name).name == name for name in CLOUDS)


@pytest.mark.parametrize("cloud", sorted(CATALOG_CLOUDS))
def test_every_shape_belongs_to_a_family_its_catalog_lists(cloud: str) -> None:
    cat = load_catalog(cloud)
    listed = families(cat)
    assert len(listed) == len(set(listed)) and listed
    for shape in cat.shapes.values():
        fam = family_of(shape, cloud)
        assert fam in listed
        assert fam == (shape.series or fam)   # a catalog's series wins over what the name says


def test_families_read_from_names_where_the_catalog_gives_no_series() -> None:
    aws, azure, oci = (load_catalog(c) for c in ("aws", "azure", "oci"))
    r6i = aws.shapes["r6i.2xlarge"].model_copy(update={"series": None})
    assert family_of(r6i, "aws") == "r6i"
    e8 = next(iter(azure.shapes.values())).model_copy(update={"name": "Standard_E8bds_v5", "series": None})
    assert family_of(e8, "azure") == "Ebdsv5"
    flex = oci.shapes["VM.Standard.E4.Flex"]
    assert family_of(flex, "oci") == flex.name


@pytest.mark.parametrize(("cloud", "unit", "example"), [("oci", "OCPUS", "VM.Standard.E4.Flex"),
                                                         ("aws", "VCPUS", "r6i.2xlarge"),
                                                         ("gcp", "VCPUS", "n2-standard-16")])
def test_an_instance_error_speaks_the_clouds_unit_and_shapes(cloud: str, unit: str, example: str) -> None:
    text = instance_expected(cloud)
    assert f"SHAPE[:{unit}]" in text and example in text


def test_a_missing_instance_says_how_to_import_it_for_its_own_cloud() -> None:
    for cloud in CATALOG_CLOUDS:
        text = unknown_instance_message(load_catalog(cloud), "nope.big")
        assert cloud_of(cloud).import_howto in text
        others = [c.import_howto for c in CLOUDS.values() if c.name != cloud]
        assert not any(o in text for o in others)


def test_level_names_select_oci_block_volumes_and_nothing_elsewhere() -> None:
    oci, aws = load_catalog("oci"), load_catalog("aws")
    assert parse_layout("2x100G@higher", "oci", oci).volume.vpu_per_gb == 20
    assert parse_layout("1x100G@boot-higher", "oci", oci).volume.type == "boot"
    with pytest.raises(InputError, match="expected one of"):
        parse_layout("2x100G@higher", "aws", aws)


def test_provisioned_oci_attachments_need_consistent_device_paths() -> None:
    oci, aws = cloud_of("oci"), cloud_of("aws")
    good = ["/dev/oracleoci/oraclevdb", "/dev/oracleoci/oraclevdab"]
    assert oci.device_error(good) is None and oci.device_note(good) is None
    assert "'/dev/sdc'" in (oci.device_error(good + ["/dev/sdc"]) or "")
    assert oci.device_note(["/dev/sdc"]) is not None
    assert aws.device_error(["/dev/sdc"]) is None and aws.device_note(["/dev/sdc"]) is None


def test_a_vcpu_search_is_refused_only_where_compute_is_sold_in_ocpus() -> None:
    with pytest.raises(InputError, match="^8: OCI sells OCPUs"):   # the value; the command line names the option
        cloud_of("oci").check_vcpu_search(8)
    for name in ("aws", "azure", "gcp"):
        cloud_of(name).check_vcpu_search(8)
