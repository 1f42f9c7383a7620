"""Latency per volume type and direction: the model's time per I/O at queue depth 1 and at a loaded depth against
what the publication the catalog cites says, reads and writes, within 10 %; and the stripe's occupancy rule.

The expected figures are the publications' own, written here with their citation (PUBLISHED, LOADED), never read
back from the catalog: a catalog figure that drifts from its source fails here. The catalog's entry must cite the
same source id as the row here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.catalog.models import VolumeLatency
from blockfit.model import predict, queueing
from blockfit.schema import Prediction, Workload
from blockfit.specs import parse_instance, parse_layout

# one volume of each type with a latency entry, on an instance whose caps are far above it (a volume's own caps
# at queue depth 1 are far above 1 / its latency, so one I/O at a time measures the time per I/O alone)
ONE_VOLUME = {
    ("aws", "gp3"): ("1x1T@gp3:16000:1000", "m6i.32xlarge"),
    ("aws", "io2"): ("1x1T@io2:40000", "m6i.32xlarge"),
    ("azure", "premium-v1"): ("1x1T@premium-v1", "Standard_E64s_v5"),
    ("azure", "premium-v2"): ("1x1T@premium-v2:20000:300", "Standard_E64s_v5"),
    ("azure", "ultra"): ("1x1T@ultra:20000:300", "Standard_E64s_v5"),
    ("azure", "standard-ssd"): ("1x32767G@standard-ssd", "Standard_E64s_v5"),   # E80: its cap above 1 / ms
    ("azure", "standard-hdd"): ("1x32767G@standard-hdd", "Standard_E64s_v5"),
    ("gcp", "hyperdisk-balanced"): ("1x1T@hyperdisk-balanced:160000:2400", "c4d-standard-192"),
}


@dataclass(frozen=True)
class Published:
    source: str       # the catalog source id the type's latency entry must cite
    read_ms: float    # the publication's time per 4k read at queue depth 1
    write_ms: float   # and per write
    says: str         # where the figures are in it


PUBLISHED = {
    ("azure", "premium-v1"): Published("TKUBICA-DISKS", 2.4, 1.3, "tkubica12/cloud-storage-tests disks.md, fio 4k "
                                       "iodepth 1, 1 TiB Premium SSD (P30): 'Latency read' 2.4 ms, 'write' 1.3 ms"),
    ("azure", "standard-ssd"): Published("TKUBICA-DISKS", 2.3, 1.3, "the same runs, 1 TiB Standard SSD: 2.3 / 1.3 ms"),
    ("azure", "standard-hdd"): Published("TKUBICA-DISKS", 20.0, 2.9, "the same runs, 1 TiB Standard HDD: reads 3-20 "
                                         "ms over repeated runs (the catalog takes the upper end), writes 2.9 ms"),
    ("azure", "ultra"): Published("TKUBICA-DISKS", 0.4, 0.4, "the same runs, Ultra Disk at 20,000 IOPS: 0.4 / 0.4 ms"),
    ("azure", "premium-v2"): Published("AZ-TYPES-2026", 1.0, 1.0, "no measurement found (the same runs print 'x ms'); "
                                       "Azure's disks-types page: 'submillisecond latency', so its 1 ms bound"),
    ("gcp", "hyperdisk-balanced"): Published("EASONTECH-HDB", 0.5, 0.5, "easontechtalk.com, fio 4k randread: 'about "
                                             "2,000 IOPS' at iodepth 1, so 1 / 2,000 = 0.50 ms; no write run, so "
                                             "writes take the reads' figure"),
    ("aws", "gp3"): Published("KMOPPEL-2025", 1.05, 1.05, "kmoppel.github.io 2025-04-24: pgbench key-read latency "
                              "1.05 ms on a gp3 stripe; no write figure, writes take it"),
    ("aws", "io2"): Published("KMOPPEL-2025", 0.607, 0.607, "the same post: 0.607 ms on one io2 volume of 40,000 IOPS"),
}

# At a loaded depth on one volume: the publication's run (its IOPS at that depth, by Little's law depth / IOPS), or,
# where none is published, the volume's published cap (Little's law again: far past cap x time, depth / cap).
# (cloud, type, read %, depth, IOPS at that depth, what says so)
LOADED = [
    ("azure", "premium-v1", 100, 256, 5210, "TKUBICA-DISKS iodepth 256 on the P30: 5,210 read IOPS"),
    ("azure", "premium-v1", 0, 256, 5180, "the same: 5,180 write IOPS"),
    ("azure", "ultra", 100, 256, 21800, "TKUBICA-DISKS iodepth 256 on 20,000 provisioned: 21,800 read IOPS"),
    ("gcp", "hyperdisk-balanced", 100, 32, 24600, "EASONTECH-HDB iodepth 32: 'r=24.6k IOPS' (1.30 ms per I/O)"),
    ("gcp", "hyperdisk-balanced", 0, 32, 24600, "no write run: writes take the reads' curve"),
    ("azure", "standard-ssd", 100, 256, 6000, "no loaded run; E80's published 6,000 IOPS (AZ-STD-SSD)"),
    ("azure", "standard-ssd", 0, 256, 6000, "the same cap for writes"),
    ("azure", "standard-hdd", 100, 256, 2000, "no loaded run; S80's published 2,000 IOPS (AZ-STD-HDD)"),
    ("azure", "standard-hdd", 0, 256, 2000, "the same cap for writes"),
    ("azure", "premium-v2", 100, 256, 20000, "no loaded run; the 20,000 IOPS the spec provisions"),
    ("azure", "premium-v2", 0, 256, 20000, "the same"),
    ("aws", "gp3", 100, 256, 16000, "no loaded run; the 16,000 IOPS the spec provisions (gp3's maximum)"),
    ("aws", "gp3", 0, 256, 16000, "the same"),
    ("aws", "io2", 100, 256, 40000, "no loaded run; the 40,000 IOPS the spec provisions"),
    ("aws", "io2", 0, 256, 40000, "the same"),
]
# The one published loaded run the model misses by more than 10 %: test_ultra_writes_under_load_are_conservative.
ULTRA_WRITES = ("azure", "ultra", 0, 256, 22400, "TKUBICA-DISKS iodepth 256: 22,400 write IOPS on 20,000 provisioned")


def model(cloud: str, vtype: str, outstanding: int, read_pct: float, small_io: int = 4096) -> Prediction:
    cat = load_catalog(cloud)
    spec, vm = ONE_VOLUME[(cloud, vtype)]
    return predict(parse_layout(spec, cloud, cat), parse_instance(vm, cloud, cat),
                   Workload(small_io=small_io, outstanding=outstanding, read_pct=read_pct), cat)


def test_every_latency_entry_is_tested_against_its_publication() -> None:
    """Each catalog latency entry has its publication's figures here at depth 1 and at a loaded depth, both
    directions, and cites the same source, with a public URL and a date."""
    loaded = {(c, v, r) for c, v, r, *_ in [*LOADED, ULTRA_WRITES]}
    for cloud in ("aws", "azure", "gcp", "oci"):
        cat = load_catalog(cloud)
        for key, vt in cat.volume_types.items():
            if vt.latency is None:
                continue
            assert (cloud, key) in PUBLISHED and (cloud, key) in ONE_VOLUME, f"{cloud} {key}: untested latency"
            assert vt.latency.source == PUBLISHED[(cloud, key)].source, (cloud, key)
            assert {(cloud, key, 100), (cloud, key, 0)} <= loaded, f"{cloud} {key}: no loaded depth tested"
            for fld in ("read_ms", "write_ms", *(["loaded"] if vt.latency.loaded else [])):
                c = cat.cite(vt.latency, fld)
                assert c.url and c.url.startswith("https://") and c.date, (cloud, key, fld)


@pytest.mark.parametrize("cloud,vtype", sorted(PUBLISHED))
@pytest.mark.parametrize("read_pct", [100, 0])
def test_one_io_at_a_time_takes_the_published_time(cloud: str, vtype: str, read_pct: float) -> None:
    """Queue depth 1 on one volume: IOPS = 1,000 / the published ms of that direction (within 10 %), and the
    curve's first point says the same time."""
    pub = PUBLISHED[(cloud, vtype)]
    ms = pub.read_ms if read_pct == 100 else pub.write_ms
    p = model(cloud, vtype, 1, read_pct)
    assert p.max_iops == pytest.approx(1000 / ms, rel=0.10), pub.says
    assert p.iops_limited_by == "outstanding_ios"
    assert p.curve[0].outstanding == 1 and p.curve[0].latency_ms == pytest.approx(ms, rel=0.10), pub.says


