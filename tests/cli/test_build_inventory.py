"""build --inventory: the migration written from the device the inventory names under the mount point, and the
durations in the result and the README; a bad inventory or a second source is one line, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockfit.cli import main
from support.inproc import run
from support.inventory import seed_inventory, write_inventory

DEVICES = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "cdefgh")


@pytest.fixture(scope="module")
def plan_and_inventory(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("inv")
    inv = write_inventory(folder / "inventory.json", seed_inventory(used_bytes=3 * 10**12))
    with pytest.raises(SystemExit) as exc:   # the plan, once for the module
        main(["plan", "--inventory", str(inv), "--target-iops", "150000", "--out", str(folder / "plan.json")])
        raise SystemExit(0)
    assert not exc.value.code
    return folder / "plan.json", inv


def build(capsys: pytest.CaptureFixture[str], plan: Path, inv: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    return run(["build", "--plan", str(plan), "--inventory", str(inv), "--manager", "lvm", "--devices", DEVICES,
                "--out", str(out), "--json", *extra], capsys)


def test_offline_by_default_from_the_lv_the_inventory_names_with_the_durations(
        plan_and_inventory: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan, inv = plan_and_inventory
    code, out, err = build(capsys, plan, inv, tmp_path / "b")
    assert code == 0, err
    result = json.loads(out)
    assert result["migrate_from"] == "/dev/mapper/ebs_vg-ebs_lv" and result["migrate_method"] == "offline"
    assert result["mount"] == "/u01"
    methods = [m["method"] for m in result["migrations"]]
    assert methods[0] == "offline-block-copy" and set(methods) == {"offline-block-copy", "offline-file-copy",
                                                                   "lvm-mirror"}
    assert "2 h 50 min" in result["migrations"][0]["arithmetic"][-1]
    script = (tmp_path / "b" / "30-migrate-offline.sh").read_text()
    assert "/dev/mapper/ebs_vg-ebs_lv" in script
    readme = (tmp_path / "b" / "README.md").read_text()
    assert "### How long it takes" in readme and "**offline-block-copy**" in readme
    assert "2 h 50 min at 480 MB/s" in readme
    assert any("moving 1x4.5T@balanced from /dev/mapper/ebs_vg-ebs_lv: 2 h 50 min" in n for n in result["notes"])


def test_online_mirrors_the_inventorys_volume_group_and_puts_the_mirror_first(
        plan_and_inventory: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan, inv = plan_and_inventory
    code, out, err = build(capsys, plan, inv, tmp_path / "b", "--method", "online")
    assert code == 0, err
    result = json.loads(out)
    assert result["migrations"][0]["method"] == "lvm-mirror" and result["migrations"][0]["limited_by"] == "in_flight"
    script = (tmp_path / "b" / "30-migrate-online.sh").read_text()
    assert "VG=ebs_vg" in script and "LV=ebs_lv" in script


@pytest.mark.parametrize(("extra", "expected"), [
    (["--migrate-from", "/dev/sdb"], "--migrate-from /dev/sdb: --inventory names the source"),
    (["--mount", "/u02"], "--mount '/u02': not a mount point of the inventory (it has /u01)"),
])
def test_a_second_source_or_an_unknown_mount_is_one_line_and_writes_nothing(
        plan_and_inventory: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        extra: list[str], expected: str) -> None:
    plan, inv = plan_and_inventory
    code, out, err = build(capsys, plan, inv, tmp_path / "b", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and expected in err
    assert not (tmp_path / "b").exists()
