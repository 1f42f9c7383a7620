"""Whether an instance's own caps (volumes unlimited) could carry a workload's targets with any volume type: the
question a caller asks before spending a full search that would only explain why nothing fits."""

from __future__ import annotations

from blockfit.catalog import Catalog
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.space import default_space
from blockfit.schema import Requirements


def instance_allows(req: Requirements, cat: Catalog) -> bool:
    """Could the instance alone (volumes unlimited) carry the targets with any volume type?"""
    space = default_space(cat, req)
    ev = Evaluator(cat, req, space)
    return any(ev.instance_floor(option) is not None for option in space.options)
