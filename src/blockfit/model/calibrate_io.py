"""Why a predicted MB/s and Oracle's CALIBRATE_IO max_mbps differ, said beside the prediction where a published
CALIBRATE_IO run on the same kind of volume shows the gap.

The prediction's MB/s is the lowest published cap: a ceiling. CALIBRATE_IO's max_mbps is a measurement of random
1 MB reads through the database, at a concurrency it picks itself from num_physical_disks (Oracle documents
neither the concurrency nor the run's length), so it lands at or under the ceiling, and how far under depends on
the host it ran on. The note states the measured figure and that reason; it never moves the prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

from blockfit.catalog.models import Catalog
from blockfit.schema import Prediction


@dataclass(frozen=True)
class CalibrateRun:
    """One published CALIBRATE_IO result: the layout and instance it ran on, its max_mbps and its settings."""

    cloud: str
    layout: str             # as blockfit spells it
    instance: str
    max_mbps: float
    settings: str
    depth: str              # the host's iSCSI queue depth during the run
    source: str             # the catalog source id


# The PROMATIS Part 1 field report: one 3.5 TB volume on a 6-OCPU E3.Flex, iSCSI at the kernel's queue depth 32.
RUNS = (
    CalibrateRun("oci", "1x3.5T@balanced", "VM.Standard.E3.Flex:6", 448,
                 "num_physical_disks 7, max_latency 20",
                 "node.session.queue_depth 32", "SEED-PART1"),
    CalibrateRun("oci", "1x3.5T@higher", "VM.Standard.E3.Flex:6", 468,
                 "num_physical_disks 7, max_latency 20",
                 "node.session.queue_depth 32", "SEED-PART1"),
)

VOLUME_CAP_ROWS = ("volume_mbps", "volume_mbps_cap")


def calibrate_io_notes(cat: Catalog, p: Prediction) -> list[str]:
    """The note comparing the predicted MB/s with a published CALIBRATE_IO max_mbps on the same layout and
    instance, when a volume cap sets the MB/s; [] otherwise."""
    if p.mbps_limited_by not in VOLUME_CAP_ROWS:
        return []
    run = next((r for r in RUNS if (r.cloud, r.layout, r.instance) == (cat.cloud, p.layout, p.instance)
                and r.source in cat.sources), None)
    if run is None:
        return []
    src = cat.cite_source(run.source)
    return [f"CALIBRATE_IO measured max_mbps {run.max_mbps:,.0f} on this layout and instance ({run.settings}, "
            f"{run.depth}; {src.url or src.id}, {src.date}), {p.max_mbps - run.max_mbps:,.0f} under the "
            f"{p.max_mbps:,.0f} MB/s here: that figure is the published volume cap, a ceiling, while CALIBRATE_IO "
            "measures random 1 MB reads through the database at a concurrency it picks from num_physical_disks "
            "(Oracle documents neither it nor the run), so it lands under the cap by what that host and run "
            "allowed; the report does not show what held it there. 'blockfit calibrate' measures the comparable "
            "figure on the host."]
