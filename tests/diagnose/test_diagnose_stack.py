"""A cap below the device, as on a cloud volume: loop device over a loop device whose reads are throttled.

fio drives the upper loop device; the cgroup-v1 blkio cap sits on the lower one, so the upper device sees
what a guest sees of a capped cloud volume (in-flight full, await = depth / cap) and the lower one sees the
cap itself. Also checks the catalog path: with the throttle removed from the capture (a production host
cannot see its cloud cap), `--layout/--cloud/--instance` supplies the member cap from the catalog.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

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

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.skipif(skip_reason() is not None,
                                                                     reason=skip_reason() or "")]

CAP = 3000  # OCI balanced: 60 IOPS/GB × 50 GB
LAYOUT = ["--layout", "1x50G@balanced", "--cloud", "oci", "--instance", "VM.Standard.E4.Flex:1"]


def test_cap_below_the_device_and_catalog_comparison(tmp_path: Path) -> None:
    record = tmp_path / "stack.jsonl"
    with workdir() as d, loop_device(d, 256) as lower:
        upper_path = run(["losetup", "-f", "--show", "--direct-io=on", f"/dev/{lower}"]).stdout.strip()
        upper = Path(upper_path).name
        try:
            with blkio_cgroup({"read_iops": CAP}, lower) as cg:
                args = ["--name=stack", f"--filename={upper_path}", "--rw=randread", "--bs=4k", "--direct=1",
                        "--ioengine=libaio", "--iodepth=16"]
                diag, job = diagnose_during(args, [upper], 6, record=record, cgroup=cg)
                # the load changes halfway (4 → 16 in flight) while the cap holds: a plateau
                phases = ["--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--time_based",
                          f"--filename={upper_path}", "--name=qd4", "--iodepth=4", "--runtime=5",
                          "--name=qd16", "--stonewall", "--iodepth=16", "--runtime=6"]
                plateau, _ = diagnose_during(phases, [upper], 10, record=tmp_path / "plateau.jsonl", cgroup=cg,
                                             timed=True)
        finally:
            subprocess.run(["losetup", "-d", upper_path], check=False)

    roles = {s["device"]: (s["role"], s["parent"]) for s in diag["devices"]}
    assert roles[lower] == ("member", upper) and roles[upper][0] == "top"
    up = next(s for s in diag["devices"] if s["device"] == upper)
    print(f"fio {job['jobs'][0]['read']['iops']:.0f} IOPS; {upper}: aqu {up['aqu_sz']:.1f} await "
          f"{up['r_await_ms']:.2f} ms; findings {[(f['kind'], f['device']) for f in diag['findings']]}")
    assert "member_cap" in kinds(diag, lower), diag["findings"]
    assert "queue_depth_bound" not in kinds(diag, upper)
    assert up["aqu_sz"] > 4 * next(s for s in diag["devices"] if s["device"] == lower)["aqu_sz"]
    assert replay(record)["findings"] == diag["findings"]
    only_lower = replay(record, ["--devices", lower])  # a member's stack still includes the device above it
    assert {s["device"] for s in only_lower["devices"]} == {lower, upper}

    # A production capture cannot see the cloud's cap: drop the throttle from the header.
    lines = record.read_text().splitlines()
    header = json.loads(lines[0])
    header["caps"] = []
    blind = tmp_path / "blind.jsonl"
    blind.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")

    without = replay(blind)
    assert "member_cap" not in kinds(without, upper) and "member_cap" not in kinds(without, lower)

    # Without any cap in the capture, a load that changed while IOPS held still shows the cap as a plateau.
    phase_lines = (tmp_path / "plateau.jsonl").read_text().splitlines()
    phase_header = json.loads(phase_lines[0])
    phase_header["caps"] = []
    (tmp_path / "plateau-blind.jsonl").write_text("\n".join([json.dumps(phase_header)] + phase_lines[1:]) + "\n")
    plateau_blind = replay(tmp_path / "plateau-blind.jsonl")
    assert replay(tmp_path / "plateau.jsonl")["findings"] == plateau["findings"]
    flat = [f for f in plateau_blind["findings"] if f["kind"] == "member_cap" and f["device"] == upper]
    print("plateau:", [(f["device"], f["summary"]) for f in plateau_blind["findings"]])
    assert flat and flat[0]["measurements"]["aqu_high"] >= 1.5 * flat[0]["measurements"]["aqu_low"], plateau_blind
    assert "queue_depth_bound" not in kinds(plateau_blind, upper)

    with_catalog = replay(blind, LAYOUT)
    cap = [f for f in with_catalog["findings"] if f["kind"] == "member_cap" and f["device"] == upper]
    assert cap, with_catalog["findings"]
    assert cap[0]["measurements"]["cap"] == CAP and any("catalog" in e for e in cap[0]["evidence"])
    assert "queue_depth_bound" not in kinds(with_catalog, upper)
