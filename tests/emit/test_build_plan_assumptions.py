"""Plan ↔ build: what a plan states as an assumption is what its build scripts set.

Random requirements on all four clouds go through the real planner (`make_plan`); the build of a random
candidate is rendered (nothing written, nothing run) and each assumption is read back from the scripts:
the iSCSI session queue depth and the multipath paths, grouping and selector (OCI), the attachment type,
the stripe unit (LVM stripe, md chunk, ASM AU), the filesystem alignment (XFS su/sw, ext4 stride/stripe_width
over the members that hold distinct data) and the redundancy (mdadm RAID10 near-N, ASM NORMAL/HIGH with a
failure group per volume). A second property does the same for random layouts straight from `predict`
(OCI multipath and paravirtualized cases the planner reaches only with options). Cost: about 40 s in all.
"""

from __future__ import annotations

import functools
import re
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from blockfit.catalog import Catalog, load_catalog
from blockfit.emit.bundle import generate
from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.model.host import host_settings
from blockfit.model.instance import instance_at
from blockfit.plan.evaluate import PLAN_SESSION_DEPTH
from blockfit.plan.planner import make_plan
from blockfit.plan.space import default_space
from blockfit.schema import Candidate, Layout, Plan, Requirements, Volume, Workload
from blockfit.schema.cost import COPIES

CLOUDS = ("oci", "aws", "azure", "gcp")
MIB = 1024 * 1024


@functools.cache
def catalog(cloud: str) -> Catalog:
    return load_catalog(cloud)


@functools.cache
def level_names(cloud: str) -> list[str]:
    """The levels plan can rank on this cloud (a type without a price is not planned: drawing it only wastes time)."""
    cat = catalog(cloud)
    if cloud == "oci":
        names = [f"{lv.vpu}vpu" for lv in cat.volume_types["block"].levels]
    else:
        names = sorted(k for k, vt in cat.volume_types.items() if vt.levels_from is None)
    shape = sorted(cat.shapes)[0]
    return [n for n in names if default_space(cat, Requirements(cloud=cloud, capacity_gb=100, instance_shape=shape,
                                                                levels=[n])).options]


@st.composite
def requirements(draw: st.DrawFn) -> Requirements:
    cloud = draw(st.sampled_from(CLOUDS))
    cat = catalog(cloud)
    # a series whose per-VM limits are unknown (GCP's Hyperdisk-only series) has no sizes to draw from
    shape = cat.shapes[draw(st.sampled_from(sorted(n for n, s in cat.shapes.items()
                                                   if s.kind != "vcpu_tiers" or s.tiers)))]
    ocpus = None
    if shape.kind == "flex" and shape.ocpus_min is not None and shape.ocpus_max is not None:
        ocpus = float(draw(st.integers(int(shape.ocpus_min), int(shape.ocpus_max))))
    elif shape.kind == "vcpu_tiers":
        ocpus = float(draw(st.sampled_from(sorted({t["vcpus_min"] for t in shape.tiers}))))
    redundancy = draw(st.sampled_from(["none", "none", "raid10", "normal", "high"]))
    manager = {"raid10": "mdadm", "normal": "asm", "high": "asm"}.get(redundancy) or draw(
        st.sampled_from(["lvm", "mdadm", "asm"]))
    oci = cloud == "oci"
    inst = instance_at(cat, shape.name, ocpus)   # the count as results name it: vCPUs, and OCPUs on OCI
    return Requirements(
        cloud=cloud, capacity_gb=draw(st.integers(50, 2000)), instance_shape=shape.name, instance_vcpus=inst.vcpus,
        instance_ocpus=inst.ocpus,
        target_iops=draw(st.none() | st.integers(500, 5000).map(float)),
        target_mbps=draw(st.none() | st.integers(20, 200).map(float)),
        levels=[draw(st.sampled_from(level_names(cloud)))], max_volumes=draw(st.integers(1, 8)),
        manager=manager, redundancy=redundancy, read_pct=draw(st.sampled_from([100, 70, 50])),
        attachment=draw(st.sampled_from([None, "iscsi", "paravirtualized"])) if oci else None,
        paths=draw(st.none() | st.integers(1, 4)) if oci else None)


def devices(cloud: str, n: int) -> list[str]:
    if cloud == "oci":
        return [f"/dev/oracleoci/oraclevd{chr(ord('b') + i)}" for i in range(n)]
    return [f"/dev/nvme{i + 1}n1" for i in range(n)]


