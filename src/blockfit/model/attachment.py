"""How each volume reaches the instance (OCI): the attachment type, the iSCSI paths that carry I/O, what one
path can move, how many I/Os one iSCSI session runs at once, and the unloaded time of one I/O.

OCI sells UHP rates per volume, but one iSCSI path (session) stops at the Higher Performance maxima and runs
at most node.session.queue_depth I/Os (32 by the kernel's default, BUILD_SESSION_DEPTH where blockfit built the host:
model/host.py); the rest wait in the host. Paths multiply both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from blockfit.catalog.models import Catalog, LatencyFigure, Shape, VolumeType
from blockfit.errors import ValueProblem
from blockfit.model.host import BUILD_SESSION_DEPTH
from blockfit.model.instance import InstanceCaps, find_shape
from blockfit.model.kinds import MemberPerf
from blockfit.schema import Citation, Instance, Layout


@dataclass
class AttachmentPerf:
    attachment: str | None
    paths: int                          # per volume, carrying I/O
    path_iops: float | None             # one iSCSI path's ceilings (None: not an iSCSI attachment / unknown)
    path_mbps: float | None
    session_depth: int | None           # I/Os one session runs at once (None: no iSCSI session)
    depth_from_host: bool               # session_depth came from the workload's --queue-depth (else: what build sets)
    base_latency_ms: float              # unloaded time of one I/O, without its transfer
    transfer_mbps: float | None         # one path's per-I/O transfer rate (None: no transfer term)
    host_ms: float                      # time in the host outside the device per I/O (hidden while I/Os queue)
    latency_rule: str
    latency_cite: Citation | None
    multipath_ok: bool | None = None
    pv_max_iops: float | None = None    # a paravirtualized attachment's IOPS cap per volume (OCI UHP: 150,000)
    host_cite: Citation | None = None
    warnings: list[str] = field(default_factory=list)
    kernel_depth: int | None = None     # the session depth of a host nobody tuned (the catalog's, open-iscsi's 32)
    growth: tuple[tuple[float, float], ...] = ()   # the volume's own latency curve (depth, factor); () = flat

    @property
    def iscsi(self) -> bool:
        return self.attachment == "iscsi"

    def io_time_s(self, io_bytes: int) -> float:
        """Unloaded time of one I/O of io_bytes: the base plus moving its bytes over one path."""
        transfer = io_bytes / (self.transfer_mbps * 1e6) if self.transfer_mbps else 0.0
        return self.base_latency_ms / 1000 + transfer

    @property
    def host_s(self) -> float:
        return self.host_ms / 1000

    def sessions(self, members: int) -> int:
        return members * self.paths


def attachment_perf(cat: Catalog, vt: VolumeType, layout: Layout, instance: Instance, caps: InstanceCaps,
                    host_queue_depth: int | None = None, member: MemberPerf | None = None,
                    read_share: float = 1.0) -> AttachmentPerf:
    """The attachment the layout asks for (or the type's default) with its paths (`default_paths` when the layout
    names none; `member` is the volume's caps they must reach), ceilings and latency (of READ_SHARE reads)."""
    for check in attachment_checks(cat, vt, layout.attachment, layout.paths).values():
        check()
    att = layout.attachment or vt.default_attachment
    shape = find_shape(cat, instance.shape)
    lat = _unloaded_latency(cat, vt, shape, att, read_share)
    if att is None:
        return AttachmentPerf(None, 1, None, None, None, False, lat.base_ms, lat.transfer_mbps, lat.host_ms, lat.rule,
                              lat.cite, host_cite=lat.host_cite, growth=lat.growth)
    warnings: list[str] = []
    paths = _usable_paths(layout.paths or default_paths(vt, att, caps, member), caps, shape, instance, warnings)
    iscsi = att == "iscsi"
    # what build sets unless the workload names a depth; the kernel's default only where the type has sessions
    depth = host_queue_depth or (BUILD_SESSION_DEPTH if vt.iscsi_session_depth else None)
    return AttachmentPerf(
        attachment=att, paths=paths, path_iops=vt.path_max_iops if iscsi else None,
        path_mbps=vt.path_max_mbps if iscsi else None, session_depth=depth if iscsi else None,
        depth_from_host=bool(host_queue_depth), base_latency_ms=lat.base_ms, transfer_mbps=lat.transfer_mbps,
        host_ms=lat.host_ms, latency_rule=lat.rule, latency_cite=lat.cite, multipath_ok=caps.uhp_ok,
        pv_max_iops=vt.pv_max_iops if att == "paravirtualized" else None, host_cite=lat.host_cite,
        warnings=warnings, kernel_depth=vt.iscsi_session_depth if iscsi else None, growth=lat.growth)


class _Latency(NamedTuple):
    """The unloaded time of one I/O and where it comes from, as AttachmentPerf carries it."""

    base_ms: float
    transfer_mbps: float | None
    host_ms: float
    rule: str
    cite: Citation | None
    host_cite: Citation | None
    growth: tuple[tuple[float, float], ...]


def _unloaded_latency(cat: Catalog, vt: VolumeType, shape: Shape, att: str | None, read_share: float) -> _Latency:
    """The type's base latency, else its per-direction figures for the read share (and their growth with depth);
    a figure for this shape family and attachment, where the catalog has one, sets the base, transfer and host
    time (the growth stays the type's)."""
    fig = _latency_figure(vt, shape, att)
    base, rule, cite = vt.base_latency_ms, f"{vt.name} base latency", cat.cite(vt, "base_latency_ms")
    transfer, host, host_cite = None, 0.0, None
    growth: tuple[tuple[float, float], ...] = ()
    if vt.latency is not None:
        base, rule, cite = vt.latency.mix_ms(read_share), latency_words(vt, read_share), cat.cite(vt.latency, "read_ms")
        growth = vt.latency.growth()
    if fig is not None:
        base, transfer, host = fig.base_ms, fig.path_mbps, fig.host_ms
        host_cite = cat.cite(fig, "host_ms") if host else None
        fams = "/".join(f for f in fig.families if f != "*") or "any"
        rule = f"{att or 'any'} attachment on {shape.family or 'this'} shapes ({fams} figure)"
        cite = cat.cite(fig, "base_ms")
    return _Latency(base, transfer, host, rule, cite, host_cite, growth)


def _usable_paths(paths: int, caps: InstanceCaps, shape: Shape, instance: Instance, warnings: list[str]) -> int:
    """Several paths need a multipath-enabled attachment: where the instance does not get one, the volume is
    modelled with one path and a warning says why."""
    if paths > 1 and caps.uhp_ok is False:
        which = (f"VMs from {shape.uhp_min_ocpus:g} OCPUs" if shape.uhp_min_ocpus is not None
                 else "the catalog lists no OCPU count that gets them")
        warnings.append(f"{paths} paths need a multipath-enabled attachment, which {instance.spec} does not get "
                        f"({which}); modelled with 1 path.")
        return 1
    return paths


def latency_words(vt: VolumeType, read_share: float) -> str:
    """How a type's per-direction figures make the mix's time per I/O, and how it grows with depth."""
    lat = vt.latency
    assert lat is not None
    words = f"{vt.name}: reads {lat.read_ms:g} ms, writes {lat.write_ms:g} ms at queue depth 1"
    if 0 < read_share < 1 and lat.read_ms != lat.write_ms:
        words += f", {100 * read_share:g} % reads"
    if lat.loaded:
        words += ", x " + ", x ".join(f"{p.factor:g} at {p.depth} per volume" for p in lat.loaded)
    return words


def attachment_checks(cat: Catalog, vt: VolumeType, attachment: str | None,
                      paths: int | None) -> dict[str, Callable[[], None]]:
    """Each check of the attachment and paths a user names for volumes of VT, by the field it is about
    ('attachment,paths': either, on a type without attachments); the command line names the option."""
    att = attachment or vt.default_attachment
    return {"attachment,paths": lambda: _check_attachable(cat, vt, attachment, paths),
            "attachment": lambda: _check_attachment(vt, att),
            "paths": lambda: None if paths is None or att is None else check_paths(vt, att, paths)}


def _check_attachable(cat: Catalog, vt: VolumeType, attachment: str | None, paths: int | None) -> None:
    if vt.default_attachment is None and (attachment or paths):
        given = " with ".join(x for x in (attachment, f"{paths} paths" if paths else None) if x)
        raise ValueProblem(f"{given}: {vt.name} has no attachment types in the {cat.cloud} catalog (expected "
                           "them only for OCI volumes)")


def _check_attachment(vt: VolumeType, att: str | None) -> None:
    if att is not None and vt.attachments and att not in vt.attachments:
        raise ValueProblem(f"{att}: {vt.name} attaches as {' or '.join(vt.attachments)}")


def default_paths(vt: VolumeType, attachment: str, caps: InstanceCaps, member: MemberPerf | None) -> int:
    """The one rule for how many paths carry a volume's I/O when the user names none (model, plan, lab and build
    all use it): an iSCSI attachment OCI makes multipath-enabled (a block volume on a shape that gets
    multipath-enabled attachments, attached by the agent, as the UHP seed did: "Multipath: Yes") carries I/O on as
    many paths as the volume's caps need (one path stops at the Higher Performance maxima); otherwise the type's
    default (one). `--paths 1` models a one-path setup."""
    fallback = vt.default_paths.get(attachment, 1)
    if attachment != "iscsi" or member is None or vt.max_paths is not None or caps.uhp_ok is False:
        return fallback
    return max(fallback, paths_needed(member.iops, member.mbps, vt.path_max_iops, vt.path_max_mbps))


def check_paths(vt: VolumeType, attachment: str, paths: int) -> None:
    """Paths the user names must be paths there can be: iSCSI only, and no more than the type's fastest level
    needs (a path beyond that carries nothing; '--paths 64' is a typo, not a setup)."""
    if vt.max_paths is not None and paths > vt.max_paths:
        raise ValueProblem(f"{paths}: {vt.name} attachments use at most {vt.max_paths} path (no multipath)")
    if paths > 1 and attachment != "iscsi":
        raise ValueProblem(f"{paths}: a {attachment} attachment has one path; several go with --attachment iscsi")
    levels = [lv for lv in vt.levels if lv.vpu >= vt.min_vpu]
    if vt.max_paths is not None or not levels or not (vt.path_max_iops or vt.path_max_mbps):
        return
    fastest = max(levels, key=lambda lv: (lv.max_iops, lv.max_mbps))
    most = paths_needed(fastest.max_iops, fastest.max_mbps, vt.path_max_iops, vt.path_max_mbps)
    if paths > most:
        raise ValueProblem(f"{paths}: expected at most {most} for {vt.name}: {most} paths carry its fastest level "
                           f"({fastest.max_iops:,.0f} IOPS, {fastest.max_mbps:,.0f} MB/s), more carry nothing")


def _latency_figure(vt: VolumeType, shape: Shape, att: str | None) -> LatencyFigure | None:
    """The catalog figure for this shape's family and attachment: an exact family first, then '*'."""
    fits = [f for f in vt.latencies if f.attachment in (None, att)]
    exact = [f for f in fits if shape.family is not None and shape.family in f.families]
    wild = [f for f in fits if "*" in f.families]
    found = exact or wild
    return found[0] if found else None


def paths_needed(member_iops: float, member_mbps: float, path_iops: float | None, path_mbps: float | None) -> int:
    """The fewest paths whose ceilings together reach one member's IOPS and MB/s caps."""
    need = 1
    if path_iops:
        need = max(need, -int(-member_iops // path_iops))
    if path_mbps:
        need = max(need, -int(-member_mbps // path_mbps))
    return need
