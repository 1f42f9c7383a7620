"""empty_list: a default factory pydantic can read cheaply, and still a fresh list for every model."""

from __future__ import annotations

import inspect

from pydantic import BaseModel, Field

from blockfit.schema.empty import empty_list


class _Holder(BaseModel):
    items: list[int] = Field(default_factory=empty_list)


def test_each_call_is_a_new_empty_list() -> None:
    a, b = empty_list(), empty_list()
    assert a == [] and b == [] and a is not b


def test_models_do_not_share_the_default() -> None:
    one, two = _Holder(), _Holder()
    one.items.append(1)
    assert two.items == [] and one.items == [1]


def test_its_signature_is_read_without_parsing_text() -> None:
    """Why it exists: a Python function has a real signature (the builtin list's is parsed from text)."""
    assert inspect.signature(empty_list).parameters == {}
    assert getattr(empty_list, "__text_signature__", None) is None


def test_the_schema_is_that_of_a_list_default() -> None:
    class WithList(BaseModel):
        items: list[int] = Field(default_factory=list)

    assert _Holder.model_json_schema()["properties"] == WithList.model_json_schema()["properties"]
