"""AWS burstable t3/t4g (a small EBS baseline, a burst maximum) and the r8i sizes (bandwidth by weighting, IOPS a
stated unknown): each figure from its source, and the model applying them."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.schema import Instance, Workload
from blockfit.specs import parse_layout

CAT = load_catalog("aws")
BURSTABLE = [f"{family}.{size}" for family in ("t3", "t4g")
             for size in ("nano", "micro", "small", "medium", "large", "xlarge", "2xlarge")]
R8I = [f"r8i.{size}" for size in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge",
                                   "24xlarge", "32xlarge", "48xlarge", "96xlarge")]


@pytest.mark.parametrize("name", BURSTABLE)
def test_burstable_sizes_carry_baseline_and_burst_with_sources(name):
    shape = CAT.shapes[name]
    assert shape.iops < shape.iops_burst and shape.mbps < shape.mbps_burst
    assert CAT.cite(shape, "iops").url.endswith("ebs-optimized.html")
    assert CAT.cite(shape, "vcpus").id == CAT.cite(CAT.compute_prices[name], "per_hour").id == "AWS-EC2-SKYPILOT"
    assert CAT.compute_prices[name].region == "us-east-1"


def test_burstable_baselines_grow_with_size_and_stop_at_4000_iops():
    for family in ("t3", "t4g"):
        sizes = [CAT.shapes[n] for n in BURSTABLE if n.startswith(family + ".")]
        iops = [s.iops for s in sizes]
        assert iops == sorted(iops) and iops[0] == 250 and iops[-1] == 4000
        prices = [CAT.compute_prices[s.name].per_hour for s in sizes]
        assert prices == sorted(prices)


def test_t3_medium_is_held_to_its_baseline_and_bursts_to_its_maximum():
    lay = parse_layout("2x1T@gp3:16000:1000", "aws", CAT)
    pred = predict(lay, Instance(cloud="aws", shape="t3.medium"), Workload(small_io=16384, large_io=131072), CAT)
    shape = CAT.shapes["t3.medium"]
    assert pred.max_iops == pytest.approx(shape.iops) and pred.iops_limited_by == "instance_iops"
    assert pred.max_mbps == pytest.approx(shape.mbps, rel=1e-3)
    assert pred.burst is not None and pred.burst.max_iops == pytest.approx(shape.iops_burst)


@pytest.mark.parametrize("name", R8I)
def test_r8i_sizes_have_bandwidth_by_weighting_and_iops_unknown(name):
    shape = CAT.shapes[name]
    assert "iops" in shape.unknown and shape.iops is None
    ebs1 = next(cs for cs in shape.caps if cs.weighting == "ebs-1")
    assert ebs1.mbps == pytest.approx(1.25 * shape.mbps, rel=0.01)   # ebs-1: a quarter more baseline bandwidth
    assert name in CAT.compute_prices


def test_r8i_bandwidth_grows_with_size_and_the_iops_cap_is_warned_not_applied():
    mbps = [CAT.shapes[n].mbps for n in R8I]
    assert mbps == sorted(mbps) and mbps[0] == pytest.approx(81.25) and mbps[-1] == 10000
    lay = parse_layout("4x1T@gp3:16000:1000", "aws", CAT)
    pred = predict(lay, Instance(cloud="aws", shape="r8i.4xlarge", ebs_weighting="ebs-1"), Workload(), CAT)
    assert pred.max_mbps == pytest.approx(781.25, rel=1e-3)   # 6.25 Gbps with ebs-1
    assert pred.max_iops == pytest.approx(64000)              # the volumes: no instance IOPS cap applied
    assert any("IOPS cap was not found" in w or "IOPS cap" in w for w in pred.warnings)
