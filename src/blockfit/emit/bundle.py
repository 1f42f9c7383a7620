"""Orchestration: validate the request, ask each emitter for its files, write them with a README and a
run-all.sh as the output folder, whole (refusing a non-empty folder unless forced)."""

from __future__ import annotations

from pathlib import Path

from blockfit.emit import asm, filesystem, lvm, mdraid, migrate, multipath, provision
from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import COMMON_CHECKS, check_device_path, render_template
from blockfit.errors import InputError
from blockfit.files import replace_folder
from blockfit.schema import BuildResult, BuildStep, Plan
from blockfit.schema.build import step_content


def generate(ctx: BuildContext) -> tuple[BuildResult, list[GeneratedFile]]:
    """All files of one build, in run order, without writing anything."""
    for dev in ctx.devices:
        check_device_path(dev)
    if ctx.migrate_from is not None:
        check_device_path(ctx.migrate_from, "--migrate-from")
    ctx.validate()
    if ctx.online and ctx.members < 2:
        raise InputError("--method online: the layout has one member; there is no stripe to mirror onto")
    files: list[GeneratedFile] = []
    if ctx.provision:
        files += provision.emit(ctx)
    if ctx.cloud == "oci":
        files += multipath.emit(ctx)
    if ctx.manager == "lvm":
        files += lvm.emit(ctx)
    elif ctx.manager == "mdadm":
        files += mdraid.emit(ctx)
    elif ctx.manager == "asm":
        files += asm.emit(ctx)
    if ctx.migrate_from:
        files += migrate.emit(ctx)
    target = ctx.target_device
    if ctx.mount and target:
        if ctx.online:
            ctx.notes.append("online migration: the filesystem moves with the LV and stays mounted; no mkfs or "
                             "fstab change. Its stripe alignment (su/sw) stays that of the old filesystem.")
        else:
            files += filesystem.emit(ctx, target, mode="adopt" if ctx.migrate_from else "mkfs")
    if ctx.migrate_from and ctx.method == "offline" and not ctx.mount:
        ctx.notes.append("offline migration without --mount: mount the copy yourself; it carries the source's "
                         "filesystem UUID until you give it a new one (xfs_admin for XFS, tune2fs for ext4)")
    if ctx.manager == "lvm" and ctx.members > 1 and ctx.stripe_bytes > lvm.extent_bytes(0):
        ctx.notes.append(f"LVM: the stripe of {ctx.stripe_bytes} bytes is larger than 4 MiB; the volume group uses "
                         f"extents of {lvm.extent_bytes(ctx.stripe_bytes)} bytes")
    if ctx.cloud == "oci" and not all(d.startswith("/dev/oracleoci/") for d in ctx.devices):
        ctx.notes.append("OCI: prefer the consistent device paths (/dev/oracleoci/oraclevdX) in --devices; "
                         "sdX/vdX names can change across reboots, and UHP multipath needs the device path")
    planned = ctx.layout.manager
    if planned not in ("none", ctx.manager) and ctx.members > 1:
        ctx.notes.append(f"the plan's stripe advice ({ctx.stripe_bytes} bytes) was made for {planned}; "
                         f"building with {ctx.manager}")
    runnable = sorted((f for f in files if f.step.order > 0), key=lambda f: f.step.order)
    run_all = BuildStep(order=0, name="run-all", path="run-all.sh", kind="runner", touches_devices=True,
                        description="runs " + ", ".join(f.step.path for f in runnable) + " in this order")
    files.append(GeneratedFile(run_all, render_template("run_all.sh.j2", source=ctx.source,
                                                         steps=[f.step.path for f in runnable])))
    result = BuildResult(out_dir=str(ctx.out_dir), cloud=ctx.cloud, manager=ctx.manager, members=ctx.members,
                         stripe_size=ctx.stripe_bytes if ctx.members > 1 else None, devices=ctx.devices,
                         target_device=target, filesystem=ctx.fs if ctx.mount else None, mount=ctx.mount,
                         migrate_from=ctx.migrate_from, migrate_method=ctx.method, provision=ctx.provision,
                         steps=[f.step for f in files], notes=list(ctx.notes),
                         safety_checks=COMMON_CHECKS + list(dict.fromkeys(ctx.checks)))
    readme = BuildStep(order=0, name="readme", path="README.md", kind="runner", touches_devices=False,
                       description="what each file does, in which order, and the options")
    result.steps.append(readme)
    files.append(GeneratedFile(readme, render_template("README.md.j2", ctx=ctx, result=result, runnable=runnable,
                                                       plan=ctx.plan, candidate=ctx.candidate), executable=False))
    # each step carries its text: the report shows the build from the result, never by opening its paths
    result.steps = [f.step.model_copy(update={"content": step_content(f.text)}) for f in files]
    return result, files


def write(out_dir: Path, files: list[GeneratedFile], force: bool = False) -> None:
    """Write all files as the folder out_dir, whole: assembled aside and swapped in (files.replace_folder), so a
    failure or a signal leaves the old folder as it was and two builds never mix their scripts."""
    replace_folder(out_dir, [(f.step.path, f.text, 0o755 if f.executable else 0o644) for f in files],
                   what="--out", force=force)


def build(plan: Plan, *, manager: str, devices: list[str], out_dir: Path, candidate: int = 0,
          mount: str | None = None, fs: str = "xfs", migrate_from: str | None = None, method: str | None = None,
          provision_with: str | None = None, force: bool = False, vg: str = "blockfit_vg",
          lv: str = "blockfit_lv", md_name: str = "blockfit", diskgroup: str = "DATA") -> BuildResult:
    """Generate and write the scripts of one build; returns what was written."""
    ctx = BuildContext(plan=plan, candidate_index=candidate, manager=manager, devices=devices, out_dir=out_dir,
                       mount=mount, fs=fs, migrate_from=migrate_from, method=method, provision=provision_with,
                       vg=vg, lv=lv, md_name=md_name, diskgroup=diskgroup)
    result, files = generate(ctx)
    write(out_dir, files, force=force)
    return result
