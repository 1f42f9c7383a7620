"""Orchestration: validate the request, look up the build's steps in one table of emitters (name → emitter, each
context in, files out), write their files with a README and a run-all.sh as the output folder, whole (refusing a
non-empty folder unless forced)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from blockfit.emit import asm, filesystem, lvm, mdraid, migrate, multipath, provision
from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.options import Filesystem, Manager, Method, Provisioner
from blockfit.emit.safety import COMMON_CHECKS, check_device_path, render_template
from blockfit.files import replace_folder
from blockfit.model.kinds.clouds import cloud_of
from blockfit.schema import BuildResult, BuildStep, Plan
from blockfit.schema.build import step_content

Emitter = Callable[[BuildContext], list[GeneratedFile]]

# every step a build can write, by name: the cloud's entry names its provisioning and attachment steps, the
# manager names its own; each takes the validated context and returns its files
EMITTERS: dict[str, Emitter] = {
    "provision-oci": provision.oci,
    "provision-aws": provision.aws,
    "oci-attachments": multipath.emit,
    Manager.LVM: lvm.emit,
    Manager.MDADM: mdraid.emit,
    Manager.ASM: asm.emit,
    "migrate": migrate.emit,
    "filesystem": filesystem.emit,
}


def steps(ctx: BuildContext) -> list[str]:
    """The emitters of this build, in run order."""
    cloud = cloud_of(ctx.cloud)
    names: list[str | None] = [cloud.provision_emitter if ctx.provision else None, cloud.attach_emitter]
    if ctx.manager != Manager.NONE:
        names.append(ctx.manager)
    if ctx.migrate_from:
        names.append("migrate")
    if ctx.mount and ctx.target_device and not ctx.online:
        names.append("filesystem")
    return [n for n in names if n is not None]


def build_notes(ctx: BuildContext) -> list[str]:
    """What the user should know about this build beyond its steps."""
    notes = []
    if ctx.mount and ctx.target_device and ctx.online:
        notes.append("online migration: the filesystem moves with the LV and stays mounted; no mkfs or "
                     "fstab change. Its stripe alignment (su/sw) stays that of the old filesystem.")
    if ctx.migrate_from and ctx.method == Method.OFFLINE and not ctx.mount:
        notes.append("offline migration without --mount: mount the copy yourself; it carries the source's "
                     "filesystem UUID until you give it a new one (xfs_admin for XFS, tune2fs for ext4)")
    if ctx.manager == Manager.LVM and ctx.members > 1 and ctx.stripe_bytes > lvm.extent_bytes(0):
        notes.append(f"LVM: the stripe of {ctx.stripe_bytes} bytes is larger than 4 MiB; the volume group uses "
                     f"extents of {lvm.extent_bytes(ctx.stripe_bytes)} bytes")
    device_note = cloud_of(ctx.cloud).device_note(ctx.devices)
    if device_note is not None:
        notes.append(device_note)
    planned = ctx.layout.manager
    if planned not in ("none", ctx.manager) and ctx.members > 1:
        notes.append(f"the plan's stripe advice ({ctx.stripe_bytes} bytes) was made for {planned}; "
                     f"building with {ctx.manager}")
    return notes


def check_device_paths(ctx: BuildContext) -> None:
    """Every device path as the scripts accept it (`safety.check_device_path`), first of all checks."""
    for dev in ctx.devices:
        check_device_path(dev)
    if ctx.migrate_from is not None:
        check_device_path(ctx.migrate_from, "--migrate-from")


def generate(ctx: BuildContext) -> tuple[BuildResult, list[GeneratedFile]]:
    """All files of one build, in run order, without writing anything."""
    check_device_paths(ctx)
    ctx.validate()
    files: list[GeneratedFile] = []
    for name in steps(ctx):
        files += EMITTERS[name](ctx)
    ctx.notes += build_notes(ctx)
    target = ctx.target_device
    runnable = sorted((f for f in files if f.step.order > 0), key=lambda f: f.step.order)
    run_all = BuildStep(order=0, name="run-all", path="run-all.sh", kind="runner", touches_devices=True,
                        description="runs " + ", ".join(f.step.path for f in runnable) + " in this order")
    files.append(GeneratedFile(run_all, render_template("run_all.sh.j2", source=ctx.source,
                                                         steps=[f.step.path for f in runnable])))
    result = BuildResult(out_dir=str(ctx.out_dir), cloud=ctx.cloud, manager=ctx.manager, members=ctx.members,
                         stripe_size=ctx.stripe_bytes if ctx.members > 1 else None, devices=ctx.devices,
                         target_device=target, filesystem=ctx.fs if ctx.mount else None, mount=ctx.mount,
                         migrate_from=ctx.migrate_from, migrate_method=ctx.method, provision=ctx.provision,
                         steps=[f.step for f in files], notes=list(ctx.notes), migrations=list(ctx.migrations),
                         safety_checks=COMMON_CHECKS + list(dict.fromkeys(ctx.checks)))
    readme = BuildStep(order=0, name="readme", path="README.md", kind="runner", touches_devices=False,
                       description="what each file does, in which order, and the options")
    result.steps.append(readme)
    state_file = provision.STATE_FILES.get(ctx.cloud, "") if ctx.provision else ""
    files.append(GeneratedFile(readme, render_template("README.md.j2", ctx=ctx, result=result, runnable=runnable,
                                                       plan=ctx.plan, candidate=ctx.candidate,
                                                       state_file=state_file), executable=False))
    # each step carries its text: the report shows the build from the result, never by opening its paths
    result.steps = [f.step.model_copy(update={"content": step_content(f.text)}) for f in files]
    return result, files


def write(out_dir: Path, files: list[GeneratedFile], force: bool = False) -> None:
    """Write all files as the folder out_dir, whole: assembled aside and swapped in (files.replace_folder), so a
    failure or a signal leaves the old folder as it was and two builds never mix their scripts."""
    replace_folder(out_dir, [(f.step.path, f.text, 0o755 if f.executable else 0o644) for f in files],
                   what="--out", force=force)


def build(plan: Plan, *, manager: Manager, devices: list[str], out_dir: Path, candidate: int = 0,
          mount: str | None = None, fs: Filesystem = Filesystem.XFS, migrate_from: str | None = None,
          method: Method | None = None, provision_with: Provisioner | None = None, force: bool = False,
          vg: str = "blockfit_vg", lv: str = "blockfit_lv", md_name: str = "blockfit",
          diskgroup: str = "DATA") -> BuildResult:
    """Generate and write the scripts of one build; returns what was written."""
    ctx = BuildContext(plan=plan, candidate_index=candidate, manager=manager, devices=devices, out_dir=out_dir,
                       mount=mount, fs=fs, migrate_from=migrate_from, method=method, provision=provision_with,
                       vg=vg, lv=lv, md_name=md_name, diskgroup=diskgroup)
    return build_from(ctx, force=force)


def build_from(ctx: BuildContext, force: bool = False) -> BuildResult:
    """Generate and write the scripts of a context (the command line builds it, checking option by option)."""
    result, files = generate(ctx)
    write(ctx.out_dir, files, force=force)
    return result
