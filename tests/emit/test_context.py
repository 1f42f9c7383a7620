"""emit/context.py's checks, run through `build` before anything is written: the options and devices against the
plan, names and paths with a trailing newline, a stripe of 2**64, and the mount point (a normalized absolute
directory, never a system folder)."""

from __future__ import annotations

import re

import pytest

from blockfit.emit import build
from blockfit.emit.context import mount_point
from blockfit.errors import InputError
from support.build import make_layout, make_plan

OCI_DEVS = [f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghijklmnop"]


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


def test_device_count_must_match_the_plan(tmp_path):
    plan = make_plan(make_layout(members=4))
    with pytest.raises(InputError, match="4 members"):
        build(plan, manager="lvm", devices=OCI_DEVS[:3], out_dir=tmp_path / "o")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("kw", "message"), [
    (dict(devices=["/dev/sd*"] * 4), "globs"),
    (dict(devices=["sdb", "sdc", "sdd", "sde"]), "absolute device path"),
    (dict(devices=["/dev/sdb"] * 4), "named twice"),
    (dict(manager="asm", mount="/u01"), "ASM disks carry no filesystem"),
    (dict(migrate_from="/dev/sdz"), "go together"),
    (dict(migrate_from="/dev/sdz", method="online"), "logical volume path"),
    (dict(migrate_from="/dev/vg/lv", method="online", manager="mdadm"), "needs --manager lvm"),
    (dict(provision="aws-cli"), "not aws"),
    (dict(provision="oci-cli"), "consistent device paths"),
    (dict(mount="relative"), "'relative': expected an absolute directory"),  # the value; the CLI adds --mount
])
def test_bad_options_are_refused_with_one_line(tmp_path, kw, message):
    args = dict(manager="lvm", devices=["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"])
    args.update(kw)
    provision = args.pop("provision", None)
    plan = make_plan(make_layout(members=4))
    with pytest.raises(InputError, match=re.escape(message)):
        build(plan, out_dir=tmp_path / "o", provision_with=provision, **args)  # type: ignore[arg-type]


@pytest.mark.parametrize(("redundancy", "manager", "members", "message"), [
    ("normal", "lvm", 4, "build it with --manager asm"),
    ("high", "mdadm", 4, "build it with --manager asm"),
    ("high", "asm", 2, "ASM high redundancy needs at least 3 failure groups"),
    ("raid10", "lvm", 4, "build it with --manager mdadm"),
])
def test_mirrored_plans_build_only_with_the_manager_that_mirrors(tmp_path, redundancy, manager, members, message):
    plan = make_plan(make_layout(members=members, redundancy=redundancy))
    with pytest.raises(InputError, match=re.escape(message)):
        build(plan, manager=manager, devices=OCI_DEVS[:members], out_dir=tmp_path / "o")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("option", "value"), [("vg", "data\n"), ("lv", "lv\n"), ("md_name", "md\n"),
                                               ("diskgroup", "DATA\n")])
def test_a_name_with_a_trailing_newline_is_refused(option, value, tmp_path):
    from support.build import make_layout, make_plan

    manager = {"md_name": "mdadm", "diskgroup": "asm"}.get(option, "lvm")
    with pytest.raises(InputError, match="expected a letter"):
        build(make_plan(make_layout(members=2, manager=manager)), manager=manager,
              devices=["/dev/sdc", "/dev/sdd"], out_dir=tmp_path / "o", **{option: value})


def test_a_device_or_lv_path_with_a_trailing_newline_is_refused(tmp_path):
    from support.build import make_layout, make_plan

    plan = make_plan(make_layout(members=2))
    with pytest.raises(InputError, match="--devices"):
        build(plan, manager="lvm", devices=["/dev/sdc\n", "/dev/sdd"], out_dir=tmp_path / "o")
    with pytest.raises(InputError, match="--migrate-from"):
        build(plan, manager="lvm", devices=["/dev/sdc", "/dev/sdd"], out_dir=tmp_path / "o",
              migrate_from="/dev/vg/lv\n", method="online")


def test_a_stripe_of_two_to_the_64_is_refused_not_zero(tmp_path):
    from support.build import make_layout, make_plan

    with pytest.raises(InputError, match="stripe"):
        build(make_plan(make_layout(members=2, stripe=2**64)), manager="lvm", devices=["/dev/sdc", "/dev/sdd"],
              out_dir=tmp_path / "o")
    assert not (tmp_path / "o").exists()
