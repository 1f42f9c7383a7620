"""diagnose --inventory: a device the inventory names as a cloud volume is compared with that volume's own cap.

As on a cloud host, the cap sits below what the host sees: fio drives an upper loop device over a lower one
whose reads a cgroup-v1 blkio throttle holds at 3,000 IOPS (an OCI 50 GB Balanced volume: 60 IOPS/GB). The
inventory says the upper device is that volume; the capture of the upper device alone shows no cap, so only the
inventory can say that the device runs at its cap.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from blockfit.schema import BlockNode, Inventory
from blockfit.specs import parse_instance, parse_layout
from support.diagnose_testbed import (
    blkio_cgroup,
    diagnose_during,
    kinds,
    loop_device,
    replay,
    run,
    skip_reason,
    workdir,
)
from support.inproc import run as run_cli
from support.inventory import seed_inventory, write_inventory

CAP = 3000


def inventory_naming(device: str, path: Path) -> Path:
    volume = parse_layout("1x50G@balanced", "oci").volume
    inv = Inventory(cloud="oci", instance=parse_instance("VM.Standard.E4.Flex:1", "oci"),
                    devices=[BlockNode(name=device, kind="loop", size_bytes=256 * 1024**2, volume=volume)])
    return write_inventory(path, inv)


@pytest.mark.slow
@pytest.mark.root
@pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")
def test_a_loop_device_the_inventory_calls_a_3000_iops_volume_runs_at_its_cap(tmp_path: Path) -> None:
    record = tmp_path / "capture.jsonl"
    with workdir() as d, loop_device(d, 256) as lower:
        upper_path = run(["losetup", "-f", "--show", "--direct-io=on", f"/dev/{lower}"]).stdout.strip()
        upper = Path(upper_path).name
        inv = inventory_naming(upper, tmp_path / "inventory.json")
        try:
            with blkio_cgroup({"read_iops": CAP}, lower) as cg:
                args = ["--name=inv", f"--filename={upper_path}", "--rw=randread", "--bs=4k", "--direct=1",
                        "--ioengine=libaio", "--iodepth=16"]
                diag, job = diagnose_during(args, [upper], 6, record=record, cgroup=cg,
                                            extra=["--inventory", str(inv)])
        finally:
            subprocess.run(["losetup", "-d", upper_path], check=False)
    found = [f for f in diag["findings"] if f["kind"] == "member_cap" and f["device"] == upper]
    print(f"fio {job['jobs'][0]['read']['iops']:.0f} IOPS; findings",
          [(f["kind"], f["device"]) for f in diag["findings"]])
    assert found, diag["findings"]
    cap = found[0]
    assert cap["metric"] == "iops" and cap["measurements"]["cap"] == CAP
    assert 0.9 <= cap["measurements"]["cap_use"] <= 1.1
    assert any(f"IOPS cap of {upper}, a 1x50G@balanced volume (inventory)" in e for e in cap["evidence"])
    assert replay(record, ["--inventory", str(inv)])["findings"] == diag["findings"]
    # a production host cannot see its cloud cap: without the throttle in the capture, only the inventory knows
    lines = record.read_text().splitlines()
    header = json.loads(lines[0])
    header["caps"] = []
    blind = tmp_path / "blind.jsonl"
    blind.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    assert "member_cap" not in kinds(replay(blind), upper)
    told = [f for f in replay(blind, ["--inventory", str(inv)])["findings"] if f["device"] == upper]
    assert [f["kind"] for f in told] == ["member_cap"] and told[0]["measurements"]["cap"] == CAP


def test_bad_inventories_are_one_line_before_any_sampling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_volumes = write_inventory(tmp_path / "none.json", seed_inventory(spec=None))
    plan = tmp_path / "plan.json"
    plan.write_text('{"kind": "plan", "schema_version": 3}')
    good = inventory_naming("loop7", tmp_path / "good.json")
    cases = [(["--inventory", str(no_volumes)], "names no device as a cloud volume"),
             (["--inventory", str(plan)], "result kind 'plan' is not one of inventory"),
             (["--inventory", str(good), "--layout", "1x50G@balanced"], "--layout: the inventory says what each "
                                                                          "device is")]
    for args, expected in cases:
        code, out, err = run_cli(["diagnose", "--duration", "1s", *args], capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and expected in err, (args, err)
