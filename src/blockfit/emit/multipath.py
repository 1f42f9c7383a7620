"""OCI attachments: consistent device paths, multipath for UHP (multipath -ll, the Block Volume Management
plugin of the Oracle Cloud Agent), and iSCSI node.session.queue_depth 128 for Higher Performance and UHP.

Facts from reference/cloud-volume-facts.md §1.7 (OCI-UHP, OCI-MP, OCI-HP): UHP needs a multipath-enabled
attachment; Higher Performance on iSCSI needs queue depth 32 → 128 for 50,000 IOPS."""

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
    return [GeneratedFile(step, text)]
