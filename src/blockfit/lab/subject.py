"""What a lab run emulates, resolved from its target: a module of its own so that the build scripts
(`lab.buildscripts`) and the run (`lab.run`) both use it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from blockfit.catalog.models import Catalog
from blockfit.schema import Instance, Layout, Prediction

Direction = Literal["read", "write"]


@dataclass
class Subject:
    """What the lab emulates: the stripe, its single-volume alternative, the instance, and their predictions."""

    cloud: str
    layout: Layout
    instance: Instance
    stripe: Prediction
    single: Prediction | None
    stripe_size: int
    direction: Direction = "read"  # write: a mirrored layout, measured for what mirroring costs (writes)
    cat: Catalog | None = None  # the catalog the predictions used (--catalog); None: the newest shipped
