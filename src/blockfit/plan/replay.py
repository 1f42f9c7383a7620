"""`plan --from`: the recorded demand run through a candidate's credit buckets, starting full.

A candidate whose sustained figures cover the targets may still live on burst: a long peak above its sustained rate
spends credits (gp2's I/O credits, an AWS instance's 30 minutes) and, when they run out, the layout falls to its
sustained rate while the history still asks for more. The percentile targets cannot see that; the replay can. A
candidate meets the targets only if demand above its sustained rate never outlasts its credits. Demand above the
burst rate itself is the targets' business (the percentile chose which intervals must be met), so the replay asks
each bucket for the demand clipped at the burst figures. Each interval is replayed exactly: a bucket draining at a
steady rate empties at a known second inside it. AWS instance buckets (spent by time) are one budget for IOPS and
MB/s: a second above either baseline spends a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from blockfit.model.burst import fmt_duration
from blockfit.schema.history import DerivedTargets, HistoryPoint
from blockfit.schema.plan import BurstDrop, BurstReplay, BurstStretch
from blockfit.schema.prediction import Burst, BurstBucket, Prediction

MAX_DROPS = 20


@dataclass
class _Bucket:
    """One budget through the replay: a credit bucket, or an AWS instance's time budget (its IOPS and MB/s
    buckets together)."""

    members: list[BurstBucket]
    full: float
    level: float
    time: bool
    refill_per_s: float
    name: str
    spent: float = 0.0          # in the current stretch
    ran_out: bool = False       # in the current stretch

    def demands(self, ai: float, am: float) -> list[float]:
        """What the workload asks of each member's rate: the larger of its IOPS and its MB/s draw (one I/O counts
        once, whether the history gives it as IOPS or as bytes)."""
        return [max(ai * b.iops_draw, am * b.mbps_draw) for b in self.members]


@dataclass
class _Stretch:
    t: float
    label: str
    duration: float = 0.0
    peak_iops: float = 0.0
    peak_mbps: float = 0.0
    used: dict[str, float] = field(default_factory=dict)


def _budgets(burst: Burst) -> list[_Bucket]:
    out: list[_Bucket] = []
    timed: dict[str, _Bucket] = {}
    for b in burst.buckets:
        name = f"{b.mechanism} {b.limit}"
        if b.spent_by == "time":
            refill = b.full_s / b.refill_s if b.refill_s else 0.0
            group = timed.get(b.mechanism)
            if group is None:
                group = timed[b.mechanism] = _Bucket([], b.full_s, b.full_s, True, refill, b.mechanism)
                out.append(group)
            group.members.append(b)
        else:
            out.append(_Bucket([b], b.credits, b.credits, False, 0.0, name))
    return out


def _demand(p: HistoryPoint, h: DerivedTargets) -> tuple[float, float]:
    """The interval's IOPS and MB/s as the targets read them: the source's finer maximum where it gives one (and no
    --peak-factor overrides it), else the average x the peak factor; then the headroom."""
    grow = 1 + h.headroom_pct / 100
    fine = h.peak_factor == 1.0
    iops = p.peak_iops if fine and p.peak_iops is not None else (p.read_iops + p.write_iops) * h.peak_factor
    mbps = p.peak_mbps if fine and p.peak_mbps is not None else (p.read_mbps + p.write_mbps) * h.peak_factor
    return iops * grow, mbps * grow


def replay(pred: Prediction, history: DerivedTargets, volume_words: str, target_iops: float | None = None,
           target_mbps: float | None = None) -> BurstReplay | None:
    """Run the history through the candidate's buckets; None when nothing of it bursts or there is no series. The
    demand each interval asks of the buckets is clipped at the targets (and at the burst figures): what the
    percentile leaves out is not planned for."""
    burst = pred.burst
    if burst is None or not history.series:
        return None
    run = _Run(_budgets(burst), history)
    for p in history.series:
        if p.duration_s <= 0:
            continue
        di, dm = _demand(p, history)
        ai = min(di, burst.max_iops, target_iops if target_iops is not None else di)
        am = min(dm, burst.max_mbps, target_mbps if target_mbps is not None else dm)
        run.interval(_Ask(p, di, dm, ai, am))
    if run.current is not None:
        run.stretches.append(run.current)
    return _result(pred, history, run.budgets, run.stretches, run.drops, volume_words)


@dataclass(frozen=True)
class _Ask:
    """One interval's demand: as the history asks it (di, dm) and as the buckets are asked (clipped: ai, am)."""

    p: HistoryPoint
    di: float
    dm: float
    ai: float
    am: float


