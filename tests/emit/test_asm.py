"""emit/asm.py: the allocation unit ASM is given for the plan's stripe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.inproc import run

from blockfit.emit.asm import au_size_mb
from blockfit.units import KIB, MIB


def test_asm_au_size():
    assert au_size_mb(4 * MIB)[0] == 4
    assert au_size_mb(64 * MIB)[0] == 64
    assert au_size_mb(256 * KIB)[0] == 1  # below ASM's minimum: 1 MB
    assert au_size_mb(128 * MIB)[0] == 64  # above the maximum: 64 MB
    mb, why = au_size_mb(256 * KIB)
    assert "not a valid ASM AU" in why


def _plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, out, err = run(["plan", "--example", "part3", "--json"], capsys)
    assert code == 0, err
    (tmp_path / "plan.json").write_text(out)
    return tmp_path / "plan.json"


def _build(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str, manager: str = "asm",
           out: str = "b") -> tuple[int, str]:
    plan = json.loads((tmp_path / "plan.json").read_text())
    members = plan["candidates"][0]["prediction"]["layout_detail"]["members"]
    devs = ",".join(f"/dev/oracleoci/oraclevd{chr(98 + i)}" for i in range(members))
    code, _, err = run(["build", "--plan", str(tmp_path / "plan.json"), "--manager", manager, "--devices", devs,
                        "--out", str(tmp_path / out), *extra], capsys)
    return code, err


def test_the_disk_group_is_made_for_the_release_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """compatible.asm/rdbms were always 19.0.0.0.0: a 12c or 18c database could not use the disk group."""
    _plan(tmp_path, capsys)
    code, err = _build(tmp_path, capsys, "--asm-compatible", "12.2", out="old")
    assert code == 0, err
    sql = (tmp_path / "old" / "21-asm-diskgroup.sql").read_text()
    assert "'compatible.asm' = '12.2.0.0.0'" in sql and "'compatible.rdbms' = '12.2.0.0.0'" in sql
    assert "19.0" not in sql
    code, err = _build(tmp_path, capsys, out="default")
    assert code == 0, err
    assert "'compatible.rdbms' = '19.0.0.0.0'" in (tmp_path / "default" / "21-asm-diskgroup.sql").read_text()


@pytest.mark.parametrize("value, needle", [
    ("11.1", "11.2 or later"), ("12.x", "an Oracle release"), ("19.0.0.0.0.1", "an Oracle release"),
    ("12.2'; DROP", "an Oracle release"), ("", "an Oracle release"),
])
def test_a_release_that_is_not_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str,
                                              needle: str) -> None:
    _plan(tmp_path, capsys)
    code, err = _build(tmp_path, capsys, "--asm-compatible", value)
    assert code == 2 and needle in err and "--asm-compatible" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()


def test_the_release_goes_with_asm_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _plan(tmp_path, capsys)
    code, err = _build(tmp_path, capsys, "--asm-compatible", "12.2", manager="lvm")
    assert code == 2 and "goes with --manager asm" in err
