"""`build --out` values with no folder of their own to replace (issue 36, parts 8 and 9): '/' was a ValueError
traceback, and `--out . --force` swapped the current directory away, leaving the caller's shell in a deleted
folder. Each is now one line and exit 2, and nothing changes; the build folder is never the current directory,
one that contains it, or the root.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from blockfit.cli import main

DEVICES = ",".join(f"/dev/sd{c}" for c in "bcdefghijklmnop")


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The CLI in this process: exit code (0 when main returns), stderr."""
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A plan of part 3 and as many devices as its recommendation has members."""
    d = tmp_path_factory.mktemp("plan")
    try:
        main(["plan", "--example", "part3", "--out", str(d / "plan.json")])
    except SystemExit as exc:
        assert not exc.code
    members = json.loads((d / "plan.json").read_text())["candidates"][0]["prediction"]["layout_detail"]["members"]
    return d / "plan.json", ",".join(DEVICES.split(",")[:members])


def _tree(top: Path) -> list[tuple[str, int]]:
    """Every entry under top, with its inode: a folder swapped for a copy shows as new inodes."""
    return sorted((str(p.relative_to(top)), p.lstat().st_ino) for p in [top, *top.rglob("*")])


@pytest.mark.parametrize("out", ["/", "", ".", "..", "a file", "cwd", "parent of cwd"])
def test_degenerate_out_is_one_line_exit_2_and_changes_nothing(out: str, plan_file: tuple[Path, str],
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    plan, devices = plan_file
    cwd = tmp_path / "work" / "here"
    cwd.mkdir(parents=True)
    (cwd / "notes.txt").write_text("the user's file")
    (tmp_path / "work" / "a file").write_text("not a folder")
    monkeypatch.chdir(cwd)
    arg = {"a file": "../a file", "cwd": str(cwd), "parent of cwd": str(cwd.parent)}.get(out, out)
    before = _tree(tmp_path)
    code, err = _main(capsys, "build", "--plan", str(plan), "--manager", "lvm", "--devices", devices,
                      "--out", arg, "--force")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--out" in lines[0] and "Traceback" not in err, err
    assert os.getcwd() == str(cwd) and cwd.is_dir()  # the shell's folder is still there, the same inode
    assert _tree(tmp_path) == before
    if out in (".", "", "cwd", "..", "parent of cwd"):
        assert "current directory" in lines[0] and "cd out of it" in lines[0]
    if out == "/":
        assert "root directory" in lines[0]


def test_a_folder_beside_the_cwd_still_builds(plan_file: tuple[Path, str], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal is for the cwd and its ancestors only: a sibling, or a folder inside the cwd, is rebuilt."""
    plan, devices = plan_file
    cwd = tmp_path / "here"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    for out in ("scripts", "../beside"):
        for _ in range(2):  # new, then --force over the first build
            code, err = _main(capsys, "build", "--plan", str(plan), "--manager", "lvm", "--devices", devices,
                              "--out", out, "--force")
            assert code == 0 and (cwd / out / "run-all.sh").is_file(), err
    assert os.getcwd() == str(cwd)