@pytest.mark.parametrize("cloud,vtype,read_pct,depth,iops,says", LOADED)
def test_at_a_loaded_depth_the_model_meets_the_publication(cloud: str, vtype: str, read_pct: float, depth: int,
                                                           iops: float, says: str) -> None:
    """At the loaded depth the model's mean latency is depth / the published IOPS (Little's law) and its IOPS the
    published ones, within 10 %."""
    p = model(cloud, vtype, depth, read_pct)
    point = next(c for c in p.curve if c.outstanding == depth)
    assert point.latency_ms == pytest.approx(depth / iops * 1000, rel=0.10), says
    assert p.max_iops == pytest.approx(iops, rel=0.10), says


@pytest.mark.parametrize("cloud,vtype", sorted(PUBLISHED))
@pytest.mark.parametrize("read_pct", [100, 0])
def test_two_ios_on_a_volume_without_a_published_curve_take_the_depth_1_time(cloud: str, vtype: str,
                                                                             read_pct: float) -> None:
    """Where no growth with depth is published the time per I/O stays the depth-1 figure until the cap is near:
    two I/Os in flight take the published depth-1 time each (within 10 %); Hyperdisk's curve rises by 1/31 of
    its 1.6 from depth 1 to 2."""
    pub = PUBLISHED[(cloud, vtype)]
    ms = pub.read_ms if read_pct == 100 else pub.write_ms
    if vtype == "hyperdisk-balanced":
        ms *= 1 + 1.6 / 31
    p = model(cloud, vtype, 2, read_pct)
    point = next(c for c in p.curve if c.outstanding == 2)
    assert point.latency_ms == pytest.approx(ms, rel=0.10), pub.says


