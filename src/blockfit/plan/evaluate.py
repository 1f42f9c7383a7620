"""Fast feasibility and cost of one point of the search space, shared by the search and brute force.

Uses the model's own arithmetic (kinds for member caps and cost, `ceilings` for the min over limits,
MVA for the latency bound), cached per (option, size) and per OCPU count.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from blockfit.catalog import Catalog
from blockfit.catalog.models import VolumeType
from blockfit.errors import InputError
from blockfit.model import queueing
from blockfit.model import redundancy as mirroring
from blockfit.model.attachment import AttachmentPerf, attachment_perf
from blockfit.model.burst import instance_lifts, lifted_caps, lifted_member, volume_lifts
from blockfit.model.compute import compute_cost
from blockfit.model.host import BUILD_SESSION_DEPTH
from blockfit.model.instance import InstanceCaps, instance_caps
from blockfit.model.kinds import KINDS, MemberPerf
from blockfit.model.limits import ceilings, instance_caps_list, member_perf
from blockfit.model.predict import MAX_CURVE_OUTSTANDING
from blockfit.plan.space import LevelOption, SearchSpace, instance_for
from blockfit.schema import Layout, Requirements
from blockfit.schema.cost import COPIES

# The iSCSI queue depth plan's layouts assume per session: what build sets, the model's default (model/host.py).
PLAN_SESSION_DEPTH = BUILD_SESSION_DEPTH


# A type without a price (space.unknown_price) costs nothing known: its points rank by the known compute, then the
# fewest volumes, then this stand-in for how much is bought (GB + provisioned IOPS / 1,000 + MB/s / 10, all members),
# so the smallest size and provisioning that meet the targets win (search.rank_key). It is never added to a cost.
def provision_units(size_gb: int, iops: float | None, tput: float | None) -> float:
    return size_gb + (iops or 0) / 1000 + (tput or 0) / 10


@dataclass(frozen=True)
class Member:
    perf: MemberPerf
    cost: float | None     # known monthly price; 0.0 for a type planned without a price (priced False)
    priced: bool = True
    units: float = 0.0     # provision_units of a member of a type without a price


@dataclass(frozen=True)
class Point:
    option: LevelOption
    members: int
    size_gb: int
    ocpus: float | None
    cost: float            # the known monthly dollars plan ranks by: storage + compute (an unknown part counts 0)
    iops: float
    mbps: float
    storage: float | None = 0.0   # None: the type has no price (ranked by `units`, see search.rank_key)
    compute: float | None = None
    units: float = 0.0            # provision_units of all members, for a type without a price


MemberCache = dict[tuple[LevelOption, int, int], "Member | None"]
MEMBER_CACHE_MAX = 50_000   # about 90 MB of members kept with a catalog; beyond, the cache starts again


class Evaluator:
    def __init__(self, cat: Catalog, req: Requirements, space: SearchSpace,
                 members: MemberCache | None = None, burst: bool = False) -> None:
        """`members`: a cache of member caps and prices; by default the one kept with the catalog, shared by every
        evaluator of it (they depend on the catalog and the volume option, size and count only, not on the shape or
        the targets: plan searches many shapes, Pareto points and alternatives over the same members). `burst`:
        bound with the burst figures (model/burst.py), for a plan from history whose candidates the replay judges."""
        self.cat, self.req, self.space, self.burst = cat, req, space, burst
        self._members: MemberCache = members if members is not None else cat.derived(
            ("plan-members", frozenset(space.unknown_price), burst), dict)
        if len(self._members) > MEMBER_CACHE_MAX:   # a long-lived process (a test session) plans many targets
            self._members.clear()
        self._caps: dict[tuple[float | None, str], InstanceCaps] = {}
        self._instance_ceilings: dict[tuple[float | None, str], tuple[float, float]] = {}
        self._atts: dict[tuple[LevelOption, float, float, float | None], AttachmentPerf] = {}
        self._compute: dict[float | None, float | None] = {}
        self._floor: dict[str, int | None] = {}
        self.amp = mirroring.amplification(req.redundancy, req.read_share)

    def compute(self, ocpus: float | None) -> float | None:
        """Monthly compute price at this OCPU count (None = unknown); never decreases with the count."""
        if ocpus not in self._compute:
            try:
                self._compute[ocpus] = compute_cost(self.cat, self.space.shape, ocpus, self.req.memory_gb).monthly
            except InputError:   # --memory beyond what this count sells: a count too small, not a bad input
                self._compute[ocpus] = math.inf
        return self._compute[ocpus]

    def compute_or_zero(self, ocpus: float | None) -> float:
        value = self.compute(ocpus)
        return 0.0 if value is None else value

    def instance_ceilings(self, ocpus: float | None, vtype: str) -> tuple[float, float]:
        """(IOPS, MB/s) the instance alone allows (volumes and paths unlimited); 0 where the count does not exist.
        Kept per count and type: every point evaluate checks on them takes its min with these."""
        key = (ocpus, vtype)
        if key not in self._instance_ceilings:
            try:
                caps = self.caps(ocpus, vtype)
            except InputError:
                self._instance_ceilings[key] = (0.0, 0.0)
            else:
                self._instance_ceilings[key] = ceilings(_UNLIMITED, 1, caps, self.req.small_io, self.req.large_io,
                                                        None, self.req.read_share, self.req.redundancy)
        return self._instance_ceilings[key]

    def instance_floor(self, option: LevelOption) -> int | None:
        """Index of the fewest OCPUs whose instance caps alone could meet the targets (volumes unlimited): no
        point below it is feasible (a necessary condition of evaluate), so it bounds the search and the compute."""
        if option.type not in self._floor:
            def ok(j: int) -> bool:   # the memory asked for must fit too (it does from some count on)
                if self.compute(self.space.ocpus[j]) == math.inf:
                    return False
                iops, mbps = self.instance_ceilings(self.space.ocpus[j], option.type)
                return (self.req.target_iops is None or iops >= self.req.target_iops) and (
                    self.req.target_mbps is None or mbps >= self.req.target_mbps)
            lo, hi = 0, len(self.space.ocpus) - 1
            if not ok(hi):
                self._floor[option.type] = None
            else:
                while lo < hi:
                    mid = (lo + hi) // 2
                    lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
                self._floor[option.type] = lo
        return self._floor[option.type]

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
        perf = member_perf(self.cat, vt, vol, members)
        if self.burst:
            perf = lifted_member(perf, volume_lifts(vt, size_gb, perf))
        if cost is None and option.type in self.space.unknown_price:
            units = provision_units(size_gb, vol.provisioned_iops, vol.provisioned_throughput)
            return Member(perf, 0.0, priced=False, units=units)
        return Member(perf, cost)

    def caps(self, ocpus: float | None, vtype: str) -> InstanceCaps:
        key = (ocpus, vtype)
        if key not in self._caps:
            caps = instance_caps(self.cat, instance_for(self.cat, self.req, self.space.shape, ocpus), vtype)
            self._caps[key] = lifted_caps(caps, instance_lifts(self.cat, caps)) if self.burst else caps
        return self._caps[key]

    def cost(self, option: LevelOption, members: int, size_gb: int) -> float | None:
        """The members' known monthly storage price (0 for a type without a price); None: not valid at this size."""
        m = self.member(option, size_gb)
        return None if m is None or m.cost is None else m.cost * members

    def evaluate(self, option: LevelOption, members: int, size_gb: int, ocpus: float | None) -> Point | None:
        """The point with its ceilings if it meets every requirement, else None."""
        req = self.req
        if not self._worth_evaluating(option, members, size_gb, ocpus):
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
        # ceilings is the min over every cap: the instance's part (the same for every point on this count and type)
        # comes from instance_ceilings, the rest (volumes, attachment) from this point's own caps
        iops, mbps = ceilings(m.perf, members, _NO_CAPS, req.small_io, req.large_io, att, req.read_share,
                              req.redundancy)
        inst_iops, inst_mbps = self.instance_ceilings(ocpus, option.type)
        iops, mbps = min(iops, inst_iops), min(mbps, inst_mbps)
        if self._misses_targets(iops, mbps):
            return None
        if req.max_latency_ms is not None and not self._meets_latency(option, m, members, caps, att):
            return None
        if req.outstanding is not None:
            iops = min(iops, self._at_outstanding(m, members, caps, att))
            if self._misses_targets(iops, mbps):
                return None
        storage = m.cost * members
        return Point(option, members, size_gb, ocpus, storage + self.compute_or_zero(ocpus), iops, mbps,
                     storage=storage if m.priced else None, compute=self.compute(ocpus), units=m.units * members)

    def _worth_evaluating(self, option: LevelOption, members: int, size_gb: int, ocpus: float | None) -> bool:
        """The cheap refusals evaluate makes before any caps: too little capacity, a stripe plan would propose as
        one disk, or an OCPU count the memory asked for does not fit."""
        if members * size_gb < self.req.needed_gb - 1e-9:
            return False
        if members > 1 and self._one_disk_does(option, members, size_gb):
            return False
        return self.compute(ocpus) != math.inf   # math.inf: the memory asked for does not fit this OCPU count

    def _misses_targets(self, iops: float, mbps: float) -> bool:
        """Whether these ceilings fall short of the IOPS or MB/s target the requirements set (an unset one never
        is)."""
        req = self.req
        return ((req.target_iops is not None and iops < req.target_iops)
                or (req.target_mbps is not None and mbps < req.target_mbps))

    def _one_disk_does(self, option: LevelOption, members: int, size_gb: int) -> bool:
        """GCP Persistent Disk performs per VM over the total GiB of the type (kinds.gcp.GcpPd): a stripe of n disks
        is one disk of n x size at the same performance and price, so plan proposes the one disk where it fits."""
        vt = self.cat.volume_types[option.type]
        return vt.kind == "gcp_pd" and members * size_gb <= vt.max_gb

    def attachment(self, option: LevelOption, perf: MemberPerf, ocpus: float | None,
                   caps: InstanceCaps) -> AttachmentPerf:
        """The attachment plan gives each member: the requested type, and the requested paths or (UHP) as many as
        the member needs when the instance gets multipath-enabled attachments, else one."""
        key = (option, perf.iops, perf.mbps, ocpus) if self._paths_follow_member(option) else (option, 0, 0, ocpus)
        if key not in self._atts:
            self._atts[key] = self._attachment(option, perf, ocpus, caps)
        return self._atts[key]

    def _paths_follow_member(self, option: LevelOption) -> bool:
        """Whether the attachment depends on the member's caps: only an iSCSI attachment whose paths the user did
        not name, of a type with no fixed path count, gets as many paths as the member needs
        (attachment.default_paths); every other attachment is one per option and count. Keyed by the member's
        caps, GCP's and AWS's (caps per GB) made a new attachment for nearly every size the search tried."""
        vt = self.cat.volume_types[option.type]
        return ((self.req.attachment or vt.default_attachment) == "iscsi" and self.req.paths is None
                and vt.max_paths is None)

    def _attachment(self, option: LevelOption, perf: MemberPerf, ocpus: float | None,
                    caps: InstanceCaps) -> AttachmentPerf:
        """The requested attachment and paths, or the model's own default (attachment.default_paths), at the
        requested session depth or the model's default (model/host.py: what build sets)."""
        req = self.req
        vt = self.cat.volume_types[option.type]
        layout = Layout(members=1, volume=option.volume(self.cat.cloud, 50), attachment=req.attachment,
                        paths=req.paths)
        inst = instance_for(self.cat, req, self.space.shape, ocpus)
        return attachment_perf(self.cat, vt, layout, inst, caps, req.queue_depth, perf, req.read_share)

    def _meets_latency(self, option: LevelOption, m: Member, members: int, caps: InstanceCaps,
                       att: AttachmentPerf) -> bool:
        """Is there a load (N <= MAX_CURVE_OUTSTANDING) whose mean latency is within the bound and whose
        throughput reaches the IOPS target? Both grow with N, so walk N up until one of them decides."""
        req = self.req
        assert req.max_latency_ms is not None
        base_s = att.io_time_s(req.small_io) + att.host_s   # what the database waits: the host's time too
        bound_s = req.max_latency_ms / 1000
        if base_s > bound_s:
            return False
        if not req.target_iops:
            return True
        member_rate, _ = ceilings(m.perf, 1, _NO_CAPS, req.small_io, req.large_io, att, req.read_share,
                                  req.redundancy, stations_only=True)
        link = [lim.iops_at(req.small_io) for lim in mirroring.logical_limits(
            instance_caps_list(caps, req.read_share, COPIES[req.redundancy]), req.redundancy, req.read_share)]
        net = queueing.network_for(base_s, member_rate, members, min(link) if link else None, att.growth)
        for point in itertools.islice(queueing.mva_iter(net), MAX_CURVE_OUTSTANDING):
            if point.latency_s > bound_s:
                return False
            if point.throughput >= req.target_iops:
                return True
        return False


    def _at_outstanding(self, m: Member, members: int, caps: InstanceCaps, att: AttachmentPerf) -> float:
        """The IOPS the workload's outstanding I/Os reach at the small I/O size: the model's in-flight row
        (predict.in_flight_row), the same MVA over the same caps."""
        req = self.req
        assert req.outstanding is not None
        member_rate, _ = ceilings(m.perf, 1, _NO_CAPS, req.small_io, req.large_io, att, req.read_share,
                                  req.redundancy, stations_only=True)
        link = [lim.iops_at(req.small_io) for lim in mirroring.logical_limits(
            instance_caps_list(caps, req.read_share, COPIES[req.redundancy]), req.redundancy, req.read_share)]
        net = queueing.network_for(att.io_time_s(req.small_io), member_rate, members, min(link) if link else None,
                                   att.growth)
        running = att.sessions(members) * att.session_depth if att.session_depth else None
        host = att.host_s if running is None or req.outstanding <= running else 0.0
        return queueing.throughput(net, req.outstanding, running, host)


def concurrency_ceiling(cat: Catalog, req: Requirements) -> float:
    """The most IOPS the workload's outstanding I/Os could give on any type of the catalog (Little's law over the
    fastest I/O it lists, no wait at any cap), math.inf without an outstanding count: a bound, never a prediction."""
    if req.outstanding is None:
        return math.inf
    fastest = min(_fastest_ms(vt, req.read_share) for vt in cat.volume_types.values())
    return req.outstanding / (fastest / 1000) if fastest > 0 else math.inf


def _fastest_ms(vt: VolumeType, read_share: float) -> float:
    figures = [vt.base_latency_ms, *(f.base_ms for f in vt.latencies)]
    if vt.latency is not None:
        figures.append(vt.latency.mix_ms(read_share))
    return min(figures)


_NO_CAPS = InstanceCaps(iops=None, iops_rule="", mbps=None, mbps_rule="")
_UNLIMITED = MemberPerf(iops=math.inf, mbps=math.inf, iops_name="", iops_rule="", mbps_name="", mbps_rule="",
                        iops_field="", mbps_field="")
