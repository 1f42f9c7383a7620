"""OCI attachments: consistent device paths, multipath for UHP (multipath -ll, the Block Volume Management
plugin of the Oracle Cloud Agent), and iSCSI node.session.queue_depth 128 for Higher Performance and UHP;
for multipath attachments a dm-multipath policy that spreads I/O over every path, applied and verified.

Facts from reference/cloud-volume-facts.md §1.7 (OCI-UHP, OCI-MP, OCI-HP): UHP needs a multipath-enabled
attachment; Higher Performance on iSCSI needs queue depth 32 → 128 for 50,000 IOPS. A multipath-enabled
attachment still carries I/O on one path unless the map groups all paths together (multipath-tools'
default grouping is failover: one path per group; issue 16): 11-oci-multipath.sh writes a conf.d drop-in
with path_grouping_policy multibus and path_selector "service-time 0" (multipath.conf(5)), reloads the
maps and checks that each shows one path group with every path active (dmsetup table/status).
"""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep

ISCSI_QUEUE_DEPTH = 128


def level_name(vpu: int) -> str:
    if vpu >= 30:
        return f"Ultra High Performance ({vpu} VPU/GB)"
    return {0: "Lower Cost", 10: "Balanced", 20: "Higher Performance"}.get(vpu, f"{vpu} VPU/GB")


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    vpu = ctx.layout.volume.vpu_per_gb if ctx.layout.volume.vpu_per_gb is not None else 10
    uhp = vpu >= 30
    step = BuildStep(order=10, name="oci-attachments", path="10-oci-attachments.sh", kind="attach",
                     touches_devices=False,
                     description=f"check OCI attachments for {level_name(vpu)}"
                                 + (": multipath" if uhp else "")
                                 + (f", iSCSI queue depth {ISCSI_QUEUE_DEPTH}" if vpu >= 20 else ""))
    text = render_script("oci_attach.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_ISCSID_CONF", "default /etc/iscsi/iscsid.conf"),
                                  ("BLOCKFIT_ISCSI_RELOGIN", "1: re-login now")],
                         devices=ctx.devices, vpu=vpu, level=level_name(vpu),
                         want_qd=ISCSI_QUEUE_DEPTH if vpu >= 20 else 0, need_mp=1 if uhp else 0)
    files = [GeneratedFile(step, text)]
    paths = wanted_paths(ctx)
    if uhp or paths > 1:
        files.append(multipath_policy(ctx, paths))
    return files


def wanted_paths(ctx: BuildContext) -> int:
    """The paths the plan says each volume's attachment carries I/O on (0: not stated; the script wants ≥ 2)."""
    return ctx.layout.paths or ctx.candidate.prediction.paths or 0


def multipath_policy(ctx: BuildContext, paths: int) -> GeneratedFile:
    step = BuildStep(order=11, name="oci-multipath", path="11-oci-multipath.sh", kind="attach", touches_devices=False,
                     description="spread I/O over every multipath path (multibus, service-time) and verify "
                                 + (f"{paths} active paths per volume" if paths else "all paths active"))
    text = render_script("oci_multipath.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_MULTIPATH_CONF_DIR", "default /etc/multipath/conf.d")],
                         devices=ctx.devices, want_paths=paths)
    return GeneratedFile(step, text)
