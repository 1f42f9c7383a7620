"""The catalog: every version loads, every figure cites a dated source, versions are picked by date."""

import copy
import json
import subprocess
import sys
import tomllib
from datetime import date
from pathlib import Path

import pytest

from blockfit.catalog import CLOUDS, catalog_from_toml, load_catalog, versions

DATA = Path(__file__).parents[2] / "src" / "blockfit" / "catalog" / "data"


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_version_loads_with_dated_sources(cloud):
    for v in versions(cloud):
        cat = load_catalog(cloud, v)
        assert cat.version == v and cat.volume_types and cat.shapes
        for src in cat.sources.values():
            assert src.url and isinstance(src.date, date)
        for vt in cat.volume_types.values():
            assert vt.source in cat.sources


def test_oci_has_two_dated_versions_and_picks_by_date():
    assert len(versions("oci")) >= 2
    assert load_catalog("oci", date(2021, 6, 1)).version == date(2020, 12, 11)
    assert load_catalog("oci").version == versions("oci")[-1]


def test_unknown_source_is_rejected():
    raw = tomllib.loads((DATA / "oci" / "2026-09-05.toml").read_text())
    bad = copy.deepcopy(raw)
    bad["volume_types"]["block"]["levels"][1]["source"] = "NOWHERE"
    with pytest.raises(ValueError, match="NOWHERE"):
        catalog_from_toml(bad)
    bad = copy.deepcopy(raw)
    bad["shapes"]["VM.Standard.E4.Flex"]["sources"] = {"no_such_field": "OCI-PERF"}
    with pytest.raises(ValueError, match="no_such_field"):
        catalog_from_toml(bad)
    assert catalog_from_toml(raw).cloud == "oci"


def test_catalog_cli_lists_versions():
    r = subprocess.run([sys.executable, "-m", "blockfit", "catalog", "list", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {(r["cloud"], r["version"]) for r in rows} >= {("oci", "2020-12-11"), ("aws", "2023-06-15")}
