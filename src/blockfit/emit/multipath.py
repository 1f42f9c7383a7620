"""OCI attachments: what the plan assumed about each volume's attachment, set on the host and checked.

10-oci-attachments.sh checks each consistent device path (a dm-multipath map for an iSCSI UHP volume or for a
plan whose volumes carry I/O on several paths) and sets the iSCSI node.session.queue_depth the plan's prediction
ran at (the candidate's `session_queue_depth`): raised where it is lower, never lowered. 11-oci-multipath.sh
writes the dm-multipath policy the plan assumed (the candidate's `multipath`: path grouping and selector) for
these volumes only, one `multipaths` entry per WWID in a drop-in of its own, reloads the maps and checks that each
has one path group with every path active (multipath-tools' default grouping, failover, carries I/O on one path).

Sources: OCI Ultra High Performance ("the volume attachment needs to be enabled for multipath")
https://docs.oracle.com/en-us/iaas/Content/Block/Concepts/blockvolumeultrahighperformance.htm; OCI Higher
Performance (iSCSI queue depth 32 -> 128) https://docs.oracle.com/en-us/iaas/Content/Block/Concepts/
blockvolumehigherperformance.htm; multipath-enabled attachments (Block Volume Management plugin, consistent device
paths) https://docs.oracle.com/en-us/iaas/Content/Block/Tasks/configuringmultipathattachments.htm; multipath.conf(5)
https://man7.org/linux/man-pages/man5/multipath.conf.5.html.
"""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.safety import render_script
from blockfit.schema import BuildStep


def level_name(vpu: int) -> str:
    if vpu >= 30:
        return f"Ultra High Performance ({vpu} VPU/GB)"
    return {0: "Lower Cost", 10: "Balanced", 20: "Higher Performance"}.get(vpu, f"{vpu} VPU/GB")


def needs_multipath(ctx: BuildContext) -> bool:
    """The volumes must be dm-multipath maps: iSCSI UHP (OCI attaches it multipath-enabled) or several paths."""
    vpu = ctx.layout.volume.vpu_per_gb if ctx.layout.volume.vpu_per_gb is not None else 10
    return ctx.attachment == "iscsi" and (vpu >= 30 or ctx.multipath is not None)


def emit(ctx: BuildContext) -> list[GeneratedFile]:
    vpu = ctx.layout.volume.vpu_per_gb if ctx.layout.volume.vpu_per_gb is not None else 10
    depth = ctx.session_queue_depth if ctx.attachment == "iscsi" else None
    need_mp = needs_multipath(ctx)
    what = [f"check the {ctx.attachment or 'default'} attachments of {level_name(vpu)} volumes"]
    if need_mp:
        what.append("each a multipath map")
    if depth:
        what.append(f"iSCSI session queue depth at least {depth}")
    step = BuildStep(order=10, name="oci-attachments", path="10-oci-attachments.sh", kind="attach",
                     touches_devices=False, description=", ".join(what))
    text = render_script("oci_attach.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_ISCSID_CONF", "default /etc/iscsi/iscsid.conf"),
                                  ("BLOCKFIT_ISCSI_RELOGIN", "1: re-login now"),
                                  ("BLOCKFIT_SYSFS", "default /sys")],
                         devices=ctx.devices, vpu=vpu, level=level_name(vpu), attachment=ctx.attachment or "",
                         want_qd=depth or 0, need_mp=1 if need_mp else 0, want_paths=ctx.paths)
    if depth:
        ctx.checks.append(f"The iSCSI queue depth is only ever raised to the plan's {depth}, never lowered; "
                          "iscsid.conf keeps its comments and every other line.")
    files = [GeneratedFile(step, text)]
    if ctx.multipath is not None and ctx.attachment == "iscsi":
        files.append(multipath_policy(ctx))
    return files


def conf_name(ctx: BuildContext) -> str:
    """The drop-in's file name: one per build target, so two builds on one host never share (or clobber) a file."""
    target = {"lvm": ctx.vg, "mdadm": ctx.md_name, "asm": ctx.diskgroup.lower()}.get(ctx.manager, "single")
    return f"blockfit-{target}.conf"


def multipath_policy(ctx: BuildContext) -> GeneratedFile:
    policy = ctx.multipath
    assert policy is not None
    step = BuildStep(order=11, name="oci-multipath", path="11-oci-multipath.sh", kind="attach", touches_devices=False,
                     description=f"carry each volume's I/O on all {ctx.paths} paths (path grouping "
                                 f"{policy.path_grouping_policy}, path selector {policy.path_selector.split()[0]}) "
                                 "for these volumes only, and verify every path is active")
    ctx.checks.append("The multipath policy is written for these volumes only (one entry per WWID, in a file of its "
                      "own); other volumes, the defaults and the Oracle Cloud Agent's multipath.conf are not changed.")
    text = render_script("oci_multipath.sh.j2", step, ctx.source,
                         env_doc=[("BLOCKFIT_MULTIPATH_CONF_DIR", "default /etc/multipath/conf.d")],
                         devices=ctx.devices, want_paths=ctx.paths, conf_name=conf_name(ctx),
                         grouping=policy.path_grouping_policy, selector=policy.path_selector)
    return GeneratedFile(step, text)
