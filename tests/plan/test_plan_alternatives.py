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
