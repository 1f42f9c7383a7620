"""Outputs nobody else can redirect (issue 36, part 6): a symlink at an output's name is replaced, never written
through. Another user's link planted in a sticky world-writable folder (/tmp) made a root `report -o` replace the
root-owned 0600 file it pointed at; our own link follows the same rule. Each writer of files.py is checked: the
page (a Batch), write_atomically, StreamFile (diagnose --record) and replace_folder (build --out).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from blockfit.errors import InputError
from blockfit.files import Batch, StreamFile, check_target, replace_folder, write_atomically
from support.report import cli

EXAMPLE = Path(__file__).parents[1] / "docs" / "examples" / "calibrate.json"
VICTIM_TEXT = "root's secret, mode 0600\n"
NOBODY = 65534

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="makes a file of another user (lchown)")


def _shared(tmp_path: Path, link_owner: int | None) -> tuple[Path, Path, Path]:
    """A sticky, world-writable folder holding a root-owned 0600 victim and out.html, a symlink to it owned by
    link_owner (None: by us). Returns (folder, victim, link)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    victim = tmp_path / "victim"  # outside the folder: the link may point anywhere
    victim.write_text(VICTIM_TEXT)
    os.chmod(victim, 0o600)
    link = shared / "out.html"
    link.symlink_to(victim)
    if link_owner is not None:
        os.lchown(link, link_owner, link_owner)
    return shared, victim, link


def _victim_untouched(victim: Path) -> None:
    st = os.lstat(victim)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()
    assert victim.read_text() == VICTIM_TEXT


@root_only
@pytest.mark.root
@pytest.mark.parametrize("owner", ["another user", "ourselves"])
def test_report_onto_a_planted_link_replaces_the_link_not_its_target(tmp_path: Path, owner: str) -> None:
    shared, victim, link = _shared(tmp_path, NOBODY if owner == "another user" else None)
    assert os.lstat(link).st_uid == (NOBODY if owner == "another user" else os.geteuid())
    proc = cli("report", "-o", str(link), str(EXAMPLE), timeout=120)
    assert proc.returncode == 0, proc.stderr
    _victim_untouched(victim)
    st = os.lstat(link)
    assert stat.S_ISREG(st.st_mode) and link.read_text().startswith("<!DOCTYPE html>")
    assert st.st_uid == os.geteuid()  # a new file of ours, not the link's owner's nor the victim's mode
    lines = proc.stderr.strip().splitlines()
    said = [ln for ln in lines if "symlink" in ln]
    assert len(said) == 1 and str(victim) in said[0] and "replaced the link, not its target" in said[0], lines
    assert sorted(p.name for p in shared.iterdir()) == ["out.html"]  # no temp file left beside it


def test_write_atomically_and_batch_replace_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    os.chmod(victim, 0o600)
    one, two, dangling = tmp_path / "one", tmp_path / "two", tmp_path / "dangling"
    one.symlink_to(victim)
    two.symlink_to("victim.txt")  # relative
    dangling.symlink_to(tmp_path / "made-through-the-link")
    write_atomically(one, "first", what="--out")
    with Batch() as batch:
        batch.add(two, "second", what="--report")
        batch.add(dangling, "third", what="-o")
    _victim_untouched(victim)
    assert not (tmp_path / "made-through-the-link").exists()
    for path, text in ((one, "first"), (two, "second"), (dangling, "third")):
        assert not path.is_symlink() and path.read_text() == text
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all("replaced the link, not its target" in ln for ln in err), err
    assert "'--report'" not in err[1] and err[1].startswith("blockfit: --report ") and "'victim.txt'" in err[1]


def test_two_links_to_one_file_are_two_outputs_and_a_name_given_twice_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    (tmp_path / "a").symlink_to(victim)
    (tmp_path / "b").symlink_to(victim)
    with Batch() as batch:  # each link is replaced by its own file: they no longer share a target
        batch.add(tmp_path / "a", "A", what="-o")
        batch.add(tmp_path / "b", "B", what="--png")
    assert ((tmp_path / "a").read_text(), (tmp_path / "b").read_text(), victim.read_text()) == ("A", "B", VICTIM_TEXT)
    (tmp_path / "sub").mkdir()
    with pytest.raises(InputError, match="written twice"), Batch() as batch:
        batch.add(tmp_path / "a", "A", what="-o")
        batch.add(tmp_path / "sub" / ".." / "a", "again", what="--png")
    assert (tmp_path / "a").read_text() == "A"


