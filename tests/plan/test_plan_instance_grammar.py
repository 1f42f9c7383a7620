"""One instance grammar (issue 37 item 4): FAMILY means a search over the family's sizes on every cloud. On GCP
`--instance n2` planned the series at an open vCPU count with compute "unknown ... give --memory" (while
`--instance n2-highmem-32` priced it) and refused `--min-memory` although `--help` lists FAMILY."""

from __future__ import annotations

import json

import pytest

from blockfit.catalog import load_catalog
from blockfit.plan.shapes import is_search
from support.inproc import run

GCP = load_catalog("gcp")


def test_a_gcp_series_is_a_family_a_machine_type_is_a_shape():
    assert is_search(GCP, "n2") and is_search(GCP, "N2")
    assert not is_search(GCP, "n2-highmem-32") and not is_search(GCP, "n2:32")
    aws = load_catalog("aws")
    assert is_search(aws, "r7i") and not is_search(aws, "r7i.4xlarge")


def test_gcp_family_is_priced_and_takes_min_memory(capsys: pytest.CaptureFixture[str]):
    base = ["plan", "--cloud", "gcp", "--capacity", "2T", "--target-iops", "20000", "--instance", "n2", "--json"]
    code, out, err = run(base, capsys)
    assert code == 0, err
    plan = json.loads(out)
    first = plan["candidates"][0]
    assert first["prediction"]["cost"]["compute"] is not None and plan["instance_search"]["query"] == "n2"
    code, out, err = run([*base, "--min-memory", "128G"], capsys)
    assert code == 0, err
    plan = json.loads(out)
    detail = plan["candidates"][0]["prediction"]["cost"]["compute_detail"]
    assert detail["memory_gb"] >= 128 and plan["candidates"][0]["prediction"]["cost"]["compute"] is not None


def test_min_memory_applies_to_a_shape_with_its_count_open(capsys: pytest.CaptureFixture[str]):
    """A flexible shape with no count is a search over its counts: --min-memory applies as it does to a family."""
    base = ["plan", "--cloud", "oci", "--capacity", "1T", "--target-iops", "20000", "--json"]
    code, out, err = run([*base, "--instance", "VM.Standard.E4.Flex", "--min-memory", "128G"], capsys)
    assert code == 0, err
    detail = json.loads(out)["candidates"][0]["prediction"]["cost"]["compute_detail"]
    assert detail["memory_gb"] >= 128
    code, _, err = run([*base, "--instance", "VM.Standard.E4.Flex:8", "--min-memory", "128G"], capsys)
    assert code == 2 and "--min-memory" in err
    code, _, err = run([*base, "--instance", "VM.Standard.E4.Flex", "--min-vcpus", "8"], capsys)
    assert code == 2 and "OCI sells OCPUs" in err
