"""Fast feasibility and cost of one point of the search space, shared by the search and brute force.

Uses the model's own arithmetic (kinds for member caps and cost, `ceilings` for the min over limits,
MVA for the latency bound), cached per (option, size) and per OCPU count.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from blockfit.catalog import Catalog
from blockfit.errors import InputError
from blockfit.model import queueing
from blockfit.model.attachment import AttachmentPerf, attachment_perf, paths_needed
from blockfit.model.instance import InstanceCaps, instance_caps
from blockfit.model.kinds import KINDS, MemberPerf
from blockfit.model.predict import MAX_CURVE_OUTSTANDING, attachment_limits, ceilings, instance_limits, member_perf
from blockfit.plan.space import LevelOption, SearchSpace
from blockfit.schema import Instance, Layout, Requirements

# The iSCSI queue depth plan's layouts assume per session (OCI-HP: raise node.session.queue_depth 32 -> 128).
PLAN_SESSION_DEPTH = 128


@dataclass(frozen=True)
class Member:
    perf: MemberPerf
    cost: float | None


@dataclass(frozen=True)
class Point:
    option: LevelOption
    members: int
    size_gb: int
    ocpus: float | None
    cost: float
    iops: float
    mbps: float


class Evaluator:
    def __init__(self, cat: Catalog, req: Requirements, space: SearchSpace) -> None:
        self.cat, self.req, self.space = cat, req, space
        self._members: dict[tuple[LevelOption, int, int], Member | None] = {}
        self._caps: dict[tuple[float | None, str], InstanceCaps] = {}
        self._atts: dict[tuple[LevelOption, float, float, float | None], AttachmentPerf] = {}

    def member(self, option: LevelOption, size_gb: int, members: int = 1) -> Member | None:
        """One member's caps and price; the member count matters only to kinds that share a per-instance
        allowance among members (perf_in_layout), so the cache ignores it for the others."""
        vt = self.cat.volume_types[option.type]
        key = (option, size_gb, members if hasattr(KINDS[vt.kind], "perf_in_layout") else 0)
        if key not in self._members:
            self._members[key] = self._member(option, size_gb, members)
        return self._members[key]

    def _member(self, option: LevelOption, size_gb: int, members: int) -> Member | None:
        vt = self.cat.volume_types[option.type]
        kind = KINDS[vt.kind]
        try:
            vol = kind.normalize(self.cat, vt, option.volume(self.cat.cloud, size_gb))
        except InputError:
            return None
        items = kind.cost(self.cat, vt, vol)
        cost = None if any(i.monthly is None for i in items) else sum(i.monthly or 0.0 for i in items)
        return Member(member_perf(self.cat, vt, vol, members), cost)

    def caps(self, ocpus: float | None, vtype: str) -> InstanceCaps:
        key = (ocpus, vtype)
        if key not in self._caps:
            self._caps[key] = instance_caps(self.cat, Instance(cloud=self.cat.cloud, shape=self.space.shape,
                                                               ocpus=ocpus), vtype)
        return self._caps[key]

    def cost(self, option: LevelOption, members: int, size_gb: int) -> float | None:
        m = self.member(option, size_gb)
        return None if m is None or m.cost is None else m.cost * members

    def evaluate(self, option: LevelOption, members: int, size_gb: int, ocpus: float | None) -> Point | None:
        """The point with its ceilings if it meets every requirement, else None."""
        req = self.req
        if members * size_gb < req.needed_gb - 1e-9:
            return None
        m = self.member(option, size_gb, members)
        if m is None or m.cost is None:
            return None
        try:
            caps = self.caps(ocpus, option.type)
        except InputError:   # no instance size with this vCPU count
            return None
        if caps.attach_max is not None and members > caps.attach_max:
            return None
        att = self.attachment(option, m.perf, ocpus, caps)
        iops, mbps = ceilings(m.perf, members, caps, req.small_io, req.large_io, att, req.read_fraction)
        if req.target_iops is not None and iops < req.target_iops:
            return None
        if req.target_mbps is not None and mbps < req.target_mbps:
            return None
        if req.max_latency_ms is not None and not self._meets_latency(option, m, members, caps, att):
            return None
        return Point(option, members, size_gb, ocpus, m.cost * members, iops, mbps)

    def attachment(self, option: LevelOption, perf: MemberPerf, ocpus: float | None,
                   caps: InstanceCaps) -> AttachmentPerf:
        """The attachment plan gives each member: the requested type, and the requested paths or (UHP) as many as
        the member needs when the instance gets multipath-enabled attachments, else one."""
        key = (option, perf.iops, perf.mbps, ocpus)
        if key not in self._atts:
            self._atts[key] = self._attachment(option, perf, ocpus, caps)
        return self._atts[key]

    def _attachment(self, option: LevelOption, perf: MemberPerf, ocpus: float | None,
                    caps: InstanceCaps) -> AttachmentPerf:
        req = self.req
        vt = self.cat.volume_types[option.type]
        paths = req.paths
        if paths is None and (req.attachment or vt.default_attachment) == "iscsi":
            need = paths_needed(perf.iops, perf.mbps, vt.path_max_iops, vt.path_max_mbps)
            paths = need if caps.uhp_ok is not False and vt.max_paths is None else 1
        layout = Layout(members=1, volume=option.volume(self.cat.cloud, 50), attachment=req.attachment, paths=paths)
        inst = Instance(cloud=self.cat.cloud, shape=self.space.shape, ocpus=ocpus)
        return attachment_perf(self.cat, vt, layout, inst, caps, PLAN_SESSION_DEPTH)

    def _meets_latency(self, option: LevelOption, m: Member, members: int, caps: InstanceCaps,
                       att: AttachmentPerf) -> bool:
        """Is there a load (N <= MAX_CURVE_OUTSTANDING) whose mean latency is within the bound and whose
        throughput reaches the IOPS target? Both grow with N, so walk N up until one of them decides."""
        req = self.req
        assert req.max_latency_ms is not None
        base_s = att.io_time_s(req.small_io)
        bound_s = req.max_latency_ms / 1000
        if base_s > bound_s:
            return False
        if not req.target_iops:
            return True
        member_rate, _ = ceilings(m.perf, 1, _NO_CAPS, req.small_io, req.large_io)
        member_rate = min([member_rate] + [lim.iops_at(req.small_io) for lim in attachment_limits(att, 1, None, None)])
        link = [lim.iops_at(req.small_io) for lim in instance_limits(caps, req.read_fraction)]
        net = queueing.network_for(base_s, member_rate, members, min(link) if link else None)
        for point in itertools.islice(queueing.mva_iter(net), MAX_CURVE_OUTSTANDING):
            if point.latency_s > bound_s:
                return False
            if point.throughput >= req.target_iops:
                return True
        return False


_NO_CAPS = InstanceCaps(iops=None, iops_rule="", mbps=None, mbps_rule="")
