"""schema.build: a build result carries each file's text, cut to CONTENT_MAX with a line that says so."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from blockfit.schema.build import CONTENT_MAX, BuildResult, BuildStep, step_content


def _step(**kw: object) -> BuildStep:
    base: dict[str, object] = {"order": 1, "name": "lvm", "path": "02-lvm.sh", "kind": "volume-manager",
                               "touches_devices": True, "description": "stripe the members"}
    return BuildStep.model_validate({**base, **kw})


def test_a_file_at_the_limit_is_kept_whole() -> None:
    text = "x" * CONTENT_MAX
    assert step_content(text) == text


def test_one_character_over_the_limit_is_cut_and_says_how_much() -> None:
    text = "y" * (CONTENT_MAX + 1)
    cut = step_content(text)
    assert len(cut) <= CONTENT_MAX and cut != text
    assert f"{len(text):,} characters in the file" in cut.splitlines()[-1]
    shown = re.search(r"the first ([\d,]+) are shown", cut)
    assert shown is not None
    kept = int(shown.group(1).replace(",", ""))
    assert cut[:kept] == text[:kept] and cut[kept] == "\n"


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=3 * CONTENT_MAX), st.sampled_from("ab\n"))
def test_what_a_step_carries_always_fits_its_field(n: int, ch: str) -> None:
    text = ch * n
    cut = step_content(text)
    assert len(cut) <= CONTENT_MAX
    assert (cut == text) == (n <= CONTENT_MAX)
    _step(content=cut)   # the field accepts it


def test_a_step_refuses_content_over_the_limit_and_an_unknown_kind() -> None:
    with pytest.raises(ValidationError):
        _step(content="z" * (CONTENT_MAX + 1))
    with pytest.raises(ValidationError):
        _step(kind="format-everything")


def test_a_build_result_round_trips_and_pins_its_kind() -> None:
    res = BuildResult(out_dir="out", cloud="oci", manager="lvm", members=2, stripe_size=1 << 20,
                      devices=["/dev/sdb", "/dev/sdc"], target_device="/dev/vg/lv", steps=[_step(content="echo")])
    back = BuildResult.model_validate_json(res.model_dump_json())
    assert back == res and back.kind == "build" and back.notes == [] and back.migrations == []
    with pytest.raises(ValidationError):
        BuildResult.model_validate({**res.model_dump(), "kind": "plan"})
