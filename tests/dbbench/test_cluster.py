"""dbbench.cluster: a --dir checked before anything is created, and where a cluster's files and socket are."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from blockfit.dbbench.cluster import SUBDIR, Cluster, check_dir, private_dir, private_shm, server_user
from blockfit.errors import ValueProblem


@pytest.mark.parametrize("name", ["line\nbreak", "quote'd", "tab\there"])
def test_a_path_with_a_quote_or_control_character_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueProblem, match="expected a directory path without line breaks"):
        check_dir(tmp_path / name)


def test_what_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueProblem, match="does not exist"):
        check_dir(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueProblem, match="is not a directory"):
        check_dir(tmp_path / "file")


def test_a_cluster_directory_holding_data_is_never_used() -> None:
    with tempfile.TemporaryDirectory(prefix="bf-cluster-") as name:   # reachable by the server user, as a --dir is
        base = Path(name)
        base.chmod(0o755)
        (base / SUBDIR).mkdir()
        assert check_dir(base) == base / SUBDIR   # empty: fine
        (base / SUBDIR / "PG_VERSION").write_text("16")
        with pytest.raises(ValueProblem, match="exists and is not empty"):
            check_dir(base)


def test_a_private_dir_is_ours_alone_and_gone_after() -> None:
    with private_dir() as path:
        assert path.is_dir() and path.stat().st_mode & 0o777 == 0o700
    assert not path.exists()


def test_the_cluster_names_its_places_under_its_root(tmp_path: Path) -> None:
    c = Cluster(label="A", root=tmp_path / "c", socket_dir=tmp_path / "s", bindir=tmp_path, user=server_user(),
                log=tmp_path / "log")
    assert c.data == tmp_path / "c" / "data" and c.temp_dir == tmp_path / "c" / "temp"
    assert f"host={tmp_path / 's'}" in c.conninfo and c.env()["PGHOST"] == str(tmp_path / "s")
    assert not c.alive() and c.log_tail() == ""
    (tmp_path / "log").write_text("a\nb\nc\n")
    assert c.log_tail(2) == "b | c"


def test_no_private_shm_over_a_path_it_would_hide() -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    assert private_shm(shm / "x") is None
    got = private_shm(Path("/tmp"))
    assert got is not None and got.size_bytes > 0
