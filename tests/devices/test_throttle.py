"""cgroup throttles read from a cgroup tree: v1 blkio.throttle.* files and v2 io.max, in trees of their own."""

from __future__ import annotations

from pathlib import Path

from blockfit.devices import throttle


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_v1_blkio_caps_name_their_group(tmp_path: Path) -> None:
    group = tmp_path / "blkio" / "docker" / "abc"
    _write(group / "blkio.throttle.read_iops_device", "7:1 3000\n7:2 0\n")  # 0: no cap
    _write(group / "blkio.throttle.write_bps_device", "253:0 104857600\n")
    _write(tmp_path / "blkio" / "blkio.throttle.read_bps_device", "")
    caps = sorted(throttle.read_caps(tmp_path), key=lambda c: c.kind)
    assert [(c.dev, c.kind, c.value, c.cgroup) for c in caps] == [
        ("7:1", "read_iops", 3000.0, "blkio:docker/abc"), ("253:0", "write_bps", 104857600.0, "blkio:docker/abc")]


def test_v2_io_max_skips_max_and_unknown_keys(tmp_path: Path) -> None:
    _write(tmp_path / "cgroup.controllers", "cpu io memory\n")
    _write(tmp_path / "system.slice" / "pg.service" / "io.max", "8:16 rbps=max wbps=2097152 riops=500 wiops=max\n")
    _write(tmp_path / "user.slice" / "io.max", "8:0 rbps=max wbps=max riops=max wiops=max other=5\n")
    caps = throttle.read_caps(tmp_path)
    assert sorted((c.dev, c.kind, c.value, c.cgroup) for c in caps) == [
        ("8:16", "read_iops", 500.0, "io:system.slice/pg.service"),
        ("8:16", "write_bps", 2097152.0, "io:system.slice/pg.service")]


def test_no_cgroup_tree_gives_no_caps(tmp_path: Path) -> None:
    assert throttle.read_caps(tmp_path / "absent") == []
    assert isinstance(throttle.read_caps(), list)  # this host's own tree reads
