"""Each layout against the baseline for one measure: the ratio with its interval, how narrow it got against the
precision target and why the rounds ended, runs that drifted, and the model's ratio from the known caps.

The model's ratio follows the model's rule for rate limits (model/predict.py): a layout's rate is its members'
caps summed, held to the instance's cap when that is lower. IOPS caps for OLTP, MB/s caps for DSS and load (the
lab's bases). It needs both layouts' caps; without them (a real server's caps unknown to the bench) it is None.

Beside it, the same ratio one layer down, from the runs' own device counters: the rate the members delivered
(``device_ratio``), how much of their caps that was (``baseline_cap_use``, ``other_cap_use``: model_ratio x
other's / baseline's = device_ratio), and the device I/Os or bytes each unit of work cost (``io_per_unit_ratio``;
the speed ratio is device_ratio over it). The lab case, a 3-way stripe against one volume (model 3.0x),
select-only: 2.81x measured, its members 2.81x, at 94 % of their caps against the single volume's 100 %, at 0.998x
the I/Os per transaction. Eight sessions leave a member with nothing queued at moments, and a fixed-rate cap does
not give the idle time back; one volume under the same eight sessions never idles.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Literal

from blockfit.dbbench import evidence, stats, warmup
from blockfit.schema.bench import BenchRun, Comparison, Drift, LayoutInfo, MeasureName, MeasureResult
from blockfit.units import fmt_num, fmt_pct

BASIS: dict[MeasureName, Literal["iops", "mbps"]] = {"oltp-select": "iops", "oltp-tpcb": "iops", "dss": "mbps",
                                                     "load": "mbps"}
Stopped = Literal["precision", "rounds", "budget", "failed", "interrupted"]


@dataclass(frozen=True)
class Rounds:
    """How a measure's rounds went: why they ended, the looks taken, the target and budget."""

    stopped: Stopped
    looks: int
    precision_pct: float | None
    budget_s: float | None
    repeat: int


def summarise(mr: MeasureResult) -> None:
    """Median, most common binding and drift of a layout's runs so far."""
    good = [r for r in mr.runs if not r.failed]
    mr.median = statistics.median([r.score for r in good]) if good else None
    mr.binding = evidence.most_common([r.evidence.binding for r in good if r.evidence is not None])
    t = stats.trend(stats.speeds([r.score for r in good if r.score > 0], mr.higher_is_better))
    mr.drift = None if t is None else Drift(change_pct=round(t.change * 100, 2),
                                            first_last_pct=round(t.first_last * 100, 2), t=t.t, drifts=t.drifts)


def model_rate(info: LayoutInfo, basis: Literal["iops", "mbps"]) -> float | None:
    """The layout's rate by the model's rule over the caps it was told (None: not known)."""
    caps = info.caps
    if caps is None:
        return None
    member = caps.member_iops if basis == "iops" else caps.member_mbps
    instance = caps.instance_iops if basis == "iops" else caps.instance_mbps
    rates = [r for r in ((member or 0) * max(1, len(info.members)), instance or 0) if r > 0]
    return min(rates) if rates else None


def model_ratio(base: LayoutInfo, other: LayoutInfo, measure: MeasureName) -> float | None:
    b, o = model_rate(base, BASIS[measure]), model_rate(other, BASIS[measure])
    return o / b if b and o else None


def device_rate(info: LayoutInfo, run: BenchRun, basis: Literal["iops", "mbps"]) -> float | None:
    """The rate a run's members delivered on the model's basis: I/Os or bytes (MB) they completed per second of
    the run, summed (None: no member in the run's evidence)."""
    if run.failed or run.evidence is None or run.seconds <= 0:
        return None
    members = [d for d in run.evidence.devices if d.device in info.members]
    counts = [d.ios if basis == "iops" else d.bytes for d in members]
    if not members or any(c is None for c in counts):
        return None
    return sum(c or 0 for c in counts) / run.seconds / (1 if basis == "iops" else 1e6)


def layout_device_rate(info: LayoutInfo, mr: MeasureResult, basis: Literal["iops", "mbps"]) -> float | None:
    """The median over a layout's runs of the rate its members delivered (None: no device evidence)."""
    rates = [r for run in mr.runs if (r := device_rate(info, run, basis)) is not None]
    return statistics.median(rates) if rates else None


def cap_use(rate: float | None, info: LayoutInfo, basis: Literal["iops", "mbps"]) -> float | None:
    """The fraction of the model's rate for the layout's caps that its members delivered (``rate``, from
    layout_device_rate; 1.0: held at the caps; None: caps or device evidence unknown)."""
    model = model_rate(info, basis)
    return rate / model if rate is not None and model else None


