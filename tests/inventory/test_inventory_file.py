"""An inventory read back by `model --inventory`: a foreign, tampered or unreadable file is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.inproc import run
from support.systree import aws_host, aws_volumes


@pytest.fixture
def inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    aws_host(tmp_path / "host")
    volumes = tmp_path / "v.json"
    volumes.write_text(json.dumps(aws_volumes()))
    code, out, err = run(["inspect", "--root", str(tmp_path / "host"), "--volumes", str(volumes), "--json"], capsys)
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    return data


def _tampered(data: dict[str, object], field: str, value: object) -> dict[str, object]:
    copy = json.loads(json.dumps(data))
    copy["layouts"][0][field] = value
    return copy


CASES = {
    "another kind": (lambda d: {**d, "kind": "model"}, "result kind 'model'"),
    "a spec of control characters": (lambda d: _tampered(d, "spec", "1x1T@gp3\x1b[2J"), "the layout under /u01"),
    "a spec the catalog refuses": (lambda d: _tampered(d, "spec", "1x1T@gp3:99999999"), "the layout under /u01"),
    "no spec": (lambda d: _tampered(d, "spec", None), "no layout has a spec (/u01"),
    "a field of the wrong type": (lambda d: _tampered(d, "used_bytes", "lots"), "not a valid blockfit inventory"),
    "nested too deep": (lambda d: {**d, "warnings": json.loads("[" * 70 + "]" * 70)}, "nested deeper"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_inventory_is_one_line(case: str, inventory: dict[str, object], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    make, words = CASES[case]
    path = tmp_path / "inventory.json"
    path.write_text(json.dumps(make(inventory)))
    code, out, err = run(["model", "--inventory", str(path)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err and "\x1b" not in err, err


def test_a_device_or_a_missing_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for path, words in (("/dev/zero", "is a device"), (str(tmp_path / "none.json"), "file not found")):
        code, _, err = run(["model", "--inventory", path], capsys)
        assert code == 2 and words in err and err.count("\n") == 1, err
    code, _, err = run(["model", "--mount", "/u01"], capsys)
    assert code == 2 and "only with --inventory" in err
