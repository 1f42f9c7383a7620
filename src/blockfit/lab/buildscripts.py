"""The build scripts a lab guest runs: `blockfit build` run on the host as a user would, for the guest's device
names, from the plan (or a one-candidate plan written for a layout spec)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from blockfit import proc
from blockfit.catalog import is_shipped
from blockfit.catalog.models import Catalog
from blockfit.errors import LabFailed
from blockfit.model.given import given_requirements, one_candidate_plan
from blockfit.schema import Layout, Plan, Prediction

if TYPE_CHECKING:
    from blockfit.lab.subject import Subject

GUEST_MOUNT = "/mnt/blockfit-lab"


def builder() -> str | None:
    """The `blockfit` executable that writes the build scripts; None when this installation has no `build`.

    Without it the lab sets the stripe up with plain commands so it can still measure.
    """
    if importlib.util.find_spec("blockfit.emit") is None:
        return None
    exe = Path(sys.executable).parent / "blockfit"
    return str(exe) if exe.is_file() else None


def guest_device_names(count: int) -> list[str]:
    """/dev/vda, /dev/vdb, ...: the names the guest kernel gives virtio disks in qemu's command-line order."""
    names = []
    for i in range(count):
        suffix = ""
        n = i
        while True:
            suffix = chr(ord("a") + n % 26) + suffix
            n = n // 26 - 1
            if n < 0:
                break
        names.append(f"/dev/vd{suffix}")
    return names


def write_build_scripts(exe: str, work: Path, plan_text: str, manager: str, fs: str, devices: list[str],
                        mount: str = GUEST_MOUNT, name: str = "build", names: tuple[str, ...] = (),
                        cat: Catalog | None = None) -> None:
    """Run `blockfit build` as a user would, for the guest's device names, into WORK/NAME.

    NAMES (e.g. ``--vg``, ``vg_b``) keep two layouts built in one guest apart. CAT, when it is a file `catalog
    import` wrote, goes along as ``--catalog``: `build` derives the plan again on the catalog it was made on.
    """
    (work / f"{name}-plan.json").write_text(plan_text)
    cmd = [exe, "build", "--plan", str(work / f"{name}-plan.json"), "--manager", manager,
           "--devices", ",".join(devices), "--mount", mount, "--fs", fs, "--out", str(work / name), *names]
    if cat is not None and not is_shipped(cat):
        cmd += ["--catalog", str(cat.path)]
    out = proc.run(cmd, timeout=600)
    (work / f"{name}-command.log").write_text(" ".join(cmd) + "\n" + out.stdout + out.stderr)
    if out.returncode != 0:
        raise LabFailed(f"lab: 'blockfit build' refused the plan: {out.stderr.strip()[-400:]}")


def plan_for(subject: Subject, layout: Layout | None = None, pred: Prediction | None = None) -> Plan:
    """A one-candidate plan.json for `blockfit build`, when the lab was given a layout instead of a plan.

    LAYOUT and PRED default to the subject's stripe; the bench passes its other layout (e.g. the single volume).
    """
    pred = pred or subject.stripe
    layout = (layout or subject.layout).model_copy(update={"stripe_size": subject.stripe_size})
    req = given_requirements(subject.cloud, layout.total_gb, subject.instance, layout.manager)
    return one_candidate_plan(pred.model_copy(update={"layout_detail": layout}), req, "given to blockfit lab",
                              ["written by blockfit lab for the build scripts it runs in the guest"])
