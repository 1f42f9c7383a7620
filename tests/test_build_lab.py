"""The generated scripts run for real in the lab's qemu guest (a kernel with device-mapper and md):
LVM stripe + offline dd migration + XFS, mdadm RAID0 + ext4 with a refused-then-forced ext4 disk, and the
online lvconvert-mirror migration with the divisible-extents fix — each rerun once to show it is a no-op.

Opt-in (about 3 minutes under TCG, over this suite's CI budget): BLOCKFIT_BUILD_LAB=1, and the lab
package (branch `lab`) importable. The guest script is tests/build_lab_guest.sh."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from build_support import make_layout, make_plan

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.lab]

MIB = 1024 * 1024


@pytest.mark.skipif(os.environ.get("BLOCKFIT_BUILD_LAB") != "1", reason="opt-in: BLOCKFIT_BUILD_LAB=1")
def test_build_scripts_in_the_lab_guest(tmp_path):
    lab_disks = pytest.importorskip("blockfit.lab.disks")
    lab_guest = pytest.importorskip("blockfit.lab.guest")
    lab_kernel = pytest.importorskip("blockfit.lab.kernel")
    work = tmp_path / "blockfit-build-lab"
    work.mkdir()
    (work / "plan3.json").write_text(make_plan(make_layout(members=3, size_gb=200, stripe=MIB)).model_dump_json())
    (work / "plan2.json").write_text(
        make_plan(make_layout(members=2, size_gb=200, stripe=256 * 1024, manager="mdadm")).model_dump_json())
    blockfit = Path(sys.executable).parent / "blockfit"
    script = f"W={work}\nBF={blockfit}\n" + (Path(__file__).parent / "build_lab_guest.sh").read_text()
    Disk = lab_disks.Disk
    disks = [Disk("single", work / "single.img", 512 * MIB, None)]
    disks += [Disk(f"s{i}", work / f"s{i}.img", 256 * MIB, None) for i in (1, 2, 3)]
    disks += [Disk(f"m{i}", work / f"m{i}.img", 320 * MIB, None) for i in (1, 2)]
    disks += [Disk("old", work / "old.img", 512 * MIB, None)]
    disks += [Disk(f"t{i}", work / f"t{i}.img", 256 * MIB, None) for i in (1, 2, 3)]
    lab_disks.create(disks)
    try:
        outcome = lab_guest.run_script(lab_kernel.ensure_kernel(), work, script, disks, None, timeout_s=1500)
    finally:
        lab_disks.remove(disks)
    assert outcome.ok, outcome.failure
    results = (work / "results.txt").read_text()
    expected = [
        "A run-all rc=0", "A lvs: striped 3 1048576", "A checksums MATCH", "defaults,nofail,noatime",
        "A rerun rc=0 run-lines=0",
        "B unforced rc=1", "B m1 still: ext4", "B run-all rc=0", "level=raid0 disks=2 chunk=262144",
        "RAID stride: 64", "B rerun rc=0 run-lines=0",
        "C run-all rc=0", "97 extents is not divisible by 3: extending", "C lvs: striped 3 1048576 99",
        "old is PV: no", "C checksums MATCH while mounted", "C rerun rc=0 run-lines=0",
    ]
    missing = [e for e in expected if e not in results]
    assert not missing, f"missing {missing} in:\n{results}"
