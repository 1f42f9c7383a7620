"""schema.migration: one way to move the data, and the current layout it moves from."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from blockfit.schema.migration import CurrentLayout, Migration, MigrationLimit, MigrationMethod
from support.build import make_layout, make_plan


def _migration(**kw: object) -> Migration:
    base: dict[str, object] = {
        "method": "offline-block-copy", "online": False, "tool": "dd", "data_bytes": 10**9, "data_what": "device",
        "read_mbps": 100, "read_limited_by": "volume_mbps", "write_mbps": 200, "write_limited_by": "volume_mbps",
        "rate_mbps": 100, "limited_by": "source_read", "duration_s": 10, "arithmetic": ["1 GB / 100 MB/s = 10 s"]}
    return Migration.model_validate({**base, **kw})


@pytest.mark.parametrize("method", typing.get_args(MigrationMethod))
def test_each_documented_method_is_accepted(method: str) -> None:
    assert _migration(method=method).method == method


@pytest.mark.parametrize("bad", [{"method": "rsync"}, {"limited_by": "cpu"}, {"data_bytes": "lots"},
                                 {"arithmetic": None}])
def test_a_migration_refuses_what_is_outside_its_vocabulary(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        _migration(**bad)


def test_every_limit_is_named_in_the_method_docs() -> None:
    assert set(typing.get_args(MigrationLimit)) == {"source_read", "target_write", "instance_mbps", "in_flight"}
    m = _migration()
    assert m.sources == [] and m.notes == [] and m.in_flight is None


def test_a_current_layout_carries_its_prediction_through_json() -> None:
    pred = make_plan(make_layout()).candidates[0].prediction
    cur = CurrentLayout(mount_point="/u01", device="dm-0", prediction=pred)
    assert CurrentLayout.model_validate_json(cur.model_dump_json()) == cur
    assert cur.size_bytes is None and cur.used_bytes is None
