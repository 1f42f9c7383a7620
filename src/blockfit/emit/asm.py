"""Oracle ASM: udev rules that give the grid owner stable /dev/oracleasm/* names (matched by multipath
DM_UUID, WWID or serial), and CREATE DISKGROUP … EXTERNAL REDUNDANCY with the AU size and compatibility
attributes. On OCI the devices are the consistent paths /dev/oracleoci/oraclevdX.

ASM's AU must be a power of two from 1 to 64 MB. A plan stripe outside that set is mapped to the nearest
valid AU at or below it (at least 1 MB), and the choice is reported as a note."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script, render_template
from blockfit.schema import BuildStep

MIB = 1024 * 1024
ASM_AU_MB = (1, 2, 4, 8, 16, 32, 64)
COMPATIBLE = "19.0.0.0.0"


def au_size_mb(stripe_bytes: int) -> tuple[int, str]:
    """(AU in MB, why): the stripe itself when ASM accepts it, else the largest valid AU ≤ stripe (min 1)."""
    if stripe_bytes % MIB == 0 and stripe_bytes // MIB in ASM_AU_MB:
        mb = stripe_bytes // MIB
        return mb, f"the plan's stripe size ({mb} MB) is a valid ASM AU"
    valid = [mb for mb in ASM_AU_MB if mb * MIB <= stripe_bytes]
    mb = valid[-1] if valid else 1
    return mb, (f"the plan's stripe of {stripe_bytes} bytes is not a valid ASM AU (a power of two, 1-64 MB); "
                f"using {mb} MB. ASM's coarse striping places one AU per disk in turn, so the AU is the stripe")


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    au_mb, reason = au_size_mb(ctx.stripe_bytes)
    if not (ctx.stripe_bytes % MIB == 0 and ctx.stripe_bytes // MIB in ASM_AU_MB):
        ctx.notes.append(f"ASM AU: {reason}")
    names = [f"{ctx.diskgroup.lower()}{i + 1:02d}" for i in range(ctx.members)]
    udev = BuildStep(order=20, name="asm-udev", path="20-asm-udev.sh", kind="volume-manager", touches_devices=True,
                     description=f"udev rules: {ctx.members} disks as /dev/oracleasm/{names[0]}… for the grid owner")
    sql = BuildStep(order=0, name="asm-diskgroup", path="21-asm-diskgroup.sql", kind="asm-sql",
                    touches_devices=False,
                    description=f"CREATE DISKGROUP {ctx.diskgroup} EXTERNAL REDUNDANCY, au_size {au_mb}M "
                                "(run as the grid owner in sqlplus / as sysasm)")
    text = render_script("asm_udev.sh.j2", udev, ctx.source,
                         env_doc=[("BLOCKFIT_ASM_OWNER", "default grid"), ("BLOCKFIT_ASM_GROUP", "default asmadmin"),
                                  ("BLOCKFIT_ASM_RULES", "default /etc/udev/rules.d/99-blockfit-asm.rules")],
                         devices=ctx.devices, asm_names=names, owner_doc="grid:asmadmin")
    sql_text = render_template("asm.sql.j2", source=ctx.source, diskgroup=ctx.diskgroup, asm_names=names,
                               au_mb=au_mb, au_reason=reason, compatible=COMPATIBLE)
    return [GeneratedFile(udev, text), GeneratedFile(sql, sql_text, executable=False)]
