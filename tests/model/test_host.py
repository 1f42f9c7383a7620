"""model.host: what the host must be set to for a prediction to hold (session depth, dm-multipath policy)."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model.host import (
    BUILD_SESSION_DEPTH,
    assumptions,
    build_depth_citation,
    host_settings,
    multipath_policy,
    session_depth_words,
    session_queue_depth,
    spreads,
)
from support.build import make_layout, make_plan


def _pred(attachment: str | None, paths: int | None) -> object:
    cloud = "oci" if attachment else "aws"
    return make_plan(make_layout(cloud=cloud, attachment=attachment, paths=paths),
                     instance="VM.Standard.E4.Flex:16" if cloud == "oci" else "m6i.large").candidates[0].prediction


@pytest.mark.parametrize(("attachment", "paths", "expected"),
                         [("iscsi", 2, True), ("iscsi", 1, False), ("iscsi", None, False),
                          ("paravirtualized", 4, False), (None, 3, False)])
def test_only_iscsi_on_several_paths_needs_spreading(attachment: str | None, paths: int | None,
                                                     expected: bool) -> None:
    assert spreads(attachment, paths) is expected


def test_an_iscsi_prediction_on_paths_asks_for_multibus_and_its_depth() -> None:
    pred = _pred("iscsi", 3)
    settings = host_settings(pred)   # type: ignore[arg-type]
    assert settings["session_queue_depth"] == pred.session_depth   # type: ignore[attr-defined]
    assert settings["multipath"].path_grouping_policy == "multibus"
    line = assumptions(pred)   # type: ignore[arg-type]
    assert line is not None and "3 paths per volume" in line and "dm-multipath" in line


def test_a_prediction_without_an_attachment_asks_nothing() -> None:
    pred = _pred(None, None)
    assert assumptions(pred) is None   # type: ignore[arg-type]
    assert session_queue_depth(pred) is None and multipath_policy(pred) is None   # type: ignore[arg-type]


def test_one_path_needs_no_multipath_but_keeps_its_depth() -> None:
    pred = _pred("iscsi", 1)
    assert multipath_policy(pred) is None   # type: ignore[arg-type]
    line = assumptions(pred)   # type: ignore[arg-type]
    assert line is not None and "1 path per volume" in line and "dm-multipath" not in line


def test_the_depth_build_sets_is_cited_where_the_catalog_has_it() -> None:
    cite = build_depth_citation(load_catalog("oci"))
    assert cite is None or (cite.date and cite.id)
    assert str(BUILD_SESSION_DEPTH) in session_depth_words(BUILD_SESSION_DEPTH, False)
    assert session_depth_words(64, True) == "node.session.queue_depth 64"