def test_a_mix_takes_the_weighted_time_of_its_directions() -> None:
    """70 % reads on a P30 (2.4 ms reads, 1.3 ms writes): 0.7 x 2.4 + 0.3 x 1.3 = 2.07 ms per I/O at depth 1."""
    pub = PUBLISHED[("azure", "premium-v1")]
    p = model("azure", "premium-v1", 1, 70)
    assert p.base_latency_ms == pytest.approx(0.7 * pub.read_ms + 0.3 * pub.write_ms)
    assert p.max_iops == pytest.approx(1000 / (0.7 * pub.read_ms + 0.3 * pub.write_ms), rel=0.01)


def test_ultra_writes_under_load_are_conservative() -> None:
    """The Ultra Disk delivered 22,400 write IOPS at depth 256 on 20,000 provisioned (TKUBICA-DISKS): the model
    holds it to the provisioned cap, 10.7 % fewer (the one published loaded figure it misses by over 10 %: Azure
    promises the provisioned figure, not the 12 % the run got above it), so 12.8 ms per write, not 11.4."""
    cloud, vtype, read_pct, depth, iops, _ = ULTRA_WRITES
    p = model(cloud, vtype, depth, read_pct)
    assert p.max_iops == pytest.approx(20000, rel=0.01)
    assert 0.85 * iops < p.max_iops < iops
    point = next(c for c in p.curve if c.outstanding == depth)
    assert depth / iops * 1000 < point.latency_ms < 1.15 * depth / iops * 1000


def test_hyperdisk_latency_grows_along_its_curve() -> None:
    """0.5 ms at depth 1, 1.3 ms at 32 (factor 2.6, EASONTECH-HDB), linear between: at depth 16 on one volume
    0.5 x (1 + 1.6 x 15 / 31) = 0.887 ms, well below the volume's caps."""
    p = model("gcp", "hyperdisk-balanced", 16, 100)
    at16 = next(c for c in p.curve if c.outstanding == 16)
    assert at16.latency_ms == pytest.approx(0.5 + (1.3 - 0.5) * 15 / 31, rel=0.03)


def test_a_stripe_at_low_depth_spreads_its_ios_over_fewer_members() -> None:
    """4 I/Os on a 4-way stripe hit 4 (1 - (3/4)^4) = 2.73 members on average, 1.46 I/Os each: on Hyperdisk the
    time per I/O is the curve's at 1.46, not at 1, and the stripe delivers 4 / that, not 4 x one member."""
    cat = load_catalog("gcp")
    p = predict(parse_layout("4x1T@hyperdisk-balanced:160000:2400", "gcp", cat),
                parse_instance("c4d-standard-192", "gcp", cat), Workload(small_io=4096, outstanding=4), cat)
    busy = 4 * (1 - 0.75 ** 4)
    depth = 4 / busy
    ms = 0.5 + (1.3 - 0.5) * (depth - 1) / 31     # EASONTECH-HDB: 0.5 ms at depth 1, 1.3 ms at 32
    assert busy == pytest.approx(2.734, abs=1e-3)
    assert p.max_iops == pytest.approx(4 / ms * 1000, rel=0.02)
    assert p.max_iops < 4 * 1000 / 0.5
    assert "2.73 of 4 volumes busy" in p.limit_description("outstanding_ios")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 64), st.integers(1, 512), st.integers(1, 8))
def test_busy_members_is_the_expected_number_of_distinct_members(members: int, n: int, touched: int) -> None:
    """busy(N) = n (1 - (1 - t/n)^N): between min(n, N x t) ... never above either, and exactly the expected
    count for one I/O (t members) and for many (all n)."""
    busy = queueing.busy_members(n, members, touched)
    t = min(touched, members)
    assert busy <= min(members, n * t) + 1e-9
    assert busy >= t - 1e-9
    assert queueing.busy_members(1, members, touched) == pytest.approx(t if members > 1 else 1)
    assert queueing.busy_members(100_000, members, touched) == pytest.approx(members)


def test_a_curve_that_gives_fewer_ios_per_second_deeper_is_refused() -> None:
    with pytest.raises(ValueError, match="factor / depth"):
        VolumeLatency(read_ms=0.5, write_ms=0.5, loaded=[{"depth": 2, "factor": 2.5}], source="X")
    with pytest.raises(ValueError, match="depths rising"):
        VolumeLatency(read_ms=0.5, write_ms=0.5, loaded=[{"depth": 32, "factor": 2.6}, {"depth": 16, "factor": 3}],
                      source="X")
