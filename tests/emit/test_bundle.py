"""The build's table of emitters (emit/bundle.py): one name → emitter table, one signature (context in, files out),
and the steps of a build looked up from the cloud's entry and the manager, never from a cloud's name."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from blockfit.emit.bundle import EMITTERS, generate, steps
from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.options import Manager, Method, Provisioner
from blockfit.model.kinds import CLOUDS, cloud_of
from support.build import make_layout, make_plan

OCI_DEVS = [f"/dev/oracleoci/oraclevd{c}" for c in "bcde"]
NVME = [f"/dev/nvme{i}n1" for i in range(1, 5)]


def test_every_emitter_takes_the_context_alone() -> None:
    for name, emitter in EMITTERS.items():
        params = list(inspect.signature(emitter).parameters.values())
        assert len(params) == 1 and params[0].name == "ctx", name


def test_every_step_a_cloud_or_manager_names_is_in_the_table() -> None:
    named = {n for c in CLOUDS.values() for n in (c.provision_emitter, c.attach_emitter) if n is not None}
    named |= {m.value for m in Manager if m != Manager.NONE} | {"migrate", "filesystem"}
    assert named <= set(EMITTERS)
    for cloud in CLOUDS.values():   # a cloud that provisions with a tool has a step that writes for it
        assert bool(cloud.provisioners) == (cloud.provision_emitter is not None), cloud.name


def _ctx(devices: list[str], **kw: object) -> BuildContext:
    plan = make_plan(make_layout(members=len(devices)))
    return BuildContext(plan=plan, candidate_index=0, devices=devices, out_dir=Path("/nonexistent"),
                        **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kw", "expected"), [
    (dict(manager=Manager.LVM), ["oci-attachments", "lvm"]),
    (dict(manager=Manager.MDADM, mount="/u01"), ["oci-attachments", "mdadm", "filesystem"]),
    (dict(manager=Manager.LVM, mount="/u01", provision=Provisioner.OCI_CLI),
     ["provision-oci", "oci-attachments", "lvm", "filesystem"]),
    (dict(manager=Manager.LVM, mount="/u01", migrate_from="/dev/vg0/data", method=Method.ONLINE),
     ["oci-attachments", "lvm", "migrate"]),
    (dict(manager=Manager.LVM, mount="/u01", migrate_from="/dev/sdz", method=Method.OFFLINE),
     ["oci-attachments", "lvm", "migrate", "filesystem"]),
])
def test_the_steps_of_an_oci_build_in_run_order(kw: dict[str, object], expected: list[str]) -> None:
    ctx = _ctx(OCI_DEVS, **kw)
    assert cloud_of(ctx.cloud).attach_emitter == "oci-attachments"
    assert steps(ctx) == expected
    _result, files = generate(ctx)
    assert all(isinstance(f, GeneratedFile) for f in files)


def test_a_cloud_without_attachment_checks_gets_no_attachment_step() -> None:
    plan = make_plan(make_layout(cloud="aws", members=4, vpu=None), instance="r6i.2xlarge")
    ctx = BuildContext(plan=plan, candidate_index=0, manager=Manager.LVM, devices=NVME, out_dir=Path("/x"),
                       provision=Provisioner.AWS_CLI)
    assert steps(ctx) == ["provision-aws", "lvm"]
    _result, files = generate(ctx)
    assert [f.step.path for f in files][:2] == ["00-provision-aws.sh", "20-lvm.sh"]


def test_text_from_a_library_caller_is_read_into_the_typed_values() -> None:
    ctx = _ctx(OCI_DEVS, manager="mdadm", fs="ext4")
    assert ctx.manager is Manager.MDADM and ctx.fs == "ext4" and type(ctx.fs).__name__ == "Filesystem"
    with pytest.raises(ValueError, match="zfs"):
        _ctx(OCI_DEVS, manager="zfs")
