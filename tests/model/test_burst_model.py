"""Burst in time (issue 40): every documented mechanism's burst IOPS, MB/s and duration from full credits, within 1 %
of the provider's own rule; clouds and types that do not burst say so."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.model.burst import burst_line
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

MIB = 1.048576


def run(cloud: str, spec: str, vm: str, **wl):
    cat = load_catalog(cloud)
    return predict(parse_layout(spec, cloud, cat), parse_instance(vm, cloud, cat), Workload(**wl), cat,
                   with_curve=False)


def test_aws_instance_bursts_to_its_maximum_for_30_minutes():
    """AWS-EBSOPT: m6a.xlarge 'can support maximum performance for 30 minutes at least once every 24 hours': 40,000
    IOPS / 1,250 MB/s at most; the volume (16,000 IOPS / 1,000 MiB/s) binds inside that burst (the issue's case)."""
    p = run("aws", "1x400G@gp3:16000:1000", "m6a.xlarge", small_io=4096)
    assert (p.max_iops, p.iops_limited_by) == (6000, "instance_iops")
    b = p.burst
    assert b is not None
    assert b.max_iops == pytest.approx(16_000, rel=0.01) and b.iops_limited_by == "volume_iops_provisioned"
    assert b.max_mbps == pytest.approx(1000 * MIB, rel=0.01)
    assert b.iops_duration_s == pytest.approx(30 * 60, rel=0.01)
    assert b.mbps_duration_s == pytest.approx(30 * 60, rel=0.01)
    assert burst_line(p) == ("burst: 16,000 IOPS / 1,049 MB/s for up to 30 min from full credits; "
                             "sustained 6,000 / 156")
    mine = [k for k in b.buckets if k.mechanism == "aws_instance"]
    assert {k.limit for k in mine} == {"instance_iops", "instance_mbps"}
    assert all(k.source.id == "AWS-EBSOPT" and k.spent_by == "time" for k in mine)


def test_aws_instance_burst_reaches_its_published_maximum_on_big_volumes():
    """AWS-EBSOPT: m6i.large, baseline 3,600 IOPS / 81.25 MB/s, maximum 40,000 IOPS / 1,250 MB/s."""
    p = run("aws", "4x1T@gp3:16000:1000", "m6i.large", small_io=16384, large_io=128 * 1024)
    assert p.burst is not None
    assert p.burst.max_iops == pytest.approx(40_000, rel=0.01) and p.burst.iops_limited_by == "instance_iops"
    assert p.burst.max_mbps == pytest.approx(1250, rel=0.01) and p.burst.mbps_limited_by == "instance_mbps"
    assert p.burst.iops_duration_s == pytest.approx(1800, rel=0.01)


@pytest.mark.parametrize("size,seconds", [(100, 2000), (750, 7200), (20, 1862), (334, 2703)])
def test_gp2_burst_duration_is_the_documented_table(size, seconds):
    """AWS-GP2-CREDITS (general-purpose.md): 'Burst duration at 3,000 IOPS' from 5.4 million credits: 100 GiB
    2,000 s, 750 GiB 7,200 s, 1-33.33 GiB 1,862 s, 334 GiB 2,703 s. On an instance that does not bind."""
    p = run("aws", f"1x{size}G@gp2", "m6i.32xlarge", small_io=16384)
    b = p.burst
    assert b is not None
    assert b.max_iops == pytest.approx(3000, rel=0.01) and b.iops_limited_by.startswith("volume_iops")
    assert b.iops_duration_s == pytest.approx(seconds, rel=0.01)
    gp2 = next(k for k in b.buckets if k.mechanism == "aws_gp2")
    assert gp2.credits == pytest.approx(5.4e6) and gp2.source.id == "AWS-GP2-CREDITS"


@settings(max_examples=25, deadline=None)
@given(size=st.integers(min_value=1, max_value=999), members=st.integers(min_value=1, max_value=4))
def test_gp2_duration_follows_credits_over_burst_minus_baseline(size, members):
    """AWS-GP2-CREDITS: Burst duration = credit balance / (burst IOPS - baseline IOPS), baseline max(100, 3/GiB);
    a stripe of n volumes spends each volume's credits alike: n x 3,000 for as long as one alone."""
    p = run("aws", f"{members}x{size}G@gp2", "m6i.32xlarge", small_io=16384)
    baseline = max(100, 3 * size)
    assert p.max_iops == pytest.approx(members * baseline, rel=0.01)
    assert p.burst is not None
    assert p.burst.max_iops == pytest.approx(members * 3000, rel=0.01)
    assert p.burst.iops_duration_s == pytest.approx(5.4e6 / (3000 - baseline), rel=0.01)


def test_gp2_of_1_tib_and_more_does_not_burst():
    """AWS-GP2-CREDITS: 'volumes smaller than 1 TiB ... can burst'; at 1,000 GiB the baseline is 3,000 already."""
    p = run("aws", "1x2T@gp2", "m6i.32xlarge")
    assert p.burst is None and p.no_burst_reason and "gp2" in p.no_burst_reason


@pytest.mark.parametrize("vtype,size_tib,base,burst", [("st1", 1, 40, 250), ("st1", 0.5, 20, 125),
                                                        ("sc1", 1, 12, 80), ("sc1", 2, 24, 160)])
def test_hdd_throughput_credits(vtype, size_tib, base, burst):
    """AWS-HDD (hdd-vols.md): 'For a 1-TiB st1 volume, burst throughput is limited to 250 MiB/s, the bucket fills
    with credits at 40 MiB/s, and it can hold up to 1 TiB-worth of credits' (sc1: 80 / 12); limits scale linearly.
    From full, the burst lasts bucket / (burst - baseline)."""
    size_gb = int(size_tib * 1024)
    p = run("aws", f"1x{size_gb}G@{vtype}", "m6i.32xlarge", large_io=1024 * 1024)
    assert p.max_mbps == pytest.approx(base * MIB, rel=0.01)
    b = p.burst
    assert b is not None
    assert b.max_mbps == pytest.approx(burst * MIB, rel=0.01)
    assert b.mbps_duration_s == pytest.approx(size_gb * 1024 / (burst - base), rel=0.01)
    assert [k.source.id for k in b.buckets] == ["AWS-HDD"]


@pytest.mark.parametrize("tier,size,iops,mbps,burst_iops,burst_mbps", [
    ("P10", 128, 500, 100, 3500, 170), ("P20", 512, 2300, 150, 3500, 170), ("P4", 32, 120, 25, 3500, 170)])
def test_azure_premium_p1_p20_credit_bursting(tier, size, iops, mbps, burst_iops, burst_mbps):
    """AZ-BURSTING: P20 and smaller burst on credits; a full bucket lets the disk 'burst for up to 30 minutes at the
    maximum burst rate' (AZ-PSSD: burst 3,500 IOPS / 170 MB/s). A VM whose own caps do not bind."""
    p = run("azure", f"1x{size}G@premium-v1", "Standard_E32s_v5")
    assert (p.max_iops, p.max_mbps) == (pytest.approx(iops, rel=0.01), pytest.approx(mbps, rel=0.01))
    b = p.burst
    assert b is not None
    assert b.max_iops == pytest.approx(burst_iops, rel=0.01) and b.max_mbps == pytest.approx(burst_mbps, rel=0.01)
    assert b.iops_duration_s == pytest.approx(1800, rel=0.01)
    assert b.mbps_duration_s == pytest.approx(1800, rel=0.01)
    disk = [k for k in b.buckets if k.mechanism == "azure_disk"]
    assert len(disk) == 2 and all(k.source.id == "AZ-BURSTING" for k in disk)


def test_azure_p30_and_up_do_not_burst_on_credits():
    """AZ-BURSTING: P30 and up burst on demand only (an extra fee, not modelled): no disk bucket."""
    p = run("azure", "1x1T@premium-v1", "Standard_E32s_v5")
    assert p.burst is None or all(k.mechanism != "azure_disk" for k in p.burst.buckets)


def test_azure_vm_credit_bursting():
    """AZ-ESV5: Standard_E2s_v5 3,750 IOPS / 85 MB/s uncached, burst 10,000 / 1,200; AZ-BURSTING: 30 minutes at the
    burst rate from full (four P30s: 20,000 IOPS, so the VM binds in the burst too)."""
    p = run("azure", "4x1T@premium-v1", "Standard_E2s_v5")
    assert p.max_iops == pytest.approx(3750, rel=0.01)
    b = p.burst
    assert b is not None
    assert b.max_iops == pytest.approx(10_000, rel=0.01) and b.iops_limited_by == "instance_iops"
    assert b.iops_duration_s == pytest.approx(1800, rel=0.01)
    vm = next(k for k in b.buckets if k.mechanism == "azure_vm" and k.burst_iops is not None)
    assert vm.credits == pytest.approx((10_000 - 3750) * 1800) and vm.source.id == "AZ-BURSTING"


@pytest.mark.parametrize("cloud,spec,vm", [("gcp", "1x400G@pd-ssd", "n2-standard-16"),
                                           ("oci", "1x1T@balanced", "VM.Standard.E4.Flex:8"),
                                           ("aws", "1x400G@gp3", "m6i.32xlarge")])
def test_what_does_not_burst_says_so(cloud, spec, vm):
    p = run(cloud, spec, vm)
    assert p.burst is None and p.no_burst_reason
    assert burst_line(p).startswith("burst: none (")


def test_text_and_report_show_the_burst_line(tmp_path, capsys):
    """The issue's case in the text output and in the report's model summary; a cloud without burst says so."""
    from tests.support.inproc import run

    code, out, _ = run(["model", "--cloud", "aws", "--layout", "1x400G@gp3:16000:1000", "--instance", "m6a.xlarge",
                        "--io-sizes", "4k,1m", "--json"], capsys)
    assert code == 0
    (tmp_path / "m.json").write_text(out)
    code, text, _ = run(["model", "--cloud", "aws", "--layout", "1x400G@gp3:16000:1000", "--instance",
                         "m6a.xlarge", "--io-sizes", "4k,1m"], capsys)
    assert code == 0 and "burst: 16,000 IOPS / 1,049 MB/s for up to 30 min from full credits; sustained 6,000 / 156" \
        in " ".join(text.split())
    code, _, err = run(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 0, err
    html = " ".join((tmp_path / "r.html").read_text().split())
    assert "Burst: 16,000 IOPS / 1,049 MB/s for up to 30 min from full credits" in html
    assert "instancetypes/ebs-optimized.html" in html[html.index("credit buckets"):]   # AWS-EBSOPT


def test_a_burst_no_higher_than_sustained_is_no_burst_line():
    """Ultra Disk on a VM that bursts: the provisioned caps bind in both phases, so no 'burst' equal to sustained."""
    p = run("azure", "1x1T@ultra:20000:500", "Standard_E16bds_v5")
    assert p.burst is not None and p.burst.buckets   # the VM's buckets are still there (replay, JSON)
    assert (p.burst.max_iops, p.burst.max_mbps) == (p.max_iops, p.max_mbps)
    line = burst_line(p)
    assert line.startswith("burst: none (") and "sustained" not in line
    assert f"{p.max_iops:,.0f} IOPS / {p.max_mbps:,.0f} MB/s" in line
