"""The move's durations (plan/migration.py): each is data over the lowest bound, the bounds are the model's own
figures, and the seeds' case comes out as docs/move.md works it."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.plan import migration as mig
from blockfit.plan.move import sides
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout
from support.inventory import SEED_LV_BYTES

CAT = load_catalog("oci")
E3_12 = parse_instance("VM.Standard.E3.Flex:12", "oci", CAT)


def seed_sides(target: str = "9x500G@balanced", instance: str = "VM.Standard.E3.Flex:12") -> mig.Sides:
    inst = parse_instance(instance, "oci", CAT)
    return sides(CAT, parse_layout("1x4.5T@balanced", "oci", CAT), parse_layout(target, "oci", CAT), inst, 1024**2)


def test_the_seeds_copy_reads_at_the_old_volumes_480_mbps_cap_for_the_whole_lv() -> None:
    s = seed_sides()
    m = mig.offline_block_copy(s, SEED_LV_BYTES)
    assert m.read_mbps == 480.0 and m.read_limited_by == "volume_mbps_cap"
    assert m.write_mbps == 1440.0 and m.write_limited_by == "instance_mbps"     # 12 Gbps x 120 MB/s
    assert m.limited_by == "source_read" and m.rate_mbps == 480.0
    assert m.data_bytes == 4_889_816_072_192
    assert m.duration_s == pytest.approx(4_889_816_072_192 / 480e6)
    assert "2 h 50 min" in m.arithmetic[-1] and "4,889,816,072,192 B" in m.arithmetic[-1]
    # the seed's own report: about 600 MB/s, "a bit more than 2 hours" for the same LV (docs/move.md)
    seed_s = SEED_LV_BYTES / 600e6
    assert 2 * 3600 < seed_s < 2.5 * 3600 and m.duration_s / seed_s == pytest.approx(600 / 480)


def test_the_seeds_lvm_mirror_is_paced_by_one_region_in_flight() -> None:
    s = seed_sides()
    m = mig.lvm_mirror(s, SEED_LV_BYTES)
    per_region = (s.source.base_latency_ms + s.target.base_latency_ms) / 1000 + 2 * 1024**2 / 1e6 / 480 \
        + 2 * 1024**2 / 1e6 / 1440
    assert m.limited_by == "in_flight" and m.in_flight == 1 and m.unit_bytes == 2 * 1024**2
    assert m.rate_mbps == pytest.approx(2 * 1024**2 / 1e6 / per_region)
    assert m.rate_mbps < mig.offline_block_copy(s, SEED_LV_BYTES).rate_mbps
    assert {c.id for c in m.sources} == {"LINUX-DM-RAID1", "LINUX-DM-KCOPYD", "LVM2-DEFAULTS"}
    assert all(c.url and c.url.startswith("https://") for c in m.sources)


def test_asm_power_one_is_one_relocation_and_the_power_found_reaches_the_stream() -> None:
    s = seed_sides()
    one = mig.asm_rebalance(s, SEED_LV_BYTES, 1)
    power = mig.power_to_reach(s)
    reached = mig.asm_rebalance(s, SEED_LV_BYTES, power)
    below = mig.asm_rebalance(s, SEED_LV_BYTES, power - 1)
    stream, _ = s.stream()
    assert one.limited_by == "in_flight" and one.rate_mbps * power >= stream
    assert reached.rate_mbps == stream and reached.limited_by != "in_flight"
    assert below.limited_by == "in_flight" and below.rate_mbps < stream
    assert one.rate_mbps == pytest.approx(below.rate_mbps / (power - 1))   # one I/O in flight per unit of power


def test_a_cap_for_reads_and_writes_together_halves_for_a_copy() -> None:
    assert mig.copy_share(1000.0, "combined", "EBS")[0] == 500.0
    assert mig.copy_share(1000.0, "each", "network")[0] == 1000.0
    assert mig.copy_share(None, "each", "")[0] is None


def test_on_aws_the_instances_ebs_bandwidth_is_shared_by_the_copys_reads_and_writes() -> None:
    cat = load_catalog("aws")
    inst = parse_instance("r6i.2xlarge", "aws", cat)
    s = sides(cat, parse_layout("1x4T@gp3:16000:1000", "aws", cat), parse_layout("4x1T@gp3:16000:1000", "aws", cat),
              inst, 1024**2)
    src = predict(parse_layout("1x4T@gp3:16000:1000", "aws", cat), inst, Workload(read_pct=100), cat,
                  with_curve=False)
    assert src.instance_mbps_cap is not None and s.instance_mbps == pytest.approx(src.instance_mbps_cap / 2)
    m = mig.offline_block_copy(s, 4 * 1024**4)
    assert m.rate_mbps == min(m.read_mbps, m.write_mbps, src.instance_mbps_cap / 2)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["2x1T@balanced", "6x768G@balanced", "9x500G@higher", "4x1152G@lower-cost"]),
       st.sampled_from(["VM.Standard.E3.Flex:2", "VM.Standard.E3.Flex:12", "VM.Standard.E4.Flex:40"]),
       st.integers(min_value=10**9, max_value=40 * 10**12), st.integers(min_value=1, max_value=64))
def test_every_duration_is_data_over_the_lowest_bound(target: str, instance: str, data: int, power: int) -> None:
    s = seed_sides(target, instance)
    stream, _ = s.stream()
    bounds = [s.source.max_mbps, s.target.max_mbps] + ([s.instance_mbps] if s.instance_mbps is not None else [])
    assert stream == min(bounds)
    for m in (mig.offline_block_copy(s, data), mig.offline_file_copy(s, data), mig.lvm_mirror(s, data),
              mig.asm_rebalance(s, data, power)):
        assert m.rate_mbps <= stream * (1 + 1e-12)
        assert m.duration_s == pytest.approx(data / 1e6 / m.rate_mbps)
        assert (m.limited_by == "in_flight") == (m.rate_mbps < stream)
        assert f"{data:,} B" in m.arithmetic[-1] and mig.hours(m.duration_s) in m.arithmetic[-1]
    # more power never slows a rebalance, and never passes the stream
    assert mig.asm_rebalance(s, data, power + 1).rate_mbps >= mig.asm_rebalance(s, data, power).rate_mbps


@pytest.mark.parametrize(("seconds", "words"), [(30, "30 s"), (2700, "45 min"), (10187, "2 h 50 min"),
                                                (7199, "2 h 0 min")])
def test_hours_reads_as_a_dba_says_it(seconds: float, words: str) -> None:
    assert mig.hours(seconds) == words
    assert not math.isnan(seconds)
