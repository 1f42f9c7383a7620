"""`blockfit build`'s options parsed at the edge (cli/build.py): --manager, --fs, --method and --provision become
typed values before anything else is read, a wrong one is one line naming the option, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.catalog import load_catalog
from blockfit.plan import make_plan
from blockfit.schema import Requirements
from support.inproc import run

DEVS = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcde")


@pytest.mark.parametrize(("option", "value", "expected"), [
    ("--manager", "zfs", "--manager 'zfs': expected one of lvm, mdadm, asm, none"),
    ("--fs", "btrfs", "--fs 'btrfs': expected xfs or ext4"),
    ("--method", "sideways", "--method 'sideways': expected offline or online"),
    ("--provision", "pulumi", "--provision 'pulumi': expected one of oci-cli, terraform, aws-cli"),
])
def test_a_wrong_choice_is_refused_before_the_plan_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           option: str, value: str, expected: str) -> None:
    args = {"--manager": "lvm", option: value}
    argv = ["build", "--plan", str(tmp_path / "missing.json"), "--devices", DEVS, "--out", str(tmp_path / "o")]
    code, out, err = run(argv + [a for kv in args.items() for a in kv], capsys)
    assert code == 2
    assert expected in err and "missing.json" not in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_the_parsed_choices_build_what_the_library_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    made = make_plan(Requirements(cloud="oci", capacity_gb=2000, instance_shape="VM.Standard.E4.Flex",
                                  levels=["balanced"], max_volumes=4, target_iops=40000), load_catalog("oci"))
    plan.write_text(made.model_dump_json())
    members = made.candidates[0].layout_detail.members
    assert members > 1
    devs = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcde"[:members])
    argv = ["build", "--plan", str(plan), "--manager", "mdadm", "--fs", "ext4", "--mount", "/u01", "--devices", devs,
            "--provision", "terraform", "--out", str(tmp_path / "o")]
    code, _out, err = run(argv, capsys)
    assert code == 0, err
    fs_script = (tmp_path / "o" / "40-filesystem.sh").read_text()
    assert "mkfs.ext4" in fs_script and "mkfs.xfs" not in fs_script
    assert (tmp_path / "o" / "20-mdadm.sh").exists() and (tmp_path / "o" / "terraform" / "main.tf").exists()


NINE = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghij")
AUTHORS = ["build", "--layout", "9x500G@balanced", "--cloud", "oci", "--instance", "VM.Standard.E3.Flex:12",
           "--devices", NINE]


def test_the_authors_layout_builds_with_their_stripe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The field reports striped 9 x 500 GB with `lvcreate -i9 -I4M`; that needed a hand-edited plan file."""
    code, _, err = run([*AUTHORS, "--stripe-size", "4m", "--manager", "lvm", "--out", str(tmp_path / "lvm")], capsys)
    assert code == 0, err
    lvm = (tmp_path / "lvm" / "20-lvm.sh").read_text()
    assert "STRIPES=9\n" in lvm and "STRIPE_BYTES=4194304\n" in lvm
    readme = (tmp_path / "lvm" / "README.md").read_text()
    assert "lvcreate --stripes 9 --stripesize 4096k" in readme
    code, _, err = run([*AUTHORS, "--stripe-size", "64k", "--manager", "mdadm", "--out", str(tmp_path / "md")],
                       capsys)
    assert code == 0, err
    assert "65536" in (tmp_path / "md" / "20-mdadm.sh").read_text() or "64K" in (
        tmp_path / "md" / "20-mdadm.sh").read_text().upper()
    code, _, err = run([*AUTHORS, "--manager", "lvm", "--out", str(tmp_path / "default")], capsys)
    assert code == 0, err   # without --stripe-size, the size plan recommends
    assert "STRIPE_BYTES=1048576\n" in (tmp_path / "default" / "20-lvm.sh").read_text()


@pytest.mark.parametrize("extra, needle", [
    ([], "--plan or --layout: expected one of them"),
    (["--plan", "p.json", "--layout", "1x1T@balanced"], "--plan and --layout: expected one of them, not both"),
    (["--plan", "p.json", "--stripe-size", "4m"], "--stripe-size: goes with --layout"),
    (["--layout", "1x1T@balanced", "--cloud", "oci"], "--instance: with --layout"),
    (["--layout", "9x49.5G@balanced", "--cloud", "oci", "--instance", "VM.Standard.E3.Flex:12"],
     "layout '9x49.5G@balanced'"),
    (["--layout", "2x1T@balanced", "--cloud", "oci", "--instance", "VM.Standard.E3.Flex:12", "--stripe-size",
      "3x"], "--stripe-size"),
])
def test_what_to_build_is_named_once(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                                     needle: str) -> None:
    code, _, err = run(["build", "--manager", "lvm", "--devices", DEVS, "--out", str(tmp_path / "o"), *extra],
                       capsys)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()
