"""Does a host live on burst? Its recorded demand, step by step, run through a layout's credit buckets.

The server reduces a host's history to a percentile, so the plan that `hosts.py` makes has no series and no replay
of its own: the percentile target is met on the sustained rate, and the steps above it (the top 1 % at p99) are
what the credits must cover. Only for a host whose recommended or current layout bursts at all, the full series is
fetched (two range queries) and replayed by the planner's own replay, unclipped by the targets and without
headroom: the recorded demand, clipped only at the burst figures.
"""

from __future__ import annotations

from datetime import UTC, datetime

from blockfit.plan.replay import replay
from blockfit.schema.fleet import HostBurst
from blockfit.schema.history import DerivedTargets, HistoryPoint
from blockfit.schema.prediction import Prediction

Series = list[tuple[float, float]]


def bursts(pred: Prediction | None) -> bool:
    """Has the layout credit buckets to replay?"""
    return pred is not None and pred.burst is not None


def host_burst(pred: Prediction, instance: str, targets: DerivedTargets, iops: Series, mbps: Series,
               step_s: int) -> HostBurst | None:
    """The host's recorded IOPS and MB/s per step (unix time, value) replayed through PRED's buckets; None when the
    layout does not burst or there is no series."""
    if pred.burst is None or not iops:
        return None
    by_t = dict(mbps)
    t0 = iops[0][0]
    points = [HistoryPoint(t=t - t0, duration_s=step_s, label=f"+{t - t0:.0f} s", read_iops=v, write_iops=0.0,
                           read_mbps=by_t.get(t, 0.0), write_mbps=0.0) for t, v in iops]
    start = datetime.fromtimestamp(t0, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    sources = [s.model_copy(update={"start": start}) for s in targets.sources]
    recorded = targets.model_copy(update={"series": points, "sources": sources, "headroom_pct": 0.0,
                                          "peak_factor": 1.0})
    got = replay(pred, recorded, "the volumes")
    if got is None:
        return None
    worst = got.worst
    return HostBurst(layout=pred.layout, instance=instance, lives_on_burst=got.stretches > 0,
                     budget_used_pct=worst.budget_used_pct if worst else 0.0, credits_ran_out=bool(got.drops),
                     stretches=got.stretches, summary=got.summary)


def mark(b: HostBurst | None) -> str:
    """A table cell: the worst stretch's share of the budget, 'ran out', or '–' (no burst, or never above the
    sustained rate)."""
    if b is None or not b.lives_on_burst:
        return "–"
    return "ran out" if b.credits_ran_out else f"{b.budget_used_pct:.0f} %"


def cell(h_burst: HostBurst | None, now_burst: HostBurst | None) -> str:
    """The fleet table's burst cell: the recommendation's mark, and the current layout's where it lives on burst."""
    rec = mark(h_burst)
    return rec if now_burst is None or not now_burst.lives_on_burst else f"{rec} (now {mark(now_burst)})"


def summary(on_burst: int, on_burst_now: int) -> str:
    """'3 hosts live on burst (the recommended layout depends on credits); 1 current layout does', or ''."""
    if not on_burst and not on_burst_now:
        return ""
    hosts = f"{on_burst} host{'s' if on_burst != 1 else ''} live{'s' if on_burst == 1 else ''}"
    text = f"{hosts} on burst (the recommended layout depends on credits)"
    if on_burst_now:
        text += f"; {on_burst_now} current layout{'s' if on_burst_now != 1 else ''} " \
                f"do{'es' if on_burst_now == 1 else ''}"
    return text