def test_check_target_judges_the_link_not_what_it_names(tmp_path: Path) -> None:
    """A link to a directory or a device is replaced like a missing file (it used to be refused, or written
    through); the link's folder must be writable, whatever the target's folder is."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "to-dir").symlink_to(tmp_path / "dir")
    (tmp_path / "to-null").symlink_to("/dev/null")
    for name in ("to-dir", "to-null"):
        check_target(tmp_path / name, "-o")
        write_atomically(tmp_path / name, name, what="-o")
        assert (tmp_path / name).read_text() == name
    assert (tmp_path / "dir").is_dir() and list((tmp_path / "dir").iterdir()) == []
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(InputError, match="not a directory"):
        check_target(tmp_path / "dir", "-o")


def test_stream_file_replaces_a_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim"
    victim.write_text(VICTIM_TEXT)
    os.chmod(victim, 0o600)
    link = tmp_path / "capture.jsonl"
    link.symlink_to(victim)
    stream = StreamFile(link, "--record")
    stream.write('{"type": "header"}\n')
    stream.commit()
    _victim_untouched(victim)
    assert not link.is_symlink() and link.read_text() == '{"type": "header"}\n'
    assert "--record" in capsys.readouterr().err


def test_build_folder_replaces_a_link_and_leaves_the_linked_folder(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "users-file").write_text("keep")
    link = tmp_path / "scripts"
    for force in (False, True):
        link.symlink_to(elsewhere)
        replace_folder(link, [("run-all.sh", "#!/bin/sh\n", 0o755)], what="--out", force=force)
        assert link.is_dir() and not link.is_symlink() and (link / "run-all.sh").read_text() == "#!/bin/sh\n"
        assert sorted(p.name for p in elsewhere.iterdir()) == ["users-file"]
        assert "replaced the link, not its target" in capsys.readouterr().err
        os.rename(link, tmp_path / f"built-{force}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built-False", "built-True", "elsewhere"]


def test_a_planted_lock_link_creates_nothing_where_it_points(tmp_path: Path) -> None:
    """The build folder's lock beside it is opened without following a link: a link planted at its name made a
    root build create a file wherever the link pointed."""
    (tmp_path / ".scripts.blockfit-lock").symlink_to(tmp_path / "made-by-root")
    with pytest.raises(InputError, match="cannot lock"):
        replace_folder(tmp_path / "scripts", [("run-all.sh", "x", 0o755)], what="--out", force=False)
    assert not (tmp_path / "made-by-root").exists() and not (tmp_path / "scripts").exists()


@root_only
@pytest.mark.root
def test_a_planted_file_of_another_user_in_a_sticky_folder_does_not_give_them_our_output(tmp_path: Path) -> None:
    """Another user's regular file at the output's name in a sticky folder: the new file is ours (root's), with a
    new file's mode; elsewhere a replaced file keeps its owner and mode (a DBA's own file rewritten by sudo)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    planted = shared / "plan.json"
    planted.write_text("{}")
    os.chmod(planted, 0o666)
    os.chown(planted, NOBODY, NOBODY)
    write_atomically(planted, "ours\n", "-o")
    st = os.lstat(planted)
    assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o002 == 0
    assert planted.read_text() == "ours\n"
    private = tmp_path / "private"
    private.mkdir()
    mine = private / "plan.json"
    mine.write_text("{}")
    os.chmod(mine, 0o640)
    os.chown(mine, NOBODY, NOBODY)
    write_atomically(mine, "ours\n", "-o")
    st = os.lstat(mine)
    assert st.st_uid == NOBODY and stat.S_IMODE(st.st_mode) == 0o640
