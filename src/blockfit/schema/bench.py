"""What `blockfit bench` measures: a real PostgreSQL on each layout, per workload and run, with device evidence.

Shape (drawable by `blockfit report`: per measure, one bar per layout with its median and the comparison's CI):
    BenchResult.layouts[]       one per --dir: where it is, the device stack, and per measure the runs
      .measures[]               one per measure (oltp-select, oltp-tpcb, dss, load): unit, median, runs
        .runs[]                 one measured run: its score, figures, queries/steps, evidence, failure
        .warmup                 the warm-up before the runs: its windows, and whether it ended steady or at
                                its budget
        .drift                  the trend across the runs (flagged when larger than the noise)
    BenchResult.comparisons[]   each other layout against the first (the baseline), per measure: ratio of
                                speeds with its CI, how narrow it got against the precision target, the
                                model's ratio beside it when the caps are known, the verdict in words

Every ratio is a *speed* ratio (other / baseline; for time-like measures the inverse of time), so a ratio
above 1 always means "the other layout is faster".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from blockfit.schema.empty import empty_list
from blockfit.schema.finding import Finding
from blockfit.schema.result import ResultEnvelope

MeasureName = Literal["oltp-select", "oltp-tpcb", "dss", "load"]
Binding = Literal["iops_cap", "mbps_cap", "instance_cap", "device_busy", "cpu", "flush_latency", "unknown"]
# The bindings that mean storage held the run (the layout's, not the CPU's): at a known cap, its devices busy
# with a queue below any known cap, or fsync/flush latency.
IO_BINDINGS: tuple[Binding, ...] = ("iops_cap", "mbps_cap", "instance_cap", "device_busy", "flush_latency")
Verdict = Literal["faster", "slower", "negligible difference", "no significant difference", "cpu-bound", "failed"]


class DeviceEvidence(BaseModel):
    """Medians over the run's active 1 s intervals of one device in the layout's stack (diagnose's sampler)."""

    device: str
    role: str = Field(description="top | member | partition | device (diagnose's roles)")
    parent: str | None = None
    read_iops: float
    write_iops: float
    mbps: float
    r_await_ms: float
    w_await_ms: float
    aqu_sz: float = Field(description="time-weighted requests in flight (iostat aqu-sz)")
    util_pct: float
    flush_await_ms: float | None = None
    ios: int | None = Field(default=None, description="reads + writes the device completed over the whole run "
                            "(/proc/diskstats delta): a member's share of them shows how evenly the stripe spreads")
    bytes: int | None = Field(default=None, description="bytes the device read and wrote over the whole run "
                              "(/proc/diskstats sectors x 512)")
    cap: float | None = Field(default=None, description="the device's known cap for the binding metric, if any")
    cap_use: float | None = Field(default=None, description="median / cap (0.97 = at 97 % of the cap)")


class DbCounters(BaseModel):
    """Deltas over one run from pg_stat_database, pg_stat_bgwriter and the WAL position."""

    blks_read: int = 0
    blks_hit: int = 0
    hit_ratio: float | None = Field(default=None, description="blks_hit / (blks_hit + blks_read): shared buffers")
    page_cache_hit_ratio: float | None = Field(default=None, description="share of the blocks missed in shared "
                                               "buffers that the OS page cache served: 1 - bytes the filesystem's "
                                               "device read / (blks_read x 8 KiB), clipped to 0..1 (readahead and "
                                               "temp-file reads make it a lower bound)")
    temp_files: int = 0
    temp_bytes: int = 0
    wal_bytes: int = 0
    checkpoints: int = Field(default=0, description="checkpoints_timed + checkpoints_req")
    buffers_checkpoint: int = 0
    buffers_backend: int = 0
    buffers_clean: int = 0


class MemoryEvidence(BaseModel):
    limit_bytes: int
    peak_bytes: int | None = None
    oom_kills: int = Field(default=0, description="OOM kills in the server's memory cgroup during the run")
    cgroup_version: Literal[1, 2]


class RunEvidence(BaseModel):
    devices: list[DeviceEvidence] = Field(default_factory=empty_list)
    db: DbCounters = Field(default_factory=DbCounters)
    memory: MemoryEvidence | None = None
    cpu_busy_pct: float = Field(description="host CPU busy (all cores, /proc/stat) during the run")
    binding: Binding
    binding_detail: str = Field(description="the binding resource in words, with its figures")
    io_bound: bool = Field(description="a device cap or flush latency, not CPU, held the run")
    findings: list[Finding] = Field(default_factory=empty_list, description="diagnose's findings over the run")


class QueryFigures(BaseModel):
    """One DSS query in one run (EXPLAIN ANALYZE, BUFFERS: exact per query)."""

    name: str
    seconds: float
    temp_written_bytes: int
    temp_read_bytes: int
    read_bytes: int = Field(description="shared blocks read (not hit) plus temp blocks read, in bytes")
    read_mbps: float


class LoadStep(BaseModel):
    """One step of the bulk load: `rows` rows into the empty two-index table with one method."""

    method: Literal["copy", "insert"]
    rows: int
    seconds: float
    rows_per_s: float
    wal_bytes: int
    checkpoints: int


class BenchRun(BaseModel):
    index: int = Field(description="1-based measured run number of this layout and measure (0 = warm-up)")
    started_s: float = Field(description="seconds since the bench started (shows the interleaving: A B, B A, …)")
    seconds: float
    score: float = Field(description="the measure's figure (unit in MeasureResult.unit)")
    figures: dict[str, float] = Field(default_factory=dict, description="tps, latency_p50/p95/p99_ms, ...")
    queries: list[QueryFigures] = Field(default_factory=empty_list)
    steps: list[LoadStep] = Field(default_factory=empty_list)
    evidence: RunEvidence | None = None
    failed: str | None = Field(default=None, description="why the run failed (OOM kill, server crash)")


class WarmupWindow(BaseModel):
    """One warm-up window: the work done, its rate and the device I/Os it cost."""

    seconds: float
    work: float = Field(description="units of work done (Warmup.unit): transactions, queries or rows")
    throughput: float = Field(description="work per second")
    device_ios: int | None = Field(default=None, description="reads + writes the filesystem's device completed")
    ios_per_unit: float | None = Field(default=None, description="device_ios / work")
    binding: Binding | None = None
    failed: str | None = None


class Warmup(BaseModel):
    """Warm-up by evidence: windows until the last `steady_windows` agree within `steady_pct` on throughput and
    on device I/Os per unit of work, or until the budget is spent."""

    unit: Literal["transaction", "query", "row"]
    windows: list[WarmupWindow] = Field(default_factory=empty_list)
    outcome: Literal["steady", "budget", "failed"] = Field(
        description="steady: the state stopped changing; budget: warm_budget_s ran out first; failed: a window "
                    "failed")
    steady_windows: int
    steady_pct: float = Field(description="the tolerance: the last block's mean against the block before, percent")
    budget_s: float
    started_s: float | None = Field(default=None, description="seconds since the bench started when the first "
                                    "window began (None: a result from before it was recorded)")
    seconds: float = Field(description="the warm-up's wall time")
    work: float = Field(description="work done over all windows")
    text: str = Field(description="the outcome in words, with the last windows' figures")


class Drift(BaseModel):
    """The trend across one layout's measured runs: a least-squares line of ln(score) over the run order."""

    change_pct: float = Field(description="the line's change from the first run to the last, in percent")
    first_last_pct: float = Field(description="last run / first run - 1, in percent")
    t: float | None = Field(default=None, description="the slope's t statistic")
    drifts: bool = Field(description="the slope is larger than the noise around it (two-sided 95 % t test)")


class MeasureResult(BaseModel):
    measure: MeasureName
    unit: str = Field(description="TPS | seconds | rows/s")
    higher_is_better: bool
    median: float | None = None
    runs: list[BenchRun] = Field(default_factory=empty_list)
    warmup: Warmup | None = None
    run_seconds: float | None = Field(default=None, description="OLTP: how long each measured run of this layout "
                                      "lasted: long enough for the profile's run_ios device I/Os at the rate its "
                                      "warm-up ran, within [settings.run_seconds, settings.longest_run_s]")
    run_ios_short: bool = Field(default=False, description="OLTP: the runs were held to settings.longest_run_s, "
                                "short of run_ios device I/Os at this layout's rate (noisier runs; a warning says so)")
    drift: Drift | None = Field(default=None, description="the trend across the runs (None: fewer than 3)")
    binding: Binding | None = Field(default=None, description="the most common binding over the runs")

    @model_validator(mode="before")
    @classmethod
    def _one_warmup_run(cls, data: Any) -> Any:
        """A result from before warm-up by evidence carried one fixed-length warm-up run: not carried over."""
        if isinstance(data, dict) and isinstance(data.get("warmup"), dict) and "score" in data["warmup"]:
            data = {**data, "warmup": None}
        return data


class KnownCaps(BaseModel):
    """Caps the bench was told (--cap, --instance-cap; the lab tells its qemu throttles): per member, and the
    instance's over all members."""

    member_iops: float | None = None
    member_mbps: float | None = None
    instance_iops: float | None = None
    instance_mbps: float | None = None


class BurstCheck(BaseModel):
    """Did this layout's measured windows fall inside the burst of the cloud layout it runs on (--cloud, --layout,
    --instance)? A bench that fits inside the burst from full credits may have measured burst figures."""

    layout: str = Field(description="the cloud layout in spec grammar, e.g. 2x500G@gp2")
    instance: str = Field(description="the instance in spec grammar")
    duration_s: float | None = Field(description="seconds the layout's burst lasts from full credits (the longer of "
                                     "the prediction's iops_duration_s and mbps_duration_s); None: nothing bursts")
    elapsed_s: float = Field(description="seconds from the start of this layout's first warm-up window or run to "
                             "the end of its last measured run")
    inside: bool | None = Field(description="elapsed_s <= duration_s: every window may have run on burst credits; "
                                "False: the windows outlasted a burst from full credits; None: nothing bursts")


class LayoutInfo(BaseModel):
    label: str
    dir: str
    mount_point: str
    fstype: str
    source: str
    fs_device: str | None = Field(default=None, description="the device the filesystem sits on")
    devices: list[str] = Field(description="the mount's whole stack (filesystem device, LV/md, members)")
    members: list[str] = Field(default_factory=empty_list, description="the bottom of the stack, where a volume's cap "
                               "applies")
    mount_options: list[str] = Field(default_factory=empty_list)
    caps: KnownCaps | None = None
    load_seconds: float = 0.0
    measures: list[MeasureResult] = Field(default_factory=empty_list)
    burst_check: BurstCheck | None = Field(default=None, description="whether the measured windows fell inside "
                                           "the cloud layout's burst (None: --cloud, --layout, --instance not given)")


class Comparison(BaseModel):
    measure: MeasureName
    baseline: str = Field(description="label of the layout compared against (the first --dir)")
    other: str
    ratio: float | None = Field(default=None, description="speed ratio other/baseline (geometric mean of pairs)")
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float = Field(description="the CI's level after the adjustment for several looks")
    baseline_median: float | None = None
    other_median: float | None = None
    verdict: Verdict
    text: str = Field(description="the verdict in words, the ratio and its interval first, e.g. 'B is 4.02× A "
                                  "[3.71×, 4.35×]: faster (97.5% CI, 6 pairs); within ±8 % (target ±10 %)'")
    runs_used: int = Field(description="measured runs per layout")
    looks: int = Field(description="looks at the interval's width (from the fourth pair on)")
    precision_pct: float | None = Field(default=None, description="the target: the interval within ± this "
                                        "percent of the ratio")
    half_width_pct: float | None = Field(default=None, description="the interval's wider side, in percent of the "
                                         "ratio")
    precise: bool = Field(default=False, description="the interval reached the precision target")
    stopped: Literal["precision", "rounds", "budget", "failed", "interrupted"] | None = Field(
        default=None, description="why the rounds ended: the target was met, --repeat rounds or the time budget "
                                  "were spent, a run failed")
    drifting: list[str] = Field(default_factory=empty_list, description="labels of layouts whose runs drifted")
    model_ratio: float | None = Field(default=None, description="other / baseline from the known caps (the "
                                      "model's rule: members x member cap, held to the instance's cap)")
    model_basis: Literal["iops", "mbps"] | None = Field(default=None, description="which cap the model's ratio "
                                                        "leans on: IOPS for OLTP, MB/s for DSS and load")
    device_ratio: float | None = Field(default=None, description="other / baseline rate the layouts' members "
                                       "delivered on model_basis (I/Os or bytes completed per second of run, "
                                       "summed over the members; medians over the runs): the layer the model's "
                                       "ratio speaks of (None: no device evidence)")
    io_per_unit_ratio: float | None = Field(default=None, description="device_ratio / ratio: other / baseline "
                                            "member I/Os (IOPS basis) or bytes (MB/s basis) per unit of work; "
                                            "above 1, the other layout's devices did more for the same work")
    baseline_cap_use: float | None = Field(default=None, description="fraction of the model's rate for the "
                                           "baseline's caps that its members delivered (median over its runs; "
                                           "1.0: held at the caps; None: caps or device evidence unknown)")
    other_cap_use: float | None = Field(default=None, description="the same for the other layout; model_ratio x "
                                        "other_cap_use / baseline_cap_use = device_ratio")


class BenchSettings(BaseModel):
    profile: str
    repeat: int = Field(description="most measured rounds per measure")
    looks_at: list[int] = Field(default_factory=empty_list, description="(before warm-up by evidence) planned run "
                                "counts at which the comparison was checked")
    precision_pct: float | None = Field(default=None, description="rounds stop once the ratio's interval is "
                                        "within ± this percent (None: every planned round runs)")
    confidence: float | None = Field(default=None, description="the level of the verdict's interval")
    min_pairs: int | None = Field(default=None, description="the first look at the interval's width")
    rounds_budget_s: float | None = Field(default=None, description="most seconds of measured rounds per measure")
    steady_windows: int | None = None
    steady_pct: float | None = None
    warmup_budget_s: float | None = Field(default=None, description="most warm-up seconds per layout and measure")
    prime_seconds: float | None = None
    memory_limit_bytes: int
    postgres: dict[str, str] = Field(description="server settings given on the command line")
    oltp_scale: int
    oltp_clients: int
    run_seconds: float = Field(description="the shortest OLTP measured run")
    warmup_seconds: float = Field(description="the first (and shortest) OLTP warm-up window")
    run_ios: int | None = Field(default=None, description="an OLTP run lasts long enough for this many device "
                                "I/Os at its layout's rate")
    window_ios: int | None = Field(default=None, description="the same for a warm-up window")
    longest_run_s: float | None = Field(default=None, description="the longest an OLTP measured run may last: the "
                                        "rounds budget's room for its planned rounds of every layout")
    longest_window_s: float | None = Field(default=None, description="the longest an OLTP warm-up window may last: "
                                           "the warm-up budget's room for the windows a steady verdict needs")
    dss_rows: int
    load_steps: list[int]


class BenchResult(ResultEnvelope):
    kind: Literal["bench"] = "bench"
    started: str
    duration_s: float
    postgres_version: str
    measures: list[MeasureName]
    settings: BenchSettings
    layouts: list[LayoutInfo]
    comparisons: list[Comparison] = Field(default_factory=empty_list)
    warnings: list[str] = Field(default_factory=empty_list)
    partial: bool = False
    stopped_by: str | None = None