@dataclass
class _Run:
    """The replay's state: the budgets, the drops found, the stretches of draining (the current one open)."""

    budgets: list[_Bucket]
    history: DerivedTargets
    drops: list[BurstDrop] = field(default_factory=list)
    stretches: list[_Stretch] = field(default_factory=list)
    current: _Stretch | None = None

    def interval(self, ask: _Ask) -> None:
        """Every budget through one interval, in order; then the stretch it belongs to."""
        draining = [bud for bud in self.budgets if self._drain(bud, ask)]   # a list: every budget steps
        self._track(ask, bool(draining))

    def _drain(self, bud: _Bucket, ask: _Ask) -> bool:
        """One budget through the interval: refilled below its sustained rate, else drained (a stretch opens)
        until empty; whether it drained."""
        dt = ask.p.duration_s
        asks = bud.demands(ask.ai, ask.am)
        over = [(b, x) for b, x in zip(bud.members, asks, strict=True) if x > b.sustained * (1 + 1e-9)]
        if not over:
            net = bud.refill_per_s if bud.time else bud.members[0].sustained - asks[0]
            bud.level = min(bud.full, bud.level + net * dt)
            return False
        if self.current is None:
            self.current = _Stretch(ask.p.t, ask.p.label)
            for other in self.budgets:
                other.spent, other.ran_out = 0.0, False
        rate = 1.0 if bud.time else asks[0] - bud.members[0].sustained
        if bud.level >= rate * dt:
            bud.level -= rate * dt
            bud.spent += rate * dt
        else:
            self._empty(bud, ask, over, rate)
        return True

    def _empty(self, bud: _Bucket, ask: _Ask, over: list[tuple[BurstBucket, float]], rate: float) -> None:
        """The budget runs out inside the interval: the first time in a stretch is a drop (the layout falls to the
        rate its tightest member sustains)."""
        empty_at = bud.level / rate if rate > 0 else 0.0
        bud.spent += bud.level
        first = not bud.ran_out   # the first time in this stretch (an empty budget at its start counts)
        bud.level = 0.0
        bud.ran_out = True
        if not first or len(self.drops) >= MAX_DROPS:
            return
        mine = min(b.sustained / x for b, x in over)
        b0 = min(over, key=lambda bx: bx[0].sustained / bx[1])[0]
        p = ask.p
        self.drops.append(BurstDrop(t=round(p.t + empty_at, 1), at=_iso(self.history, p.t + empty_at),
                                    label=p.label, bucket=f"{b0.mechanism} {b0.limit}",
                                    asked_iops=round(ask.di, 1), asked_mbps=round(ask.dm, 1),
                                    delivered_iops=round(ask.ai * mine, 1), delivered_mbps=round(ask.am * mine, 1)))

    def _track(self, ask: _Ask, draining: bool) -> None:
        """A draining interval extends the open stretch; the first that drains nothing closes it."""
        if draining and self.current is not None:
            cur = self.current
            cur.duration += ask.p.duration_s
            cur.peak_iops = max(cur.peak_iops, ask.di)
            cur.peak_mbps = max(cur.peak_mbps, ask.dm)
            for bud in self.budgets:
                cur.used[bud.name] = 100.0 if bud.ran_out else 100 * bud.spent / bud.full
        elif self.current is not None:
            self.stretches.append(self.current)
            self.current = None


def _minutes(seconds: float) -> str:
    """'12-minute', '2.5-hour': a stretch or a budget as an adjective."""
    return f"{seconds / 60:,.0f}-minute" if seconds < 2 * 3600 else f"{seconds / 3600:,.1f}-hour"


def _owner(b: BurstBucket, pred: Prediction, volume_words: str) -> str:
    """Whose burst a bucket is: 'm6i.2xlarge's' or 'the gp2 volumes''."""
    return f"{pred.instance}'s" if b.limit.startswith("instance") else f"{volume_words}'"


def _iso(history: DerivedTargets, t: float) -> str | None:
    """The clock time t seconds into the history, where its source has a clock."""
    start = history.sources[0].start if history.sources else None
    if start is None:
        return None
    at = datetime.fromisoformat(start.replace("Z", "+00:00")) + timedelta(seconds=t)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _clock(history: DerivedTargets, t: float) -> str:
    """A time in the history: its clock time where the source has one, and how far into it."""
    at = _iso(history, t)
    return f"{fmt_duration(t)} into the history" if at is None else f"at {at} ({fmt_duration(t)} into the history)"


def _result(pred: Prediction, history: DerivedTargets, budgets: list[_Bucket], stretches: list[_Stretch],
            drops: list[BurstDrop], volume_words: str) -> BurstReplay:
    worst: BurstStretch | None = None
    words = "the history never asks for more than the sustained rate: no credits spent"
    by_name = {b.name: b for b in budgets}
    if stretches:
        s, name, used = max(((s, n, u) for s in stretches for n, u in s.used.items()), key=lambda x: x[2])
        worst = BurstStretch(t=s.t, label=s.label, duration_s=s.duration, peak_iops=round(s.peak_iops, 1),
                             peak_mbps=round(s.peak_mbps, 1), budget_used_pct=round(min(used, 100.0), 1), bucket=name)
        bud = by_name[name]
        at = (f"{s.peak_iops:,.0f} IOPS" if s.peak_iops > pred.max_iops or s.peak_mbps <= pred.max_mbps
              else f"{s.peak_mbps:,.0f} MB/s")
        words = (f"the {_minutes(s.duration)} peak at {at} used {min(used, 100.0):.0f} % of "
                 f"{_owner(bud.members[0], pred, volume_words)} {_minutes(bud.members[0].full_s)} burst")
    if drops:
        d = drops[0]
        b = next(b for bud in budgets for b in bud.members if f"{b.mechanism} {b.limit}" == d.bucket)
        words = (f"{_owner(b, pred, volume_words)} burst runs out {_clock(history, d.t)}: the layout falls to "
                 f"{d.delivered_iops:,.0f} IOPS / {d.delivered_mbps:,.0f} MB/s while the history asks "
                 f"{d.asked_iops:,.0f} / {d.asked_mbps:,.0f}; " + words)
    return BurstReplay(meets_targets=not drops, summary=words, intervals=len(history.series),
                       stretches=len(stretches), worst=worst, drops=drops)
