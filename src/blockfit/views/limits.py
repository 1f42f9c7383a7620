"""The words for a prediction's binding limit (`iops_limited_by`, `mbps_limited_by`), one spelling for every
terminal view that names one."""

from __future__ import annotations

LIMIT_LABELS = {
    "instance_mbps": "instance throughput",
    "instance_iops": "instance IOPS",
    "host_queue_depth": "host queue depth",
    "outstanding_ios": "outstanding I/Os",
}


def limit_label(name: str) -> str:
    """'instance_mbps' -> 'instance throughput'; a name without its own label spelt out ('member_iops_per_gb' ->
    'member IOPS per GB')."""
    return LIMIT_LABELS.get(name, name.replace("per_gb", "per GB").replace("_", " ").replace("mbps", "throughput")
                            .replace("iops", "IOPS"))
