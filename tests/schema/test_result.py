"""schema.result: the envelope every result carries: its kind, and the schema version that wrote it."""

from __future__ import annotations

from blockfit.schema.kinds import RESULT_TYPES
from blockfit.schema.result import SCHEMA_VERSION, ResultEnvelope


def test_a_result_carries_todays_schema_version_unless_it_says_another() -> None:
    assert ResultEnvelope().schema_version == SCHEMA_VERSION >= 1
    assert ResultEnvelope.model_validate({"schema_version": 2}).schema_version == 2


def test_every_result_kind_writes_the_version_first_among_its_fields() -> None:
    for model in RESULT_TYPES.values():
        assert next(iter(model.model_fields)) == "schema_version"
        assert model.model_fields["schema_version"].default == SCHEMA_VERSION
