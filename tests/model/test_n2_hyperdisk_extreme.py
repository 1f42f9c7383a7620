"""Issue 37 item 4: N2 attaches Hyperdisk Extreme from 80 vCPUs (Google's Hyperdisk overview, GCP-HDTYPES-2:
"N2 machine types require at least 80 vCPUs"). Before, every N2 was refused ("n2 cannot attach hyperdisk-extreme")."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.plan import make_plan
from blockfit.schema import Requirements, Workload
from blockfit.specs import parse_instance, parse_layout

GCP = load_catalog("gcp")
MIB = 1.048576   # MB per MiB
N2_TYPES = [(f"n2-{family}-{v}", v) for family, mf in GCP.shapes["n2"].machine_families.items() for v in mf.vcpus]


def hdx(gib: int, iops: int, instance: str):
    return predict(parse_layout(f"1x{gib}G@hyperdisk-extreme:{iops}", "gcp", GCP), parse_instance(instance, "gcp", GCP),
                   Workload(), GCP, with_curve=False)


@pytest.mark.parametrize("iops", [20_000, 50_000, 350_000])
def test_n2_highmem_80_takes_hyperdisk_extreme_at_its_volume_caps_and_price(iops):
    p = hdx(2048, iops, "n2-highmem-80")
    vt = GCP.volume_types["hyperdisk-extreme"]
    assert p.max_iops == pytest.approx(iops, rel=1e-9)
    assert p.max_mbps == pytest.approx(min(iops * vt.tput_per_iops, vt.tput_max) * MIB, abs=0.05)
    assert p.cost.storage == pytest.approx(2048 * 0.125 + iops * 0.032, abs=0.005)
    assert any("per-VM limits for hyperdisk-extreme are not in the catalog" in w for w in p.warnings)


@pytest.mark.parametrize("name,vcpus", N2_TYPES)
def test_every_n2_machine_type_attaches_hyperdisk_extreme_exactly_from_80_vcpus(name, vcpus):
    if vcpus >= 80:
        assert hdx(1024, 40_000, name).max_iops == pytest.approx(40_000)
        return
    with pytest.raises(InputError) as err:
        hdx(1024, 40_000, name)
    assert "at least 80 vCPUs" in str(err.value) and "GCP-HDTYPES-2" in str(err.value)


def test_n2_96_plans_past_its_persistent_disk_cap_on_hyperdisk_extreme():
    """150,000 IOPS is beyond every N2 Persistent Disk cap (100,000 pd-ssd): Hyperdisk Extreme reaches it, its cap
    unknown."""
    req = Requirements(cloud="gcp", capacity_gb=2048, instance_shape="n2-highmem-96", target_iops=150_000)
    plan = make_plan(req, GCP)
    # N2's per-VM Hyperdisk Extreme cap is not in the catalog: met only with it not applied, so the layout is the
    # infeasible plan's best, flagged (it was "feasible", the unknown cap taken as none)
    assert not plan.feasible and plan.infeasible is not None and "instance cap unknown" in plan.infeasible.reason
    first = plan.infeasible.best
    assert first is not None and not first.cap_known and first.layout_detail.volume.type == "hyperdisk-extreme"
    assert first.max_iops >= 150_000 and first.cost.storage is not None and first.cost.compute is not None
