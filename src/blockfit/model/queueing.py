"""Latency versus load: exact mean value analysis (MVA) of a closed queueing network.

The host keeps N I/Os outstanding. Each I/O spends a fixed time in a delay station (its unloaded time:
network round trip, target, media, plus moving its bytes over one path, so it grows with the I/O size)
and queues at two rate-capped stations: the
instance link (every I/O) and the member volume it lands on (1/n of I/Os each, by symmetry of the
stripe). Throughput X(N) = N / (Z + Σ R_k(N)) obeys Little's law by construction: with N pinned at
a host queue depth (iSCSI node.session.queue_depth 32) X stays near N / Z, far below the caps.
Caps are modelled as exponential servers, which is conservative near saturation: a token bucket
queues less than M/M/1. Over iSCSI at most (sessions x session queue depth) I/Os run at once; more
outstanding I/Os wait in the host (mva_host_queued): throughput stays, latency grows by Little's law.
Each I/O also spends a little time in the host itself (submission and completion, ~0.05 ms on E5: fio's
latency less the paths' device time), which counts only while no I/O waits for a session slot.

Where a volume type's time per I/O grows with the I/Os outstanding on one volume (catalog VolumeLatency.loaded:
Hyperdisk Balanced 0.5 ms at depth 1, 1.3 ms at 32), the delay station's time follows that curve at each N. The
I/Os outstanding on a volume come from how N I/Os land on a stripe of n members: placed at random, each on
`touched` members (1 for an I/O within one stripe unit), they keep busy(N) = n (1 - (1 - touched/n)^N) members
busy on average (the expected number of distinct members hit), so a busy member holds N x touched / busy(N):
4 I/Os on a 4-way stripe keep 2.7 members busy at 1.5 each, not 4 at 1.

A member cap slower than one I/O (its spacing 1 / rate above the I/O's own time) paces I/Os like a token bucket
rather than serving them: X(N) = min(N / time per I/O, members x rate) (`Network.paced`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, replace

Growth = tuple[tuple[float, float], ...]
"""A volume's latency curve: (I/Os outstanding on one volume, factor on its depth-1 time), from (1, 1)."""


@dataclass(frozen=True)
class Network:
    delay_s: float          # Z: unloaded latency outside the capped stations
    member_rate: float      # I/Os per second one member serves
    members: int
    link_rate: float | None  # I/Os per second the instance link serves (None: uncapped)
    growth: Growth = ()     # how the volume's own time grows with its depth (empty: flat)
    unloaded_s: float = 0.0  # the depth-1 time the growth multiplies
    touched: int = 1        # members one I/O lands on (an I/O larger than the stripe unit spans several)
    paced: bool = False     # the members' caps space I/Os further apart than one I/O takes (see network_for)

    def delay_at(self, n: int) -> float:
        """Z at N outstanding: the unloaded delay plus the volume's own growth at the depth a busy member holds."""
        if not self.growth:
            return self.delay_s
        return self.delay_s + self.unloaded_s * (growth_factor(self.growth, depth_per_member(n, self)) - 1)

    def flat_from(self) -> float:
        """The N beyond which Z no longer changes (the curve's last depth reached on every busy member)."""
        return self.growth[-1][0] * self.members / self.touched if self.growth else 0.0


def busy_members(n: int, members: int, touched: int = 1) -> float:
    """Expected distinct members hit by N I/Os placed at random on a stripe, each on `touched` of them."""
    if members <= 1:
        return 1.0
    share = min(touched, members) / members
    return members * (1 - (1 - share) ** n)


def depth_per_member(n: int, net: Network) -> float:
    """I/Os a busy member holds when N are outstanding (see busy_members)."""
    touched = min(net.touched, net.members)
    return n * touched / busy_members(n, net.members, touched)


def growth_factor(growth: Growth, depth: float) -> float:
    """The curve's factor at DEPTH: linear between its points, flat beyond the last."""
    if depth <= growth[0][0]:
        return growth[0][1]
    for (d0, f0), (d1, f1) in zip(growth, growth[1:], strict=False):
        if depth <= d1:
            return f0 + (f1 - f0) * (depth - d0) / (d1 - d0)
    return growth[-1][1]


CONVERGED = 1e-12  # relative step of X(N) below which the MVA has reached its asymptote


@dataclass(slots=True)
class Point:
    outstanding: int
    throughput: float       # I/Os per second
    latency_s: float        # mean response time


