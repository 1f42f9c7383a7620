"""model.attachment: how many paths a volume's caps need, which paths a user may name, and how an I/O's unloaded
time is made."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import ValueProblem
from blockfit.model.attachment import attachment_checks, check_paths, paths_needed
from blockfit.model.predict import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

OCI = load_catalog("oci")
BLOCK = OCI.volume_types["block"]


@given(st.floats(1, 1e6), st.floats(1, 1e4), st.floats(1, 1e5), st.floats(1, 1e3))
def test_the_paths_needed_are_the_fewest_that_reach_both_caps(iops: float, mbps: float, p_iops: float,
                                                              p_mbps: float) -> None:
    n = paths_needed(iops, mbps, p_iops, p_mbps)
    assert n >= 1 and n * p_iops >= iops and n * p_mbps >= mbps
    assert n == 1 or (n - 1) * p_iops < iops or (n - 1) * p_mbps < mbps


def test_no_path_ceiling_needs_one_path() -> None:
    assert paths_needed(1e6, 1e4, None, None) == 1


def test_several_paths_go_with_iscsi_only_and_never_beyond_the_fastest_level() -> None:
    check_paths(BLOCK, "iscsi", 1)
    with pytest.raises(ValueProblem, match="has one path"):
        check_paths(BLOCK, "paravirtualized", 2)
    with pytest.raises(ValueProblem, match="expected at most"):
        check_paths(BLOCK, "iscsi", 64)


def test_an_attachment_on_a_cloud_without_them_is_refused() -> None:
    gp3 = load_catalog("aws").volume_types["gp3"]
    checks = attachment_checks(load_catalog("aws"), gp3, "iscsi", None)
    with pytest.raises(ValueProblem, match="no attachment types"):
        checks["attachment,paths"]()
    checks["attachment"]()   # gp3 names no attachments: nothing to check against
    assert attachment_checks(OCI, BLOCK, None, None)["paths"]() is None


def test_an_oci_prediction_carries_the_attachment_it_resolved() -> None:
    lay = parse_layout("2x1T@balanced", "oci", OCI)
    inst = parse_instance("VM.Standard.E4.Flex:16", "oci", OCI)
    pred = predict(lay, inst, Workload(), OCI)
    assert pred.attachment == (BLOCK.default_attachment or pred.attachment) and pred.attachment is not None
    assert (pred.paths or 1) >= 1
    assert pred.base_latency_ms > 0
