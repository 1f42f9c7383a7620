"""The options `plan` and `fleet` share (how a layout is searched, priced and attached), parsed once into the
fields of a Requirements: one plan's, or the template every host of a fleet is planned from."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from blockfit.cli.common import (
    attachment,
    comma_list,
    io_size,
    latency_ms,
    memory_gb,
    ocpu_range,
    positive_int,
    redundancy_option,
)
from blockfit.errors import InputError
from blockfit.model.kinds.clouds import CLOUDS
from blockfit.schema import Requirements


@dataclass
class Shared:
    """The shared options as the command line gave them."""

    cloud: str | None = None
    catalog: str | None = None
    growth: float = 0.0
    max_latency: str | None = None
    small_io: str = "8k"
    large_io: str = "1m"
    levels: str | None = None
    max_volumes: int | None = None
    manager: str | None = None
    redundancy: str = "none"
    memory: str | None = None
    ocpus: str | None = None
    attach: str | None = None
    paths: int | None = None
    queue_depth: int | None = None

    def fields(self, cloud: str) -> dict[str, Any]:
        """The Requirements fields these options set, for CLOUD (the catalog's), checked."""
        if self.manager is not None and self.manager not in ("lvm", "mdadm", "asm"):
            raise InputError(f"--manager {self.manager!r}: expected lvm, mdadm or asm")
        redundancy, manager = redundancy_option(self.redundancy, self.manager)
        ocpus_min, ocpus_max = ocpu_range(self.ocpus)
        if not math.isfinite(self.growth) or self.growth < 0:
            raise InputError(f"--growth {self.growth:g}: expected a percentage of at least 0")
        return dict(cloud=cloud, growth_pct=self.growth, max_latency_ms=latency_ms(self.max_latency),
                    small_io=io_size(self.small_io, "--small-io"), large_io=io_size(self.large_io, "--large-io"),
                    levels=comma_list(self.levels, "--levels"),
                    max_volumes=positive_int(self.max_volumes, "--max-volumes"), manager=manager,
                    redundancy=redundancy, memory_gb=memory_gb(self.memory),
                    **CLOUDS[cloud].range_fields(ocpus_min, ocpus_max), attachment=attachment(self.attach),
                    paths=positive_int(self.paths, "--paths"),
                    queue_depth=session_depth_option(self.queue_depth, cloud))

    def requirements(self, cloud: str, **update: Any) -> Requirements:
        """A Requirements of these options for CLOUD, with UPDATE's fields (capacity, targets, instance, …)."""
        return Requirements(**{**self.fields(cloud), **update})


def session_depth_option(value: int | None, cloud: str) -> int | None:
    """--queue-depth: the iSCSI session depth plan and build assume (OCI's iSCSI attachments have sessions)."""
    entry = CLOUDS.get(cloud)
    if value is not None and entry is not None and not entry.iscsi_attachments:
        raise InputError(f"--queue-depth {value}: the iSCSI node.session.queue_depth plan models is OCI's; "
                         f"expected no --queue-depth for {cloud}")
    return positive_int(value, "--queue-depth")