def render(plan: Plan, index: int, manager: str, fs: str, mount: str | None,
           provision: str | None) -> tuple[BuildContext, dict[str, str]]:
    cand = plan.candidates[index]
    ctx = BuildContext(plan=plan, candidate_index=index, manager=manager,
                       devices=devices(plan.cloud, cand.layout_detail.members), out_dir=Path("/nonexistent/out"),
                       mount=mount, fs=fs, provision=provision)
    _result, files = generate(ctx)
    return ctx, {f.step.path: f.text for f in files if isinstance(f, GeneratedFile)}


def var(text: str, name: str) -> str:
    """The value a script assigns to NAME (first assignment, shell-unquoted, comment dropped)."""
    m = re.search(rf"^{name}=(.*)$", text, re.M)
    assert m, f"{name}= not in the script"
    return shlex.split(m.group(1), comments=True)[0] if m.group(1).strip() else ""


def check_build_sets_what_the_plan_assumed(plan: Plan, index: int, manager: str, fs: str, mount: str | None,
                                           provision: str | None) -> None:
    cand = plan.candidates[index]
    layout = cand.layout_detail
    pred = cand.prediction
    members = layout.members
    copies = COPIES[layout.redundancy]
    if members < (copies if layout.redundancy != "none" else 2 if manager == "mdadm" else 1):
        # a mirror needs a volume per copy: build refuses such a layout in one line, writing nothing
        with pytest.raises(InputError, match="needs at least"):
            render(plan, index, manager, fs, mount, provision)
        return
    ctx, files = render(plan, index, manager, fs, mount, provision)

    # ---- stripe unit: one figure in the plan (bytes, spec, layout) and the same in the volume manager
    stripe = (cand.layout_detail.stripe_size or 0)
    if members > 1:
        assert layout.stripe_size == stripe
    if manager == "lvm":
        lvm = files["20-lvm.sh"]
        assert var(lvm, "STRIPES") == str(members)
        assert var(lvm, "STRIPE_BYTES") == (str(stripe) if members > 1 else "0")
    elif manager == "mdadm":
        md = files["20-mdadm.sh"]
        assert var(md, "CHUNK_BYTES") == str(stripe) and var(md, "MEMBERS") == str(members)
        if layout.redundancy == "raid10":
            assert var(md, "LEVEL") == "raid10" and f"--layout=n{copies} " in md
            assert var(md, "LAYOUT_WORD") == str(copies | 1 << 8)
        else:
            assert var(md, "LEVEL") == "raid0" and "--level=0 " in md
    elif manager == "asm":
        sql = files["21-asm-diskgroup.sql"]
        if layout.manager == "asm":   # planned for ASM: the plan's stripe is the AU, no rounding
            assert stripe % MIB == 0 and f"'au_size' = '{stripe // MIB}M'" in sql
            assert not any("ASM AU" in n for n in ctx.notes)
        want = {"none": "EXTERNAL", "normal": "NORMAL", "high": "HIGH"}[layout.redundancy]
        assert f"{want} REDUNDANCY" in sql and f"REDUNDANCY={want} " in files["21-asm-diskgroup.sh"]
        assert sql.count("FAILGROUP ") == (members if want != "EXTERNAL" else 0)
        assert sql.count("'/dev/oracleasm/") == members and "ALTER SYSTEM" not in sql

    # ---- filesystem alignment: su/sw (stride/stripe_width) over the members holding distinct data
    if mount is not None:
        mkfs = shlex.split(re.search(r"^MKFS=\((.*)\)$", files["40-filesystem.sh"], re.M).group(1))  # type: ignore[union-attr]
        data = members // copies if layout.redundancy == "raid10" and members % copies == 0 else members
        if members == 1:
            assert "-d" not in mkfs and "-E" not in mkfs
        elif fs == "xfs":
            assert mkfs[mkfs.index("-d") + 1] == f"su={stripe // 1024}k,sw={data}"
        else:
            assert mkfs[mkfs.index("-E") + 1] == f"stride={stripe // 4096},stripe_width={stripe // 4096 * data}"

    # ---- attachment, session queue depth, paths, grouping, selector (OCI)
    if plan.cloud != "oci":
        assert "10-oci-attachments.sh" not in files and "11-oci-multipath.sh" not in files
        assert cand.session_queue_depth is None and cand.multipath is None
        return
    attach = files["10-oci-attachments.sh"]
    iscsi = pred.attachment == "iscsi"
    assert var(attach, "ATTACHMENT") == (pred.attachment or "")
    # the depth the figures were computed at is the depth the host gets
    assert cand.session_queue_depth == (pred.session_depth if iscsi else None)
    assert var(attach, "WANT_QD") == str(pred.session_depth if iscsi else 0)
    for note in plan.notes:
        m = re.search(r"node\.session\.queue_depth = (\d+)", note)
        if m and index == 0:
            assert var(attach, "WANT_QD") == m.group(1)
    spread = iscsi and (pred.paths or 1) > 1
    assert (cand.multipath is not None) == spread
    assert var(attach, "WANT_PATHS") == str(pred.paths or 1)
    if spread:
        assert var(attach, "NEED_MULTIPATH") == "1"
        mp = files["11-oci-multipath.sh"]
        assert cand.multipath is not None
        assert var(mp, "WANT_PATHS") == str(pred.paths)
        assert var(mp, "GROUPING") == cand.multipath.path_grouping_policy == "multibus"
        assert var(mp, "SELECTOR") == cand.multipath.path_selector
    else:
        assert "11-oci-multipath.sh" not in files
    if provision == "oci-cli":
        prov = "\n".join(ln for ln in files["00-provision-oci.sh"].splitlines() if not ln.lstrip().startswith("#"))
        kind = "attach-iscsi-volume" if (pred.attachment or "iscsi") == "iscsi" else "attach-paravirtualized-volume"
        other = {"attach-iscsi-volume", "attach-paravirtualized-volume"} - {kind}
        assert f"volume-attachment {kind} " in prov and not any(f"volume-attachment {o} " in prov for o in other)
    if provision == "terraform":
        assert f'attachment_type = "{pred.attachment or "iscsi"}"' in re.sub(r" +", " ", files["terraform/main.tf"])


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(req=requirements(), data=st.data())
def test_the_build_of_a_random_plan_sets_what_the_plan_assumed(req: Requirements, data: st.DataObject) -> None:
    try:
        plan = make_plan(req, catalog(req.cloud), keep=3)
    except InputError as e:
        event(f"{req.cloud}: {str(e)[:70]}")
        assume(False)
        raise
    if not plan.feasible:
        event(f"{req.cloud}: infeasible")
        assume(False)
    index = data.draw(st.integers(0, len(plan.candidates) - 1))
    cand = plan.candidates[index]
    event(f"{req.cloud} {cand.layout_detail.redundancy} paths={cand.prediction.paths} depth={cand.session_queue_depth}")
    mirror = cand.layout_detail.redundancy
    manager = {"raid10": "mdadm", "normal": "asm", "high": "asm"}.get(mirror) or req.manager
    mount = None if manager == "asm" else data.draw(st.sampled_from([None, "/u01"]))
    provision = data.draw(st.sampled_from([None, "terraform", "oci-cli"] if req.cloud == "oci" else
                                          [None, "terraform", "aws-cli"] if req.cloud == "aws" else [None]))
    check_build_sets_what_the_plan_assumed(plan, index, manager, data.draw(st.sampled_from(["xfs", "ext4"])),
                                           mount, provision)


