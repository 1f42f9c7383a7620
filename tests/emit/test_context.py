"""emit/context.py's checks: the mount point is a normalized absolute directory, never a system folder."""

from __future__ import annotations

import pytest

from blockfit.emit import build
from blockfit.emit.context import mount_point
from blockfit.errors import InputError


@pytest.mark.parametrize("mount", ["/u01/", "//u01", "/u01/.", "/u01//", "///u01/./"])
def test_mount_points_are_normalized_paths(mount):
    assert mount_point(mount) == "/u01"


@pytest.mark.parametrize("mount", ["/", "/etc", "/etc/", "//etc", "/usr", "/usr/local", "/boot", "/proc/x", "/sys",
                                   "/dev", "/dev/shm", "/bin", "/sbin", "/lib", "/lib64", "/var", "/run", "/tmp",
                                   "/home", "/root", "u01", "./u01", "/u01/../etc", "/u01/..", "..", "/u01\n",
                                   "/u01 x", "/u01`x`", "/u01$(x)", ""])
def test_system_folders_relative_paths_and_odd_characters_are_refused(mount, tmp_path):
    from support.build import make_layout, make_plan

    with pytest.raises(InputError, match="expected an absolute directory for the data"):
        build(make_plan(make_layout(members=2)), manager="lvm", devices=["/dev/sdc", "/dev/sdd"],
              out_dir=tmp_path / "o", mount=mount)
    assert not (tmp_path / "o").exists()
