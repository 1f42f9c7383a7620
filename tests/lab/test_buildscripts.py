"""The build scripts the guest runs: the plan written for `blockfit build` and the guest's device names."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.errors import InputError
from blockfit.lab.run import resolve
from support.lab import lab_request
from support.lab import run_blockfit as _cli


def test_stripe_size_reaches_the_plan_and_the_build_scripts(tmp_path: Path) -> None:
    """--stripe-size replaces the plan's unit; `blockfit build` stripes and aligns the filesystem with it."""
    from blockfit.lab.buildscripts import plan_for

    subject = resolve(lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12",
                                 stripe_size=256 << 10))
    assert subject.stripe_size == 256 << 10
    plan = tmp_path / "plan.json"
    plan.write_text(plan_for(subject).model_dump_json())
    out = tmp_path / "build"
    proc = _cli("build", "--plan", str(plan), "--manager", "lvm", "--devices", "/dev/vdb,/dev/vdc,/dev/vdd,/dev/vde",
                "--fs", "xfs", "--mount", "/mnt/blockfit-stripe",
                "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    scripts = "".join(p.read_text() for p in out.glob("*.sh"))
    assert "STRIPE_BYTES=262144" in scripts and "STRIPES=4" in scripts
    assert "su=256k,sw=4" in scripts
    with pytest.raises(InputError, match="^98304: expected a power of two"):   # the CLI names --stripe-size
        resolve(lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12",
                           stripe_size=96 << 10))


def test_guest_device_names_follow_the_kernels_virtio_naming() -> None:
    from blockfit.lab.buildscripts import guest_device_names

    names = guest_device_names(28)
    assert names[:3] == ["/dev/vda", "/dev/vdb", "/dev/vdc"]
    assert names[25:] == ["/dev/vdz", "/dev/vdaa", "/dev/vdab"]