@st.composite
def oci_predictions(draw: st.DrawFn) -> Plan:
    """A one-candidate OCI plan from a random layout's real prediction, made the way the planner makes them."""
    cat = catalog("oci")
    vpu = draw(st.sampled_from([lv.vpu for lv in cat.volume_types["block"].levels]))
    members = draw(st.integers(1, 12))
    redundancy = draw(st.sampled_from(["none", "raid10", "normal", "high"]))
    manager = {"raid10": "mdadm", "normal": "asm", "high": "asm"}.get(redundancy, "lvm")
    units = [MIB, 4 * MIB] if manager == "asm" else [256 * 1024, MIB, 4 * MIB]   # an ASM AU is 1-64 MB
    stripe = draw(st.sampled_from(units)) if members > 1 else None
    attachment = draw(st.sampled_from(["iscsi", "paravirtualized"]))
    paths = draw(st.integers(1, 6)) if attachment == "iscsi" else None
    layout = Layout(members=members, volume=Volume(cloud="oci", type="block", size_gb=draw(st.integers(50, 4000)),
                                                   vpu_per_gb=vpu),
                    stripe_size=stripe, manager=manager, attachment=attachment, paths=paths,  # type: ignore[arg-type]
                    redundancy=redundancy)  # type: ignore[arg-type]
    try:
        return plan_from_layout(layout, float(draw(st.integers(16, 64))))
    except InputError:
        assume(False)
        raise


def plan_from_layout(layout: Layout, ocpus: float = 16) -> Plan:
    """A one-candidate OCI plan from a layout's real prediction at plan's session depth, made as the planner does."""
    cat = catalog("oci")
    inst = instance_at(cat, "VM.Standard.E4.Flex", ocpus)
    pred = predict(layout, inst, Workload(host_queue_depth=PLAN_SESSION_DEPTH), cat, with_curve=False)
    cand = Candidate(layout=pred.layout, instance=inst.spec, stripe_reason="test", meets_targets=True,
                     prediction=pred, **host_settings(pred))
    req = Requirements(cloud="oci", capacity_gb=float(layout.total_gb), instance_shape=inst.shape,
                       manager=layout.manager, redundancy=layout.redundancy)
    return Plan(blockfit_version="test", created=datetime.now(UTC), cloud="oci", catalog_version="test",
                requirements=req, candidates=[cand])


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(plan=oci_predictions(), fs=st.sampled_from(["xfs", "ext4"]), provision=st.sampled_from([None, "oci-cli",
                                                                                               "terraform"]))
