"""plan --inventory: the seeds' /u01 planned from an inventory, its figures beside the recommendation, and each
migration with its arithmetic; bad inventories are one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.inproc import run
from support.inventory import SEED_LV_BYTES, seed_inventory, write_inventory, write_json


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    return write_inventory(tmp_path / "inventory.json", seed_inventory())


def test_the_seeds_starting_point_names_its_figures_the_recommendation_and_each_duration(
        seed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["plan", "--inventory", str(seed), "--target-iops", "150000"], capsys)
    assert code == 0, err
    text = " ".join(out.split())
    assert "Plan for 4,608 GB, 150,000 IOPS on VM.Standard.E3.Flex:12" in text      # capacity and shape from it
    assert ("Now: /u01 (dm-0): 1x4.5T@balanced on VM.Standard.E3.Flex:12: 25,000 IOPS / 480 MB/s" in text)
    assert "IOPS limited by volume IOPS, per-volume cap" in text and "MB/s by volume throughput, per-volume cap" in text
    assert "Recommended: 6x768G@balanced" in text
    assert "offline, block copy (dd bs=128M" in text and "2 h 50 min at 480 MB/s" in text
    assert f"{SEED_LV_BYTES:,} B (4.89 TB)" in text and "binding: the source's reads" in text
    assert "online, LVM mirror" in text and "1 region of 2 MiB in flight" in text
    assert "https://github.com/torvalds/linux/blob/master/drivers/md/dm-raid1.c" in text


def test_json_carries_the_current_prediction_and_the_migrations(seed: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["plan", "--inventory", str(seed), "--mount", "/u01/", "--target-iops", "150000",
                          "--json"], capsys)
    assert code == 0, err
    plan = json.loads(out)
    cur = plan["current"]
    assert cur["mount_point"] == "/u01" and cur["size_bytes"] == SEED_LV_BYTES and cur["used_bytes"] is None
    assert (cur["prediction"]["max_iops"], cur["prediction"]["max_mbps"]) == (25000.0, 480.0)
    assert cur["prediction"]["iops_limited_by"] == "volume_iops_cap"
    methods = {m["method"]: m for m in plan["migrations"]}
    assert set(methods) == {"offline-block-copy", "lvm-mirror"}     # no used bytes: no file copy
    copy = methods["offline-block-copy"]
    assert copy["duration_s"] == pytest.approx(copy["data_bytes"] / 1e6 / copy["rate_mbps"])
    assert copy["rate_mbps"] == min(copy["read_mbps"], copy["write_mbps"], copy["instance_mbps"])


def test_used_bytes_add_a_file_copy_and_an_asm_source_a_rebalance(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    used = 3 * 10**12
    path = write_inventory(tmp_path / "inv.json", seed_inventory(used_bytes=used))
    code, out, err = run(["plan", "--inventory", str(path), "--target-iops", "150000", "--json"], capsys)
    assert code == 0, err
    files = [m for m in json.loads(out)["migrations"] if m["method"] == "offline-file-copy"]
    assert len(files) == 1 and files[0]["data_bytes"] == used
    asm = write_inventory(tmp_path / "asm.json", seed_inventory(used_bytes=used, manager="asm"))
    code, out, err = run(["plan", "--inventory", str(asm), "--target-iops", "150000", "--json"], capsys)
    assert code == 0, err
    plan = json.loads(out)
    assert plan["requirements"]["manager"] == "asm"
    powers = [m["power"] for m in plan["migrations"]]
    assert [m["method"] for m in plan["migrations"]] == ["asm-rebalance"] * len(powers) and powers[0] == 1
    assert all(m["data_bytes"] == used for m in plan["migrations"])


def test_capacity_and_instance_given_win_over_the_inventorys(seed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["plan", "--inventory", str(seed), "--capacity", "5T", "--instance",
                          "VM.Standard.E3.Flex:16", "--target-iops", "150000", "--json"], capsys)
    assert code == 0, err
    req = json.loads(out)["requirements"]
    assert req["capacity_gb"] == 5120 and req["instance_ocpus"] == 16


@pytest.mark.parametrize(("args", "expected"), [
    (["--mount", "/u09"], "--mount '/u09': not a mount point of the inventory (it has /u01)"),
    (["--cloud", "aws"], "--cloud aws: the inventory's layout 1x4.5T@balanced is on oci"),
    (["--example", "part3"], "--example part3: plans a layout of its own"),
])
def test_bad_options_with_an_inventory_are_one_line(seed: Path, capsys: pytest.CaptureFixture[str],
                                                    args: list[str], expected: str) -> None:
    code, out, err = run(["plan", "--inventory", str(seed), *args], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_an_unknown_layout_a_non_inventory_and_a_lone_mount_are_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unknown = write_inventory(tmp_path / "unknown.json", seed_inventory(spec=None))
    plan_file = write_json(tmp_path / "plan.json", {"kind": "plan", "schema_version": 3})
    garbage = tmp_path / "garbage.json"
    garbage.write_text("not json {")
    cases = [(["--inventory", str(unknown)], f"--inventory {unknown}: /u01: its layout is unknown (sdb: volume "
                                             "type unknown"),
             (["--inventory", str(plan_file)], "result kind 'plan' is not one of inventory"),
             (["--inventory", str(garbage)], "expected an inventory written by 'blockfit inspect --json'"),
             (["--inventory", str(tmp_path / "none.json")], "file not found"),
             (["--mount", "/u01", "--capacity", "1T"], "--mount: goes with --inventory")]
    for args, expected in cases:
        code, out, err = run(["plan", *args], capsys)
        assert code == 2 and out == "", args
        assert err.count("\n") == 1 and expected in err, (args, err)


def test_a_bad_type_two_mounts_or_no_instance_are_named_under_the_inventory(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(seed_inventory().model_dump_json())
    bad = json.loads(json.dumps(data))
    bad["layouts"][0]["layout"]["volume"]["type"] = "nonsense"
    two = json.loads(json.dumps(data))
    two["layouts"].append({**two["layouts"][0], "mount_point": "/u02"})
    none = json.loads(json.dumps(data))
    none["layouts"][0]["instance"] = none["instance"] = None
    paths = {name: write_json(tmp_path / f"{name}.json", d) for name, d in (("bad", bad), ("two", two),
                                                                            ("none", none))}
    cases = [("bad", f"--inventory {paths['bad']}: /u01: volume type 'nonsense': expected one of block, boot"),
             ("two", "has 2 mounted layouts (/u01, /u02); name one with --mount"),
             ("none", "/u01: the inventory does not say which instance it ran on; give --instance")]
    for name, expected in cases:
        code, out, err = run(["plan", "--inventory", str(paths[name]), "--target-iops", "150000"], capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and expected in err, (name, err)
    code, out, err = run(["plan", "--inventory", str(paths["none"]), "--target-iops", "150000", "--instance",
                          "VM.Standard.E3.Flex:12", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["current"]["prediction"]["instance"] == "VM.Standard.E3.Flex:12"
    code, out, err = run(["plan", "--inventory", str(paths["two"]), "--mount", "/u02", "--target-iops", "150000",
                          "--json"], capsys)
    assert code == 0 and json.loads(out)["current"]["mount_point"] == "/u02", err