def _device_clause(measure: MeasureName, dev: float | None, io_per_unit: float | None,
                   uses: tuple[float | None, float | None], baseline: str) -> str:
    """Where the ratio came from, a layer down: the members' rate (what the model's ratio is about), how much of
    their caps that was when the caps are known, and what each unit of work cost them. model_ratio x (other's
    cap use / baseline's) = device_ratio, and device_ratio / io_per_unit_ratio = the speed ratio."""
    if dev is None or io_per_unit is None:
        return ""
    what, per = ("IOPS", "I/Os") if BASIS[measure] == "iops" else ("MB/s", "bytes")
    base_use, other_use = uses
    of_caps = (f" ({fmt_pct(other_use)} of their caps, {baseline}'s {fmt_pct(base_use)})"
               if base_use is not None and other_use is not None else "")
    return (f"; its members delivered {stats.fmt_ratio(dev)} the {what}{of_caps}, at {stats.fmt_ratio(io_per_unit)} "
            f"the device {per} per {warmup.UNITS[measure]}")


def _precision_clause(ci: stats.RatioCI, rounds: Rounds) -> str:
    if rounds.precision_pct is None or ci.half_width is None:
        return ""
    got = f"±{ci.half_width * 100:.0f} %"
    if ci.within(rounds.precision_pct / 100):
        return f"; within {got} (target ±{rounds.precision_pct:g} %)"
    why = {"budget": f"its {fmt_num(rounds.budget_s)} s budget was spent",
           "rounds": f"all {rounds.repeat} rounds (--repeat) were run",
           "failed": "a run failed", "interrupted": "the bench was interrupted",
           "precision": "the target was met"}[rounds.stopped]
    return f"; {got}: could not reach the ±{rounds.precision_pct:g} % target ({why})"


def _drift_clause(drifting: list[tuple[str, Drift]]) -> str:
    return "".join(f"; {label}'s runs drifted {d.change_pct:+.0f} % from first to last (a trend larger than their "
                   "noise: the ratio averages a changing state)" for label, d in drifting)


Side = tuple[str, LayoutInfo, MeasureResult]


def compare(base: Side, others: list[Side], rounds: Rounds) -> list[Comparison]:
    """The comparisons of one measure (each other layout against the baseline)."""
    return [_compare_one(base, other, rounds) for other in others]


def _compare_one(base: Side, other: Side, rounds: Rounds) -> Comparison:
    label_a, info_a, mra = base
    label_b, info_b, mrb = other
    ci = stats.ratio_ci([r.score for r in mra.runs], [r.score for r in mrb.runs], mra.higher_is_better)
    drifting = [(label, m.drift) for label, m in ((label_a, mra), (label_b, mrb)) if m.drift and m.drift.drifts]
    verdict, text = stats.verdict_text(ci, label_b, label_a)
    model = model_ratio(info_a, info_b, mra.measure)
    basis = BASIS[mra.measure]
    dev, io_per_unit, uses = _device_figures(base, other, ci)
    text += (_precision_clause(ci, rounds) + _device_clause(mra.measure, dev, io_per_unit, uses, label_a)
             + _drift_clause(drifting))
    verdict, text = _overruled(verdict, text, base, other)
    return Comparison(
        measure=mra.measure, baseline=label_a, other=label_b, ratio=ci.ratio, ci_low=ci.low, ci_high=ci.high,
        confidence=ci.confidence, baseline_median=mra.median, other_median=mrb.median, verdict=verdict,
        text=text, runs_used=min(len(mra.runs), len(mrb.runs)), looks=rounds.looks,
        precision_pct=rounds.precision_pct,
        half_width_pct=None if ci.half_width is None else round(ci.half_width * 100, 2),
        precise=rounds.precision_pct is not None and ci.within(rounds.precision_pct / 100),
        stopped=rounds.stopped, drifting=[label for label, _ in drifting],
        model_ratio=model, model_basis=basis, device_ratio=dev, io_per_unit_ratio=io_per_unit,
        baseline_cap_use=uses[0], other_cap_use=uses[1])


def _device_figures(base: Side, other: Side, ci: stats.RatioCI) -> tuple[float | None, float | None,
                                                                        tuple[float | None, float | None]]:
    """The members' rate ratio, the device I/Os (or bytes) per unit of work ratio, and each side's cap use."""
    (_, info_a, mra), (_, info_b, mrb) = base, other
    basis = BASIS[mra.measure]
    rate_a, rate_b = layout_device_rate(info_a, mra, basis), layout_device_rate(info_b, mrb, basis)
    dev = rate_b / rate_a if rate_a and rate_b else None
    io_per_unit = dev / ci.ratio if dev is not None and ci.ratio else None
    return dev, io_per_unit, (cap_use(rate_a, info_a, basis), cap_use(rate_b, info_b, basis))


def _overruled(verdict: str, text: str, base: Side, other: Side) -> tuple[str, str]:
    """A failed run, or a side held by the CPU, replaces the measured verdict: no winner is called from those."""
    (label_a, _, mra), (label_b, _, mrb) = base, other
    failed = [r.failed for r in mra.runs + mrb.runs if r.failed]
    cpu = [label for label, m in ((label_a, mra), (label_b, mrb)) if m.binding == "cpu"]
    if failed:
        return "failed", f"failed run: {failed[0]}"
    if cpu:
        return "cpu-bound", (f"CPU-bound on {', '.join(cpu)}: the layouts were not what held these runs, "
                             f"so no winner is called (measured: {text})")
    return verdict, text