def test_the_build_of_a_random_oci_prediction_sets_its_paths_and_depth(plan: Plan, fs: str,
                                                                       provision: str | None) -> None:
    cand = plan.candidates[0]
    layout = cand.layout_detail
    manager = {"raid10": "mdadm", "normal": "asm", "high": "asm"}.get(layout.redundancy, "lvm")
    check_build_sets_what_the_plan_assumed(plan, 0, manager, fs, None if manager == "asm" else "/u01", provision)


def test_a_balanced_plan_that_assumes_128_per_session_builds_128() -> None:
    """Finding 5 of issue 22: the plan said 'Assumes node.session.queue_depth = 128 on every iSCSI session' and its
    build kept 32 (WANT_QD=0 for a Balanced layout)."""
    req = Requirements(cloud="oci", capacity_gb=1500, instance_shape="VM.Standard.E4.Flex", instance_ocpus=16,
                       target_iops=100000, levels=["balanced"], max_volumes=16)
    plan = make_plan(req, catalog("oci"), keep=1)
    cand = plan.candidates[0]
    assert cand.layout_detail.volume.vpu_per_gb == 10 and cand.prediction.attachment == "iscsi"
    assert any("node.session.queue_depth 128" in n for n in plan.notes)
    _ctx, files = render(plan, 0, "lvm", "xfs", "/u01", None)
    assert var(files["10-oci-attachments.sh"], "WANT_QD") == "128"


def test_a_uhp_plan_on_six_paths_builds_a_spread_over_six() -> None:
    req = Requirements(cloud="oci", capacity_gb=2000, instance_shape="VM.Standard.E4.Flex", instance_ocpus=16,
                       levels=["120vpu"], max_volumes=1)
    plan = make_plan(req, catalog("oci"), keep=1)
    cand = plan.candidates[0]
    assert cand.prediction.paths is not None and cand.prediction.paths > 1 and cand.multipath is not None
    _ctx, files = render(plan, 0, "none", "xfs", "/u01", None)
    assert var(files["11-oci-multipath.sh"], "WANT_PATHS") == str(cand.prediction.paths)
    assert var(files["10-oci-attachments.sh"], "WANT_PATHS") == str(cand.prediction.paths)
    assert any(f"{cand.prediction.paths} paths per volume" in n and "dm-multipath" in n for n in plan.notes)


@pytest.mark.parametrize("redundancy", ["normal", "high"])
def test_an_asm_mirrored_plan_builds_its_redundancy_with_a_failure_group_per_volume(redundancy: str) -> None:
    """Before: every ASM normal/high plan was refused by build ('EXTERNAL REDUNDANCY only so far')."""
    req = Requirements(cloud="oci", capacity_gb=500, instance_shape="VM.Standard.E4.Flex", instance_ocpus=16,
                       target_iops=20000, levels=["higher"], max_volumes=6, manager="asm",
                       redundancy=redundancy)  # type: ignore[arg-type]
    plan = make_plan(req, catalog("oci"), keep=1)
    members = plan.candidates[0].layout_detail.members
    assert members >= COPIES[redundancy]
    _ctx, files = render(plan, 0, "asm", "xfs", None, None)
    sql = files["21-asm-diskgroup.sql"]
    assert f"{redundancy.upper()} REDUNDANCY" in sql and sql.count("FAILGROUP DATA_FG") == members


def test_a_two_volume_raid10_keeps_its_stripe_alignment() -> None:
    """Found by the property above: a RAID10 of two volumes holds one chunk of distinct data per stripe, and mkfs
    got no su/sw at all (the geometry was dropped whenever the data members were 1); it is su=chunk, sw=1."""
    plan = plan_from_layout(Layout(members=2, volume=Volume(cloud="oci", type="block", size_gb=100, vpu_per_gb=10),
                                   stripe_size=256 * 1024, manager="mdadm", redundancy="raid10"))
    cand = plan.candidates[0]
    unit = (cand.layout_detail.stripe_size or 0)
    for fs, want in (("xfs", f"su={unit // 1024}k,sw=1"),
                     ("ext4", f"stride={unit // 4096},stripe_width={unit // 4096}")):
        _ctx, files = render(plan, 0, "mdadm", fs, "/u01", None)
        assert want in files["40-filesystem.sh"]
