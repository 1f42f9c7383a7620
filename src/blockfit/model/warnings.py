"""What a prediction warns about: more volumes than the instance attaches, paths a volume lacks, a session depth
that binds, a stripe smaller than the I/Os. Plain sentences; predict adds them to the Prediction."""

from __future__ import annotations

from blockfit.catalog import Catalog
from blockfit.catalog.models import VolumeType
from blockfit.model.attachment import AttachmentPerf, paths_needed
from blockfit.model.host import BUILD_SESSION_DEPTH
from blockfit.model.instance import InstanceCaps
from blockfit.model.kinds import MemberPerf
from blockfit.model.limits import SESSION_DEPTH
from blockfit.schema import Instance, Layout


def prediction_warnings(cat: Catalog, layout: Layout, instance: Instance, caps: InstanceCaps, vt: VolumeType,
                        mp: MemberPerf, att: AttachmentPerf, iops_limited_by: str) -> list[str]:
    """Every warning of one prediction, in a stable order: the member's, the instance's, the attachment's, the
    layout's, the session depth's."""
    out = list(mp.warnings) + list(caps.warnings) + list(att.warnings)
    out += _layout_warnings(cat, layout, instance, caps, vt, mp, att)
    out += _session_warning(iops_limited_by, att, layout)
    return out


def _layout_warnings(cat: Catalog, layout: Layout, instance: Instance, caps: InstanceCaps, vt: VolumeType,
                     mp: MemberPerf, att: AttachmentPerf) -> list[str]:
    out = _path_warnings(layout, instance, mp, att)   # unattachable layouts are refused (instance.check_attachable)
    if vt.max_iops_cap is not None and (layout.volume.vpu_per_gb or 0) >= 30 and caps.gbps is not None \
            and instance.count is not None and instance.count < 8:
        out.append(f"OCI: a VM needs >= 8 OCPUs for a UHP boot volume's {vt.max_iops_cap:,.0f} IOPS.")
    if layout.stripe_size is not None and layout.members > 1 and layout.stripe_size < 64 * 1024:
        out.append(f"Stripe size {layout.stripe_size // 1024} KiB: I/Os larger than the stripe span several members; "
                   "the model assumes each small I/O lands on one member.")
    return out


# Several paths help only if dm-multipath puts them in one path group (multibus); OCI's multipath.conf default groups
# them for failover, one path carrying I/O (BV4DB sprints 22-23: all I/O on sde). Which multibus selector spreads
# the load matters little: on the same 5-path UHP setup (BV4DB, github.com/rstyczynski/oci_bv4db_arch, progress/
# sprint_20 and sprint_23, 2026-04) each path held 23.7 I/Os under queue-length and 23.4 under round-robin (fio
# disk_util in_queue / runtime); round-robin's 11 % fewer IOPS came from a slower per-I/O time that day (0.72 vs
# 0.65 ms), within the 0.61-0.76 ms six single-path runs of that setup spread over. The lab spreads round-robin too.
SPREAD_CAVEAT = ("Several paths: the model assumes dm-multipath spreads I/O over all of them in one path group "
                 "(path_grouping_policy multibus, as blockfit build configures); grouped for failover, one path "
                 "carries the I/O: model that with --paths 1.")


def _path_warnings(layout: Layout, instance: Instance, mp: MemberPerf, att: AttachmentPerf) -> list[str]:
    """Say when a volume needs more iSCSI paths than it has (UHP), and whether this instance can have them."""
    if not att.iscsi:
        return []
    spread = [SPREAD_CAVEAT] if att.paths > 1 else []
    need = paths_needed(mp.iops, mp.mbps, att.path_iops, att.path_mbps)
    if need <= att.paths:
        return spread
    one = f"one path: {att.path_iops:,.0f} IOPS / {att.path_mbps:,.0f} MB/s" if att.path_iops and att.path_mbps else ""
    if att.multipath_ok is False:
        return [f"Each volume needs {need} iSCSI paths to reach its {mp.iops:,.0f} IOPS / {mp.mbps:,.0f} MB/s ({one}); "
                f"{instance.spec} gets no multipath-enabled attachment (VMs need >= 16 OCPUs), so it is modelled "
                "with 1 path."]
    return [f"Each volume needs {need} iSCSI paths carrying I/O to reach its {mp.iops:,.0f} IOPS / {mp.mbps:,.0f} MB/s "
            f"({one}); modelled with {att.paths}. Attach multipath-enabled and spread I/O over {need} paths "
            f"(dm-multipath; blockfit build), then model with --paths {need}."] + spread


def _session_warning(iops_name: str, att: AttachmentPerf, layout: Layout) -> list[str]:
    """When the iSCSI session depth binds: say what it costs and the OCI-documented fix."""
    if iops_name != SESSION_DEPTH or att.session_depth is None:
        return []
    running = att.sessions(layout.members) * att.session_depth
    fix = (f"Set node.session.queue_depth = {BUILD_SESSION_DEPTH} (OCI-HP; blockfit build does) or carry I/O on more "
           f"paths (--queue-depth {BUILD_SESSION_DEPTH} / --paths N to model it)."
           if att.session_depth < BUILD_SESSION_DEPTH else "Carry I/O on more paths (--paths N to model it).")
    return [f"At most {running} I/Os run at once over iSCSI (node.session.queue_depth {att.session_depth} x "
            f"{att.sessions(layout.members)} session(s)); the rest wait in the host. " + fix]
