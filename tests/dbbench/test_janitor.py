"""dbbench.janitor: what a bench registers is removed once blockfit is gone, whatever way it went; a clean
exit leaves nothing for it to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.dbbench.janitor import Janitor, clean


def _dir(tmp_path: Path, name: str) -> Path:
    d = tmp_path / name
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "f").write_text("x")
    return d


def test_clean_removes_the_listed_directories_and_its_own(tmp_path: Path) -> None:
    own = tmp_path / "janitor"
    own.mkdir()
    a, b, keep = _dir(tmp_path, "a"), _dir(tmp_path, "b"), _dir(tmp_path, "keep")
    manifest = own / "manifest"
    manifest.write_text(f"dir {a}\nnot-an-entry\ndir {b}\n")
    clean(manifest)
    assert not a.exists() and not b.exists() and not own.exists() and keep.exists()


def test_clean_of_a_missing_manifest_does_nothing(tmp_path: Path) -> None:
    clean(tmp_path / "gone" / "manifest")
    assert list(tmp_path.iterdir()) == []


def test_an_entry_of_two_lines_is_refused(tmp_path: Path) -> None:
    jan = Janitor()
    try:
        with pytest.raises(ValueError, match="not one line"):
            jan.register("dir", tmp_path / "x\ndir /etc")
        assert jan.manifest.read_text() == ""
    finally:
        jan.close()


def test_a_clean_exit_leaves_what_was_registered(tmp_path: Path) -> None:
    d = _dir(tmp_path, "kept")
    jan = Janitor()
    jan.register("dir", d)
    jan.close()
    assert d.exists() and not jan.dir.exists() and jan.proc.returncode is not None


def test_when_blockfit_goes_without_closing_the_janitor_removes_what_it_registered(tmp_path: Path) -> None:
    d = _dir(tmp_path, "left")
    jan = Janitor()
    jan.register("dir", d)
    assert jan.proc.stdin is not None
    jan.proc.stdin.close()   # what the kernel does to the pipe when blockfit is SIGKILLed
    jan.proc.wait(timeout=30)   # it cleans before it exits
    assert not d.exists() and not jan.dir.exists()