def network_for(base_latency_s: float, member_rate: float, members: int, link_rate: float | None,
                growth: Growth = (), touched: int = 1) -> Network:
    """Split the unloaded latency so that one lone I/O takes exactly base_latency_s (or a member's service time,
    when its cap paces even one I/O). The instance link queues only when it is the tighter cap: a rate cap that
    does not bind adds no wait of its own, and the bytes' transfer time is already in base_latency_s. GROWTH (the
    volume's latency curve) scales the unloaded time with the depth a busy member holds (see Network.delay_at)."""
    if link_rate and link_rate >= members * member_rate:
        link_rate = None
    flat = () if all(f == 1 for _, f in growth) else growth
    if 1 / member_rate > base_latency_s:
        # a cap slower than one I/O is a rate limiter, not a server an I/O waits in: its credit builds while
        # other members serve, so N I/Os reach n x the cap as soon as N / time per I/O does (the lab: 4 members
        # of 150 IOPS behind 0.42 ms gave 555 IOPS at depth 1, not the 150 a server of 6.7 ms would)
        return Network(base_latency_s, member_rate, members, link_rate, flat, base_latency_s, max(1, touched), True)
    service = 1 / member_rate + (1 / link_rate if link_rate else 0.0)
    return Network(max(base_latency_s - service, 0.0), member_rate, members, link_rate,
                   flat, base_latency_s, max(1, touched))


def mva(net: Network, max_outstanding: int) -> list[Point]:
    """Exact MVA for N = 1..max_outstanding. Members are identical, so one queue length describes all.

    Once X(N) has converged (relative step below CONVERGED), the rest of the curve is X constant and, by
    Little's law (no think time), R = N / X: written out directly, which is what keeps `plan` (a curve of
    4,096 points per candidate) fast."""
    points: list[Point] = []
    last = 0.0
    for point in mva_iter(net):
        points.append(point)
        x = point.throughput
        if point.outstanding >= max_outstanding:
            break
        if x - last <= CONVERGED * x and point.outstanding >= net.flat_from():
            points += [Point(n, x, n / x) for n in range(point.outstanding + 1, max_outstanding + 1)]
            break
        last = x
    return points


def mva_iter(net: Network) -> Iterator[Point]:
    """The MVA recursion as an endless stream of points N = 1, 2, 3, ..."""
    if net.paced:
        yield from _paced(net)
        return
    d_member = 1.0 / (net.member_rate * net.members)   # service demand per I/O at one member (visit 1/n)
    d_link = 1.0 / net.link_rate if net.link_rate else 0.0
    q_member = 0.0
    q_link = 0.0
    n = 0
    while True:
        n += 1
        r_member = d_member * (1 + q_member)
        r_link = d_link * (1 + q_link)
        r = net.delay_at(n) + net.members * r_member + r_link
        x = n / r
        q_member = x * r_member
        q_link = x * r_link
        yield Point(n, x, r)


def _paced(net: Network) -> Iterator[Point]:
    """Members whose caps pace I/Os (network_for): N I/Os move N / their time per I/O, up to the members' caps
    together (and the link's); beyond, Little's law gives the time."""
    cap = net.member_rate * net.members
    if net.link_rate:
        cap = min(cap, net.link_rate)
    n = 0
    while True:
        n += 1
        x = min(n / net.delay_at(n), cap)
        yield Point(n, x, n / x)


def mva_host_queued(net: Network, max_outstanding: int, running: int | None, host_s: float = 0.0) -> list[Point]:
    """MVA where at most `running` I/Os are in service (None: no bound): beyond it throughput stays at X(running)
    and each extra outstanding I/O waits in the host queue, so the mean response is N / X (Little's law).

    host_s is the time each I/O spends in the host outside the sessions (submission, completion, reaping): while
    every outstanding I/O runs it is part of each I/O's round trip, X(N) = N / (host_s + R(N)); once I/Os wait
    for a session slot it overlaps with them and X stays at the sessions' X(running)."""
    outer = mva(replace(net, delay_s=net.delay_s + host_s), max_outstanding)
    if running is None or running >= max_outstanding:
        return outer
    top = mva(net, running)[-1].throughput
    return [p if p.throughput <= top else Point(p.outstanding, top, p.outstanding / top) for p in outer]


def throughput(net: Network, outstanding: int, running: int | None, host_s: float = 0.0) -> float:
    """X at `outstanding` I/Os: the last point of mva_host_queued, without writing out the curve before it (a
    plan asks this of every point it evaluates, at whatever depth the workload keeps)."""
    x = _throughput_at(replace(net, delay_s=net.delay_s + host_s), outstanding)
    if running is None or running >= outstanding:
        return x
    return min(x, _throughput_at(net, running))


@functools.lru_cache(maxsize=4096)
def _throughput_at(net: Network, outstanding: int) -> float:
    """mva(net, outstanding)[-1].throughput: the recursion up to OUTSTANDING, or to where it converged (X is
    constant from there, as mva writes it out)."""
    last = 0.0
    for point in mva_iter(net):
        x = point.throughput
        if point.outstanding >= outstanding:
            return x
        if x - last <= CONVERGED * x and point.outstanding >= net.flat_from():
            return x
        last = x
    raise AssertionError("mva_iter is endless")  # pragma: no cover


def at_latency(points: list[Point], bound_s: float) -> Point | None:
    """The highest-throughput point whose mean latency stays within the bound (None if even N=1 misses)."""
    ok = [p for p in points if p.latency_s <= bound_s]
    return max(ok, key=lambda p: p.throughput) if ok else None
