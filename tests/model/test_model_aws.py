"""AWS EBS: provisioning rules, the 256 KiB I/O accounting, instance caps, and measured stripes (facts §5)."""

from datetime import date

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout


def aws(spec: str, vm: str = "m6i.32xlarge", as_of: date | None = None, **wl):
    cat = load_catalog("aws", as_of)
    return predict(parse_layout(spec, "aws", cat), parse_instance(vm, "aws", cat), Workload(**wl), cat)


def test_four_io1_on_m5_12xlarge_bound_by_instance():
    """Measured 40,219 IOPS: the m5.12xlarge 40,000 IOPS cap, not the 44,000 of the volumes."""
    p = aws("4x500G@io1:11000", vm="m5.12xlarge", small_io=16384)
    assert p.max_iops == 40_000 and p.iops_limited_by == "instance_iops"


def test_four_gp2_3000g_give_36000():
    p = aws("4x3000G@gp2", vm="m5.12xlarge", small_io=16384)
    assert p.max_iops == 36_000 and p.iops_limited_by == "volume_iops_per_gb"


def test_ssd_io_accounting_counts_1m_as_four_ops():
    """One 1,024 KiB I/O is four 256 KiB ops against a gp3 volume's IOPS."""
    p = aws("1x100G@gp3:3000:750", large_io=1024 * 1024)
    assert p.mbps_limited_by == "volume_iops_provisioned"
    assert p.max_mbps == pytest.approx(3000 / 4 * 1.048576, rel=1e-3)


def test_gp3_limits_changed_in_september_2025():
    with pytest.raises(InputError, match="16,000"):
        aws("1x1T@gp3:20000:500", as_of=date(2024, 1, 1))
    assert aws("1x1T@gp3:20000:500").max_iops == 20_000


def test_gp3_defaults_to_included_baseline_and_prices_extras():
    base = aws("1x1T@gp3")
    assert base.layout == "1x1T@gp3:3000:125" and base.max_iops == 3000
    assert base.cost.storage == pytest.approx(1024 * 0.08)
    extra = aws("1x1T@gp3:16000:1000")
    assert extra.cost.storage == pytest.approx(1024 * 0.08 + 13000 * 0.005 + 875 * 0.04)


def test_gp3_throughput_bounded_by_iops_ratio():
    with pytest.raises(InputError, match="MiB/s per IOPS"):
        aws("1x1T@gp3:3000:1000")


def test_io2_tiered_iops_price():
    p = aws("1x1T@io2:100000")
    expected = 1024 * 0.125 + 32000 * 0.065 + 32000 * 0.0455 + 36000 * 0.03185
    assert p.cost.storage == pytest.approx(expected)


def test_io1_needs_iops_and_respects_ratio():
    with pytest.raises(InputError, match="expected provisioned IOPS"):
        aws("1x500G@io1")
    with pytest.raises(InputError, match="50 per GiB"):
        aws("1x100G@io1:6000")


def test_burst_instance_modelled_at_baseline_with_warning():
    p = aws("1x1T@gp3:16000:1000", vm="m6i.large")
    assert p.max_iops == 3600 and p.iops_limited_by == "instance_iops"
    assert any("30 minutes" in w for w in p.warnings)


def test_hdd_small_random_io_counts_one_op_each():
    p = aws("1x12.5T@st1", small_io=8192)
    assert p.max_iops == 500
    assert p.max_mbps == pytest.approx(500 * 1.048576, rel=1e-3)
