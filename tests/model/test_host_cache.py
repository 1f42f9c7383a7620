"""Azure host caching (ReadOnly): the VM's cached limits carry reads and writes, the disks and the uncached limits
the writes alone; the types and sizes Azure does not cache are refused."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model import host_cache, predict
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

CAT = load_catalog("azure")


def _predict(layout: str, shape: str, read_pct: float, caching: str | None = "readonly"):
    lay = parse_layout(layout, "azure", CAT).model_copy(update={"host_caching": caching})
    return predict(lay, parse_instance(shape, "azure", CAT), Workload(read_pct=read_pct), CAT, with_curve=False)


def _row(pred, name):
    return next(row for row in pred.limits if row.name.startswith(name))


def test_cached_caps_come_from_the_size_page():
    shape = CAT.shapes["Standard_E32s_v3"]
    assert (shape.iops_cached, shape.mbps_cached, shape.cache_gb) == (64000, 512, 800)
    assert CAT.cite(shape, "iops_cached").url.endswith("ev3-esv3-series")
    assert CAT.shapes["Standard_D8s_v3"].iops_cached == 16000   # the disks-performance page's own example
    assert CAT.shapes["Standard_M128ds_v2"].mbps_cached == 1600


@settings(max_examples=25, deadline=None)
@given(read_pct=st.floats(min_value=0, max_value=99))
def test_reads_hit_the_cache_and_writes_carry_the_disks(read_pct):
    uncached = _predict("4x1T@premium-v1", "Standard_E32s_v3", read_pct, None)
    cached = _predict("4x1T@premium-v1", "Standard_E32s_v3", read_pct)
    writes = 1 - read_pct / 100
    # the disks see only the writes: their row is the uncached row over the write share
    assert _row(cached, "volume_iops").iops == pytest.approx(_row(uncached, "volume_iops").iops / writes, rel=1e-3)
    # the cached cap holds every I/O, as published
    assert _row(cached, "instance_cached_iops").iops == pytest.approx(64000, rel=1e-3)
    assert cached.max_iops <= 64000 + 0.1
    assert cached.max_iops >= uncached.max_iops - 0.1
    assert any("cache hit" in w for w in cached.warnings)


def test_reads_only_leave_disks_and_uncached_caps_out():
    pred = _predict("4x1T@premium-v1", "Standard_E32s_v3", 100)
    names = {row.name for row in pred.limits}
    assert not any(n.startswith("volume_") for n in names) and "instance_iops" not in names
    assert pred.max_mbps == pytest.approx(512, rel=1e-3)   # the cached MB/s cap binds 1 MiB reads


def test_a_size_without_cached_limits_is_not_cached_and_says_so():
    plain = _predict("4x1T@premium-v1", "Standard_E32ds_v5", 70, None)
    asked = _predict("4x1T@premium-v1", "Standard_E32ds_v5", 70)
    assert (asked.max_iops, asked.max_mbps) == (plain.max_iops, plain.max_mbps)
    assert any("cached limits were not found" in w for w in asked.warnings)


@pytest.mark.parametrize("layout, why", [("2x4T@premium-v1", "too large"), ("2x8T@premium-v1", "too large"),
                                         ("2x1T@premium-v2:5000", "take no host caching"),
                                         ("2x1T@ultra:5000", "take no host caching")])
def test_uncacheable_disks_are_refused(layout, why):
    with pytest.raises(InputError, match=why):
        _predict(layout, "Standard_E32s_v3", 70)


def test_the_largest_cacheable_disk_is_taken():
    assert _predict("1x4095G@premium-v1", "Standard_E32s_v3", 70).max_iops > 0


def test_cli_refuses_with_one_line_and_exit_2():
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "blockfit", "model", "--cloud", "azure", "--instance",
                               "Standard_E32s_v3", *args], capture_output=True, text=True, timeout=60)

    res = run("--layout", "2x8T@premium-v1", "--host-caching", "readonly")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "--host-caching" in res.stderr and "4095 GiB" in res.stderr and "Traceback" not in res.stderr
    res = run("--layout", "2x1T@premium-v1", "--host-caching", "readwrite")
    assert res.returncode == 2 and "expected readonly or none" in res.stderr


def test_a_size_without_cached_limits_keeps_its_caps_and_says_why():
    """E32ds_v5's page publishes no cached limits: the caps stay as uncached, and the warning names the size."""
    lay = parse_layout("4x1T@premium-v1", "azure", CAT).model_copy(update={"host_caching": "readonly"})
    assert host_cache.cached(lay) and not host_cache.cached(lay.model_copy(update={"host_caching": None}))
    cached = _predict("4x1T@premium-v1", "Standard_E32ds_v5", 70)
    uncached = _predict("4x1T@premium-v1", "Standard_E32ds_v5", 70, None)
    assert cached.max_iops == pytest.approx(uncached.max_iops)
    assert not any(row.name.startswith(host_cache.CACHED_IOPS) for row in cached.limits)
    assert any("Standard_E32ds_v5" in w and "not modelled" in w for w in cached.warnings)
