"""Azure host caching (ReadOnly) on a layout's members: which disks may take it, and the caps it changes.

Azure counts a read that hits the host cache toward the VM's cached limit only; a miss and every write count
toward both the cached and the uncached limit, and reach the disk. The hit ratio is the workload's, not the
catalog's, so the model takes every read as a hit: the upper bound caching can give. The disks and the VM's
uncached cap then carry the writes alone, the cached cap reads and writes together.
"""

from __future__ import annotations

import dataclasses

from blockfit.catalog import Catalog
from blockfit.catalog.models import VolumeType
from blockfit.errors import ValueProblem
from blockfit.model.instance import InstanceCaps
from blockfit.model.limits import Cap
from blockfit.schema import Citation, Layout

CACHED_IOPS = "instance_cached_iops"
CACHED_MBPS = "instance_cached_mbps"
# the caps a cache hit never reaches: the disks' own and the VM's uncached ones (model/limits.py names)
_MISSED_BY_HITS = ("volume_", "instance_iops", "instance_mbps")


def cached(layout: Layout) -> bool:
    return layout.host_caching == "readonly"


def check_host_caching(cat: Catalog, vt: VolumeType, layout: Layout) -> None:
    """ReadOnly host caching on a type that takes none (Premium SSD v2, Ultra) or on a disk too large for it is an
    input error naming the source."""
    if not cached(layout):
        return
    limit = vt.host_caching_max_gb
    if limit is None:
        takes = [t.name for t in cat.volume_types.values() if t.host_caching_max_gb is not None]
        raise ValueProblem(f"readonly: {vt.name} disks take no host caching; expected none"
                           + (f" or a {' / '.join(takes)} layout" if takes else ""))
    if layout.volume.size_gb > limit:
        raise ValueProblem(f"readonly: a {layout.volume.size_gb:g} GiB {vt.name} disk is too large for host caching "
                           f"(at most {limit:g} GiB, {cat.cite(vt, 'host_caching_max_gb')}); expected none or smaller "
                           "disks")


def apply(caps: list[Cap], ic: InstanceCaps, read_share: float, copies: int) -> list[Cap]:
    """The caps with every read a cache hit: the disks' and the uncached caps carry the writes (x copies) alone,
    dropped when there are none; the cached caps carry everything. Before redundancy.logical_limits, which divides
    every cap but the uncached MB/s one by reads + writes x copies (that one, instance_caps_list already did)."""
    if ic.iops_cached is None and ic.mbps_cached is None:
        return caps
    amp = read_share + (1 - read_share) * copies
    writes = (1 - read_share) * copies
    out = []
    for cap in caps:
        if not cap.name.startswith(_MISSED_BY_HITS):
            out.append(cap)
        elif writes > 0:
            k = amp / writes
            out.append(dataclasses.replace(
                cap, ops=None if cap.ops is None else cap.ops * k, mbps=None if cap.mbps is None else cap.mbps * k,
                description=f"{cap.description}; writes only ({100 * writes / amp:.3g} % of the I/Os), every read "
                            "a cache hit"))
    sources = _distinct(ic.cached_cites)
    size = f", {ic.cache_gb:,.0f} GiB cache" if ic.cache_gb else ""
    if ic.iops_cached is not None:
        out.append(Cap(CACHED_IOPS, f"instance cached IOPS (host caching ReadOnly{size}; reads and writes)",
                       ops=ic.iops_cached, sources=sources))
    if ic.mbps_cached is not None:
        out.append(Cap(CACHED_MBPS, f"instance cached throughput (host caching ReadOnly{size}; reads and writes)",
                       mbps=ic.mbps_cached, sources=sources))
    return out


def warnings(layout: Layout, ic: InstanceCaps, shape: str) -> list[str]:
    """What the prediction assumes under host caching, or why the cache is not modelled."""
    if not cached(layout):
        return []
    if ic.iops_cached is None and ic.mbps_cached is None:
        return [f"{shape}: its cached limits were not found in the sources read (the size page lists uncached "
                "limits only); host caching is not modelled: every read is counted as uncached."]
    return ["Host caching ReadOnly: every read is taken as a cache hit, the upper bound caching gives; a miss also "
            "counts against the disks and the VM's uncached limit, so a workload whose reads miss gets less."]


def _distinct(cites: list[Citation]) -> list[Citation]:
    out: list[Citation] = []
    for c in cites:
        if c not in out:
            out.append(c)
    return out
