"""report.load: any result file read back as its kind; anything else refused in one line naming the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from blockfit.errors import InputError
from blockfit.report.load import EXPECTED, load
from support.build import make_layout, make_plan

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("name", "kind"), [("bench.json", "bench"), ("calibrate.json", "calibrate"),
                                            ("inventory.json", "inventory")])
def test_each_documented_example_is_read_as_its_kind(tmp_path: Path, name: str, kind: str) -> None:
    path = shutil.copy(ROOT / "docs" / "examples" / name, tmp_path / name)
    got = load(Path(path))
    assert got.kind == kind and got.intervals == {} and got.path == Path(path)


def test_a_plan_reads_back_equal(tmp_path: Path) -> None:
    plan = make_plan(make_layout())
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json())
    assert load(path).result == plan


def test_a_recording_is_replayed_into_a_diagnosis_with_intervals(tmp_path: Path) -> None:
    rec = shutil.copy(ROOT / "tests" / "data" / "diagnose" / "lab_stripe_slow_member.jsonl", tmp_path / "r.jsonl")
    got = load(Path(rec))
    assert got.kind == "diagnose" and got.intervals and got.result.source == "replay:r.jsonl"   # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "message"), [("not json", "not valid JSON"),
                                               (json.dumps({"kind": "mystery", "schema_version": 3}), "mystery"),
                                               (json.dumps([1, 2]), "no 'kind' field")])
def test_what_is_no_result_is_one_line_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as err:
        load(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    assert "blockfit" in EXPECTED
