"""The OCI model against every public OCI block-volume measurement found (issue 16's acceptance, on our own set).

Each case: where it was published, when, the setup, and the measured figure. The model predicts it with the catalog
of its day (2020 seeds: the 2020-12-11 version; 2024-26 measurements: the current one). Cases marked `fitted` are
the runs a catalog figure was fitted to (base latency, per-path transfer rate): in-sample, listed for honesty.
Excluded (see EXCLUDED) are measurements whose setup is not stated well enough to predict.

What the set shows (34 cases, see test output): median |error| 1.9 %, max 14.9 %, every case within 15 %.
The largest errors are one path at 4-8k, where OCI varies by itself: six runs of one setup measured 42.4k-52.5k
IOPS against one prediction (-8.4 % to +13.5 %), and sprint 3's 8k run +14.9 %. At 1M over 5 paths the model is
pessimistic (-8 % and -12 %: the volume moved 2,081-2,177 MB/s, above the catalog's 1,920 MB/s for E5.Flex:16).
4k over 5 paths: -2.2 % with the queue-length selector (sprint 20), +9.4 % with round-robin (sprint 23). The
selector is not what differs: each path held 23.7 and 23.4 I/Os (fio disk_util in_queue / runtime); sprint 23's
paths took longer per I/O (0.72 vs 0.65 ms by Little's law), within the spread of the single-path runs.

History: with each iSCSI path modelled as a queueing station the 5-path 4k cases missed by +25 % and +40 %: the
path's queueing toward its 50,000 IOPS ceiling had gone into the fitted base latency (0.527 ms), which then
under-stated every I/O's time once the load spread over five paths. fio shows the per-path time flat (0.665 ms at
48k IOPS on one path, 0.69 ms at 36k a path over five), so a path is now a delay with a depth limit and a rate cap
(model/predict.py `_network`) and the E4/E5 base latency is refitted (0.657 ms). Then the 5-path cases still
missed by +5.0 % and +17.4 %: once every outstanding I/O runs, the host's own time per I/O (0.050 ms: fio's
latency less the paths' device time, sprint 20) is in each round trip, where over one path it had hidden behind
the I/Os waiting for a slot. The catalog's E4/E5 figure now carries it (host_ms).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import date

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

MIB = 1024 * 1024
BV4DB = "https://github.com/rstyczynski/oci_bv4db_arch/blob/main/progress"
PROMATIS1 = "https://www.promatis.com (Johannes Michler, OCI I/O-Performance with E-Business Suite Part 1/3)"
PROMATIS3 = "https://www.promatis.com (Johannes Michler, OCI I/O-Performance with E-Business Suite Part 3/3 - LVM)"
BERGER = ("https://www.martinberger.com/2024/05/oracle-cloud-infastructure-enable-multipath-for-ultra-high-"
          "performance-storage/")
OCI_MET = ("https://docs.oracle.com/en-us/iaas/Content/Block/Concepts/"
           "blockvolumeperformance_topic-Metrics_and_Performance_Testing.htm")


@dataclass(frozen=True)
class Case:
    id: str
    url: str
    published: date
    setup: str
    layout: str
    instance: str
    measured: float                     # I/Os per second at io_bytes (max_iops) or MB/s at io_bytes (max_mbps)
    metric: str = "iops"
    io_bytes: int = 4096
    workload: dict = field(default_factory=dict)
    paths: int | None = None
    catalog: date | None = None         # None: the current catalog
    fitted: bool = False


CASES = [
    Case("oci-met-50g-4k", OCI_MET, date(2024, 5, 30), "OCI's test: 50 GB Balanced, fio 4K random, bare metal",
         "1x50G@balanced", "BM.DenseIO.E4.128", 3_000, workload=dict(outstanding=1024)),
    Case("oci-met-50g-256k", OCI_MET, date(2024, 5, 30), "OCI's test: 50 GB Balanced, 256K+ blocks, '24,000 KBPS'",
         "1x50G@balanced", "BM.DenseIO.E4.128", 24_000 * 1024 / 1e6, metric="mbps", io_bytes=256 * 1024,
         workload=dict(outstanding=1024)),
    Case("oci-met-1t-4k", OCI_MET, date(2024, 5, 30), "OCI's test: 1 TB Balanced, fio 4K random, bare metal",
         "1x1T@balanced", "BM.DenseIO.E4.128", 25_000, workload=dict(outstanding=1024)),
    Case("bv4db-s1-1m-qd1", f"{BV4DB}/sprint_1/fio-results.json", date(2026, 4, 17),
         "E4.Flex:2, 50 GB Balanced iSCSI, ext4 file, fio rw 1M depth 1: 11,983,173 + 12,756,281 B/s",
         "1x50G@balanced", "VM.Standard.E4.Flex:2", 24_739_454 / MIB, io_bytes=MIB,
         workload=dict(outstanding=1, read_pct=50)),
    Case("bv4db-s1-4k-mixed", f"{BV4DB}/sprint_1/fio-results.json", date(2026, 4, 17),
         "E4.Flex:2, 50 GB Balanced iSCSI, fio randrw 4k 4 jobs x depth 32: 1,519.9 + 1,520.0 IOPS",
         "1x50G@balanced", "VM.Standard.E4.Flex:2", 3_039.9, workload=dict(outstanding=128, read_pct=50)),
    Case("bv4db-s2-1m-qd1", f"{BV4DB}/sprint_2/fio_analysis.md", date(2026, 4, 17),
         "E5.Flex:40, 1,500 GB at 120 VPU, multipath-enabled iSCSI, fio rw 1M depth 1: ~183 + ~184 IOPS",
         "1x1500G@120vpu", "VM.Standard.E5.Flex:40", 367, io_bytes=MIB,
         workload=dict(outstanding=1, read_pct=50), paths=1, fitted=True),
    Case("bv4db-s2-4k-mixed", f"{BV4DB}/sprint_2/fio_analysis.md", date(2026, 4, 17),
         "E5.Flex:40, 1,500 GB at 120 VPU, multipath-enabled (I/O on one path), randrw 4k 4 x 32: 24,015 + 24,051",
         "1x1500G@120vpu", "VM.Standard.E5.Flex:40", 48_066, workload=dict(outstanding=128, read_pct=50),
         paths=1, fitted=True),
    Case("bv4db-s3-8k-mixed", f"{BV4DB}/sprint_3/fio-analysis-mixed8k-smoke.md", date(2026, 4, 17),
         "sprint 2 topology, randrw 8k 70 % reads, 4 jobs x depth 32: 28,946 + 12,425 IOPS",
         "1x1500G@120vpu", "VM.Standard.E5.Flex:40", 41_371, io_bytes=8192,
         workload=dict(outstanding=128, read_pct=70), paths=1),
    # Sprints 10-23: single job sets alone on their volumes (the Oracle runs' DATA stripe on its own two volumes; the
    # multipath A/B runs on one UHP volume). Paths carrying I/O: the fio disk_util per iSCSI device.
    Case("bv4db-s10-bal-multi-data", f"{BV4DB}/sprint_10/fio-analysis-oracle-balanced-multi-4k-redo-integration.md",
         date(2026, 4, 19), "E5.Flex:8, DATA LV striped over 2 x 200 GB Balanced (iSCSI), randrw 8k 70 % reads 4 x 16, "
         "600 s: 16,780 + 7,187 IOPS (REDO 4k sync and FRA 1M, 47 MiB/s, ran at once on their own volumes)",
         "2x200G@balanced", "VM.Standard.E5.Flex:8", 23_967, io_bytes=8192,
         workload=dict(outstanding=64, read_pct=70)),
    Case("bv4db-s10-hp-multi-data", f"{BV4DB}/sprint_10/fio-analysis-oracle-hp-multi-4k-redo-integration.md",
         date(2026, 4, 19), "same on 2 x 200 GB at 20 VPU (FRA 58 MiB/s alongside): 20,979 + 8,984 IOPS",
         "2x200G@higher", "VM.Standard.E5.Flex:8", 29_963, io_bytes=8192,
         workload=dict(outstanding=64, read_pct=70)),
    Case("bv4db-s12-bal-multi-data", f"{BV4DB}/sprint_12/fio-analysis-oracle-balanced-multi-metrics-300s.md",
         date(2026, 4, 19), "sprint 10 Balanced multi layout, 300 s: per-job reads 4,191 + 4,185 + 4,193 + 4,203, "
         "writes 1,797 + 1,794 + 1,797 + 1,798 IOPS", "2x200G@balanced", "VM.Standard.E5.Flex:8", 23_958,
         io_bytes=8192, workload=dict(outstanding=64, read_pct=70)),
    Case("bv4db-s20-4k-5paths", f"{BV4DB}/sprint_20/fio_multipath_20260424_201344.json", date(2026, 4, 24),
         "E5.Flex:16, 1,500 GB at 120 VPU, dm-multipath queue-length over 5 sessions (I/O on all 5), ext4 file, "
         "randrw 4k 70 % reads 4 x 32, 120 s: 127,296.9 + 54,537.0 IOPS", "1x1500G@120vpu", "VM.Standard.E5.Flex:16",
         181_833.9, workload=dict(outstanding=128, read_pct=70), paths=5),
    Case("bv4db-s20-4k-1path", f"{BV4DB}/sprint_20/fio_singlepath_20260424_201344.json", date(2026, 4, 24),
         "same volume re-attached over one iSCSI session: 32,625.3 + 13,998.3 IOPS", "1x1500G@120vpu",
         "VM.Standard.E5.Flex:16", 46_623.6, workload=dict(outstanding=128, read_pct=70), paths=1),
    Case("bv4db-s20-1m-5paths", f"{BV4DB}/sprint_20/fio_multipath_20260424_194737.json", date(2026, 4, 24),
         "sprint 20 volume, 5 paths carrying I/O, fio read 1M 4 x 32, 20 s: 2,080,591,687 B/s",
         "1x1500G@120vpu", "VM.Standard.E5.Flex:16", 2_080.59, metric="mbps", io_bytes=MIB,
         workload=dict(outstanding=128), paths=5),
    Case("bv4db-s20-1m-1path", f"{BV4DB}/sprint_20/fio_singlepath_20260424_194737.json", date(2026, 4, 24),
         "same over one session: 698,773,622 B/s", "1x1500G@120vpu", "VM.Standard.E5.Flex:16", 698.77,
         metric="mbps", io_bytes=MIB, workload=dict(outstanding=128), paths=1),
    Case("bv4db-s20-1m-5paths-rerun", f"{BV4DB}/sprint_20/fio_compare_20260424_201203.md", date(2026, 4, 24),
         "rerun, 10 s, I/O on all 5 paths (disk_util): 2,075.78 MiB/s", "1x1500G@120vpu", "VM.Standard.E5.Flex:16",
         2_075.78 * MIB / 1e6, metric="mbps", io_bytes=MIB, workload=dict(outstanding=128), paths=5),
    Case("bv4db-s20-1m-1path-rerun", f"{BV4DB}/sprint_20/fio_compare_20260424_201203.md", date(2026, 4, 24),
         "rerun over one session: 624.31 MiB/s", "1x1500G@120vpu", "VM.Standard.E5.Flex:16", 624.31 * MIB / 1e6,
         metric="mbps", io_bytes=MIB, workload=dict(outstanding=128), paths=1),
    Case("bv4db-s22-4k-mpath-1path", f"{BV4DB}/sprint_22/fio_multipath_20260425_205911.json", date(2026, 4, 25),
         "sprint 20 setup, multipath device but all I/O on one path (sde; default policy), randrw 4k 70 % 4 x 32, "
         "fio status at 10 s of 300 s (progress log steady): 32,215.9 + 13,856.7 IOPS", "1x1500G@120vpu",
         "VM.Standard.E5.Flex:16", 46_072.6, workload=dict(outstanding=128, read_pct=70), paths=1),
    Case("bv4db-s22-4k-1path", f"{BV4DB}/sprint_22/fio_compare_20260425_205911.md", date(2026, 4, 25),
         "same run's single-session side: 205.03 MiB/s of 4k I/Os", "1x1500G@120vpu", "VM.Standard.E5.Flex:16",
         205.03 * 256, workload=dict(outstanding=128, read_pct=70), paths=1),
    Case("bv4db-s23-4k-mpath-1path", f"{BV4DB}/sprint_23/fio_multipath_20260425_220513.json", date(2026, 4, 25),
         "sprint 20 setup, multipath device, all I/O on one path (sde), status at 10 s of 120 s: 33,826.8 + "
         "14,557.0 IOPS", "1x1500G@120vpu", "VM.Standard.E5.Flex:16", 48_383.8,
         workload=dict(outstanding=128, read_pct=70), paths=1),
    Case("bv4db-s23-4k-1path", f"{BV4DB}/sprint_23/fio_compare_20260425_220513.md", date(2026, 4, 25),
         "same run's single-session side: 165.51 MiB/s of 4k I/Os", "1x1500G@120vpu", "VM.Standard.E5.Flex:16",
         165.51 * 256, workload=dict(outstanding=128, read_pct=70), paths=1),
    Case("bv4db-s23-4k-5paths", f"{BV4DB}/sprint_23/fio_multipath_20260425_222528.json", date(2026, 4, 25),
         "sprint 20 setup, round-robin over 5 paths (I/O even on all 5), status at 10 s of 120 s (progress log "
         "steady): 113,637.8 + 48,923.1 IOPS", "1x1500G@120vpu", "VM.Standard.E5.Flex:16", 162_560.9,
         workload=dict(outstanding=128, read_pct=70), paths=5),
    Case("bv4db-s23-4k-1path-rerun", f"{BV4DB}/sprint_23/fio_compare_20260425_222528.md", date(2026, 4, 25),
         "same run's single-session side: 185.45 MiB/s of 4k I/Os", "1x1500G@120vpu", "VM.Standard.E5.Flex:16",
         185.45 * 256, workload=dict(outstanding=128, read_pct=70), paths=1),
    Case("berger-256g-0vpu", BERGER, date(2024, 5, 1),
         "E4.Flex:16, 256 GB, multipath device, fio randread 4k depth 256 x 4 jobs at 0 VPU: 514-547 IOPS",
         "1x256G@lower-cost", "VM.Standard.E4.Flex:16", 531, workload=dict(outstanding=1024), paths=2),
    Case("berger-256g-50vpu", BERGER, date(2024, 5, 1), "same, 50 VPU/GB: 30.4k-30.9k IOPS",
         "1x256G@50vpu", "VM.Standard.E4.Flex:16", 30_600, workload=dict(outstanding=1024), paths=2),
    Case("berger-256g-120vpu", BERGER, date(2024, 5, 1),
         "same, 120 VPU/GB: 56.9k-57.5k IOPS (above one path's 50,000: the multipath device spread I/O)",
         "1x256G@120vpu", "VM.Standard.E4.Flex:16", 57_300, workload=dict(outstanding=1024), paths=2),
    Case("promatis1-balanced-iops", PROMATIS1, date(2020, 12, 11),
         "E3.Flex:6, one 3.5 TB Balanced, iSCSI depth 32, CALIBRATE_IO max IOPS (8k)", "1x3.5T@balanced",
         "VM.Standard.E3.Flex:6", 23_833, io_bytes=8192, catalog=date(2020, 12, 31)),
    Case("promatis1-balanced-mbps", PROMATIS1, date(2020, 12, 11), "same, CALIBRATE_IO max MBPS (1M)",
         "1x3.5T@balanced", "VM.Standard.E3.Flex:6", 448, metric="mbps", io_bytes=MIB, catalog=date(2020, 12, 31)),
    Case("promatis1-higher-iops", PROMATIS1, date(2020, 12, 11),
         "E3.Flex:6, one 3.5 TB Higher Performance, depth 32, CALIBRATE_IO max IOPS", "1x3.5T@higher",
         "VM.Standard.E3.Flex:6", 28_426, io_bytes=8192, catalog=date(2020, 12, 31), fitted=True),
    Case("promatis1-higher-mbps", PROMATIS1, date(2020, 12, 11), "same, CALIBRATE_IO max MBPS",
         "1x3.5T@higher", "VM.Standard.E3.Flex:6", 468, metric="mbps", io_bytes=MIB, catalog=date(2020, 12, 31)),
    Case("promatis3-12ocpu-iops", PROMATIS3, date(2020, 12, 20), "E3.Flex:12, 9 x 500 GB Balanced LVM stripe",
         "9x500G@balanced", "VM.Standard.E3.Flex:12", 178_571, io_bytes=8192, catalog=date(2020, 12, 31)),
    Case("promatis3-12ocpu-mbps", PROMATIS3, date(2020, 12, 20), "same, max MBPS", "9x500G@balanced",
         "VM.Standard.E3.Flex:12", 1_409, metric="mbps", io_bytes=MIB, catalog=date(2020, 12, 31)),
    Case("promatis3-20ocpu-iops", PROMATIS3, date(2020, 12, 20), "same stripe on E3.Flex:20", "9x500G@balanced",
         "VM.Standard.E3.Flex:20", 213_391, io_bytes=8192, catalog=date(2020, 12, 31)),
    Case("promatis3-20ocpu-mbps", PROMATIS3, date(2020, 12, 20), "same, max MBPS", "9x500G@balanced",
         "VM.Standard.E3.Flex:20", 2_115, metric="mbps", io_bytes=MIB, catalog=date(2020, 12, 31)),
]

# Found but not predictable: the setup leaves out what decides the figure.
EXCLUDED = {
    "oci-met-host-max": (OCI_MET, "twenty 1 TB Balanced volumes gave 400,000 IOPS at 4K, 'host maximum' of an "
                                  "unnamed shape in the 320 MB/s era: the instance cap that bound is unknown"),
    "bv4db-oracle-one-volume": (f"{BV4DB}/sprint_10/oci_performance_tier_comparison.md",
                                "sprints 8-11 'single' runs (lower/balanced/hp-single, balanced-single-metrics-300s, "
                                "singleuhp): DATA 8k, REDO 4k sync and FRA 1M jobs ran at once on one "
                                "guest-partitioned volume, so no job set had its volume alone"),
    "bv4db-oracle-uhp-multi": (f"{BV4DB}/sprint_9/fio-analysis-oracle-multi-4k-redo-integration.md",
                               "sprints 4, 5, 9, 17, 18 multi-volume runs: the DATA stripe is two UHP volumes whose "
                               "sizes (sprints 9, 17, 18) or paths carrying I/O are not stated, beside 1M FRA and "
                               "redo streams on the same 40-OCPU instance"),
    "bv4db-s30-120vpu": (f"{BV4DB}/sprint_30/sprint_30_120vpu_summary.md",
                         "DATA 65,350 IOPS ran with REDO and FRA (175.8 MiB/s) at once on five single-path volumes "
                         "of a 4-OCPU instance whose shape and volume sizes the report does not state"),
    "bv4db-ab-invalid": (f"{BV4DB}/sprint_22/sprint_22_bugs.md",
                         "sprint 22 A/B runs 195158 (both sides) and 200543 (single-path side) ran on the boot volume "
                         "(disk_util: sda/dm-0 only); 202509 and 200543's multipath side are 5-10 s runs on E5.Flex:8"),
    "bv4db-ab-unpaired": (f"{BV4DB}/sprint_22/fio_multipath_20260425_201637.json",
                          "multipath-only fio files with no fio_compare report (sprint 20: 194104, 194248, 194615; "
                          "sprint 22: 190523, 201637, 201931, 202156, 202347): diagnostic attempts while the harness "
                          "was being fixed, their runtime and profile not reported"),
    "bv4db-no-fio": (f"{BV4DB}/sprint_16/sprint_16_summary.md",
                     "sprints 6, 7, 13-16, 19, 21, 24-29: database install, swingbench/AWR, correlation reports, "
                     "attachment, agent and Terraform evidence; no fio figure"),
}


def predicted(case: Case) -> float:
    cat = load_catalog("oci", case.catalog)
    layout = parse_layout(case.layout, "oci", cat).model_copy(update={"paths": case.paths})
    # the measured hosts ran the kernel's node.session.queue_depth (32), not the 128 build sets (model's default)
    wl = Workload(small_io=case.io_bytes, large_io=case.io_bytes, **{"host_queue_depth": 32, **case.workload})
    p = predict(layout, parse_instance(case.instance, "oci", cat), wl, cat, with_curve=False)
    return p.max_iops if case.metric == "iops" else p.max_mbps


def error(case: Case) -> float:
    return predicted(case) / case.measured - 1


# Cases outside issue 16's 15 % bound, each with why and the bound it is held to so that it cannot drift further.
KNOWN_MISSES: dict[str, tuple[float, str]] = {}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_case_within_15_percent_or_a_named_miss(case):
    bound = KNOWN_MISSES[case.id][0] if case.id in KNOWN_MISSES else 0.15
    assert abs(error(case)) <= bound, f"{case.id}: predicted {predicted(case):,.1f} vs measured {case.measured:,.1f}"


def test_median_within_3_percent_and_the_misses_named():
    errors = {c.id: error(c) for c in CASES}
    for cid, e in sorted(errors.items(), key=lambda kv: -abs(kv[1])):
        print(f"{cid:28s} {100 * e:+6.1f} %")
    assert statistics.median(abs(e) for e in errors.values()) <= 0.03
    assert {cid for cid, e in errors.items() if abs(e) > 0.15} == set(KNOWN_MISSES)


def test_five_paths_are_not_five_times_one_path_at_4k():
    """The same UHP volume over 5 paths vs 1 (BV4DB sprint 20, queue-length selector): 181.8k vs 46.6k IOPS, 3.9x.
    128 outstanding over 5 sessions of depth 32 all run at once, each I/O a path's flat ~0.66 ms: the model's ratio
    follows the measured one (it was 4.9x with a path modelled as a queueing station)."""
    by_id = {c.id: c for c in CASES}
    five, one = by_id["bv4db-s20-4k-5paths"], by_id["bv4db-s20-4k-1path"]
    measured, model = five.measured / one.measured, predicted(five) / predicted(one)
    assert model == pytest.approx(measured, rel=0.10), (model, measured)


def test_out_of_sample_cases_alone():
    """Without the runs a figure was fitted to, the median still holds."""
    errors = [abs(error(c)) for c in CASES if not c.fitted]
    assert len(errors) >= 14 and statistics.median(errors) <= 0.03


def test_every_case_is_cited_and_dated():
    for c in CASES:
        assert c.url.startswith("https://") and c.published.year >= 2020 and c.setup
    assert all(url.startswith("https://") for url, _why in EXCLUDED.values())
