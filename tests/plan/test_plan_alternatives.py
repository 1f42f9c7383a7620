"""An infeasible plan's alternatives: a shape whose instance caps the catalog does not know is never advised.

Issue 38 priced OCI's A2, E6 and Dense I/O Flex shapes, whose block-volume caps no published table gives; the
alternatives walk then took "unknown" for "unlimited" and said VM.Standard.A2.Flex:1 would meet 500,000 IOPS.
"""

from __future__ import annotations

from blockfit.catalog import load_catalog
from blockfit.model.instance import find_shape
from blockfit.plan import make_plan
from blockfit.schema import Requirements


def test_alternatives_name_only_shapes_with_known_caps() -> None:
    cat = load_catalog("oci")
    req = Requirements(cloud="oci", capacity_gb=4608, target_iops=500_000, instance_shape="VM.Standard.E3.Flex",
                       instance_ocpus=12)
    plan = make_plan(req, cat)
    assert plan.infeasible is not None and plan.infeasible.alternatives
    for alt in plan.infeasible.alternatives:
        shape = find_shape(cat, alt.instance.split(":")[0])
        assert not {"iops", "mbps", "tiers"} & set(shape.unknown), alt.instance
        assert alt.prediction.max_iops >= 500_000
    # the catalog does price shapes with unknown caps, so the rule is what keeps them out
    assert any({"iops", "mbps"} & set(s.unknown) and cat.compute_prices.get(n) is not None
               for n, s in cat.shapes.items())


def test_a_shape_that_can_attach_no_priced_type_says_so_not_capacity() -> None:
    """c4-standard-16 with Hyperdisk Extreme priced (issue 38) and Hyperdisk Balanced not: the plan said "no layout
    of at most 32 volumes holds 2,048 GB", a capacity reason; the true one is the type's vCPU minimum on C4.
    (Hyperdisk Balanced is priced since the third pass: its prices are taken out here.)"""
    gcp = load_catalog("gcp")
    unpriced = {"price_per_gb": None, "price_per_iops": None, "price_per_tput": None}
    cat = gcp.model_copy(update={"volume_types": {k: v.model_copy(update=unpriced) if k == "hyperdisk-balanced" else v
                                                  for k, v in gcp.volume_types.items()}})
    req = Requirements(cloud="gcp", capacity_gb=2048, target_iops=20_000, instance_shape="c4-standard-16")
    plan = make_plan(req, cat)
    assert plan.infeasible is not None
    assert "Hyperdisk Extreme needs at least 96 vCPUs on C4" in plan.infeasible.reason
    assert "holds 2,048 GB" not in plan.infeasible.reason
