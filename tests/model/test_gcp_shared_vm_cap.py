"""GCP's per-VM limit over every Persistent Disk and Hyperdisk volume attached ("Performance limits by machine type"):
a vCPU row's `all-disks` figures bound every type's volumes together, the lower of it and the type's own row binding,
and a type without a row of its own still gets the limit over every disk. The shipped catalogs carry no such figure
yet (none was found for any series), so the rows are added here to a copy of the shipped catalog."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from blockfit.catalog import Catalog, catalog_from_toml, load_catalog, raw_catalog
from blockfit.model import predict
from blockfit.schema import Prediction, Workload
from blockfit.specs import parse_instance, parse_layout

MIB = 1.048576


def with_all_disks(rows: dict[int, dict[str, int]]) -> Catalog:
    """The shipped GCP catalog with C4D rows (by vCPUs) given a limit over every disk."""
    raw: dict[str, Any] = copy.deepcopy(raw_catalog(load_catalog("gcp")))
    for tier in raw["shapes"]["c4d"]["tiers"]:
        if tier["vcpus_min"] in rows:
            tier["all-disks"] = rows[tier["vcpus_min"]]
    return catalog_from_toml(raw, "<c4d with all-disks>")


def c4d(cat: Catalog, spec: str, vm: str) -> Prediction:
    return predict(parse_layout(spec, "gcp", cat), parse_instance(vm, "gcp", cat), Workload(), cat, with_curve=False)


def test_the_lower_of_the_type_row_and_every_disk_binds() -> None:
    """c4d-*-16: Hyperdisk Balanced 75,000 IOPS / 1,200 MiB/s per VM; with 60,000 IOPS / 2,000 MiB/s over every disk
    the IOPS cap is the shared one, the MB/s the type's."""
    cat = with_all_disks({16: {"iops": 60_000, "mbps": 2_000}})
    p = c4d(cat, "4x1T@hyperdisk-balanced:30000:600", "c4d-standard-16")
    assert p.instance_iops_cap == 60_000 and p.instance_mbps_cap == pytest.approx(1200 * MIB)
    assert p.max_iops == 60_000 and p.iops_limited_by == "instance_iops"
    iops_row = next(r for r in p.limits if r.name == "instance_iops")
    assert "every PD and Hyperdisk volume" in iops_row.description
    assert any("shared by all the VM's disks, the boot disk too" in w for w in p.warnings)


def test_without_it_the_type_row_alone_holds_as_before() -> None:
    shipped = load_catalog("gcp")
    p = c4d(shipped, "4x1T@hyperdisk-balanced:30000:600", "c4d-standard-16")
    assert p.instance_iops_cap == 75_000
    assert not any("every Persistent Disk and Hyperdisk" in w for w in p.warnings)


def test_a_type_without_its_own_row_gets_the_limit_over_every_disk() -> None:
    """Hyperdisk Extreme on c4d-*-64 has no per-VM row (unknown): the limit over every disk is applied, said."""
    cat = with_all_disks({64: {"iops": 200_000, "mbps": 3_000}})
    p = c4d(cat, "2x1T@hyperdisk-extreme:150000", "c4d-standard-64")
    assert p.instance_iops_cap == 200_000 and p.instance_mbps_cap == pytest.approx(3000 * MIB)
    assert any("limit over every disk is applied" in w for w in p.warnings)
    unknown = c4d(load_catalog("gcp"), "2x1T@hyperdisk-extreme:150000", "c4d-standard-64")
    assert unknown.instance_iops_cap is None           # shipped: not found, not applied
