"""Oracle ASM: udev rules that give the grid owner stable /dev/oracleasm/* names (matched by multipath
DM_UUID, WWID or serial), then CREATE DISKGROUP with the plan's redundancy (EXTERNAL; or NORMAL / HIGH, each
volume its own failure group, as the plan priced 2 or 3 copies on distinct volumes), the AU size and the
compatibility attributes. On OCI the devices are the consistent paths /dev/oracleoci/oraclevdX.

21-asm-diskgroup.sh runs the SQL as the grid owner and never replaces the instance's asm_diskstring: it reads
the current value and what it discovers, and adds the new disks' names only when no element finds them yet (and
refuses when another element already finds the same disks under other names: ASM would discover them twice).

ASM's AU must be a power of two from 1 to 64 MB. A plan stripe outside that set is mapped to the nearest
valid AU at or below it (at least 1 MB), and the choice is reported as a note."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script, render_template
from blockfit.errors import ValueProblem
from blockfit.schema import BuildStep

MIB = 1024 * 1024
ASM_AU_MB = (1, 2, 4, 8, 16, 32, 64)
COMPATIBLE = "19.0.0.0.0"
MIN_COMPATIBLE = (11, 2)  # AUs above 1 MB, and the attributes this SQL sets, need 11.2 or later
ASM_DIR = "/dev/oracleasm"
REDUNDANCY_SQL = {"none": "EXTERNAL", "normal": "NORMAL", "high": "HIGH"}


def au_size_mb(stripe_bytes: int) -> tuple[int, str]:
    """(AU in MB, why): the stripe itself when ASM accepts it, else the largest valid AU ≤ stripe (min 1)."""
    if stripe_bytes % MIB == 0 and stripe_bytes // MIB in ASM_AU_MB:
        mb = stripe_bytes // MIB
        return mb, f"the plan's stripe size ({mb} MB) is a valid ASM AU"
    valid = [mb for mb in ASM_AU_MB if mb * MIB <= stripe_bytes]
    mb = valid[-1] if valid else 1
    return mb, (f"the plan's stripe of {stripe_bytes} bytes is not a valid ASM AU (a power of two, 1-64 MB); "
                f"using {mb} MB. ASM's coarse striping places one AU per disk in turn, so the AU is the stripe")


def compatible_release(text: str) -> str:
    """'12.2' -> '12.2.0.0.0': the release a disk group's compatible.asm and compatible.rdbms are set to (the oldest
    Oracle release that must use it), five numbers as ASM writes them; 11.2 or later."""
    parts = text.strip().split(".")
    if not 1 <= len(parts) <= 5 or not all(p.isdigit() and len(p) <= 3 for p in parts):
        raise ValueProblem(f"{text!r}: expected an Oracle release such as 19.0 or 12.2.0.1")
    nums = [int(p) for p in parts] + [0] * (5 - len(parts))
    if tuple(nums[:2]) < MIN_COMPATIBLE:
        raise ValueProblem(f"{text!r}: expected release 11.2 or later (ASM allocation units above 1 MB need it)")
    return ".".join(str(n) for n in nums)


def disk_names(ctx: BuildContext) -> list[str]:
    return [f"{ctx.diskgroup.lower()}{i + 1:02d}" for i in range(ctx.members)]


def rules_path(ctx: BuildContext) -> str:
    """The udev rules file of this disk group: one per disk group, so a second build never replaces the first's."""
    return f"/etc/udev/rules.d/99-blockfit-asm-{ctx.diskgroup.lower()}.rules"


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    au_mb, reason = au_size_mb(ctx.stripe_bytes)
    if not (ctx.stripe_bytes % MIB == 0 and ctx.stripe_bytes // MIB in ASM_AU_MB):
        ctx.notes.append(f"ASM AU: {reason}")
    redundancy = REDUNDANCY_SQL[ctx.layout.redundancy]
    names = disk_names(ctx)
    rules = rules_path(ctx)
    udev = BuildStep(order=20, name="asm-udev", path="20-asm-udev.sh", kind="volume-manager", touches_devices=True,
                     description=f"udev rules naming the {ctx.members} disks {ASM_DIR}/{names[0]} and on, owned by "
                                 "the grid owner")
    sql = BuildStep(order=0, name="asm-diskgroup-sql", path="21-asm-diskgroup.sql", kind="asm-sql",
                    touches_devices=False,
                    description=f"create disk group {ctx.diskgroup} with {redundancy.lower()} redundancy and "
                                f"{au_mb} MB allocation units")
    run = BuildStep(order=0, name="asm-diskgroup", path="21-asm-diskgroup.sh", kind="asm-sql", touches_devices=False,
                    description="as the grid owner: add the new disks to the ASM discovery string without "
                                f"dropping what it finds today, then create disk group {ctx.diskgroup}")
    ctx.checks += [
        "asm_diskstring is read and appended to, never replaced; a disk it would find under two names is refused, and "
        "so is an empty (default) value while disk groups use disks.",
        f"The udev rules go in a file of disk group {ctx.diskgroup}'s own; the lines of other rules are kept, and a "
        "disk name another rules file already gives is refused. Only these devices get a udev change event.",
    ]
    text = render_script("asm_udev.sh.j2", udev, ctx.source,
                         env_doc=[("BLOCKFIT_ASM_OWNER", "default grid"), ("BLOCKFIT_ASM_GROUP", "default asmadmin"),
                                  ("BLOCKFIT_ASM_RULES", f"default {rules}"), ("BLOCKFIT_SYSFS", "default /sys")],
                         devices=ctx.devices, asm_names=names, owner_doc="grid:asmadmin", rules=rules,
                         asm_dir=ASM_DIR)
    sql_text = render_template("asm.sql.j2", source=ctx.source, diskgroup=ctx.diskgroup, asm_names=names,
                               au_mb=au_mb, au_reason=reason, compatible=ctx.asm_compatible, redundancy=redundancy,
                               asm_dir=ASM_DIR)
    run_text = render_template("asm_diskgroup.sh.j2", step=run, source=ctx.source, diskgroup=ctx.diskgroup,
                               asm_paths=[f"{ASM_DIR}/{n}" for n in names], asm_dir=ASM_DIR,
                               redundancy=redundancy)
    return [GeneratedFile(udev, text), GeneratedFile(run, run_text), GeneratedFile(sql, sql_text, executable=False)]
