"""schema.kinds: each result kind maps to the model whose `kind` it is, one to one."""

from __future__ import annotations

import typing

from blockfit.schema.kinds import RESULT_TYPES
from blockfit.schema.result import ResultEnvelope, ResultKind


def test_every_kind_is_written_by_exactly_one_model() -> None:
    assert set(RESULT_TYPES) == set(typing.get_args(ResultKind))
    assert len(set(RESULT_TYPES.values())) == len(RESULT_TYPES)


def test_each_models_kind_is_its_key() -> None:
    for kind, model in RESULT_TYPES.items():
        assert issubclass(model, ResultEnvelope)
        assert model.model_fields["kind"].default == kind
