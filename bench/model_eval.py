"""Benchmark: model evaluations per second, scalar (full predict, fast ceilings) and vectorised (numpy over
member sizes), measured side by side; prints the ratios, which is what plan's search speed rests on.

    .venv/bin/python -m bench.model_eval
"""

from __future__ import annotations

import time

import numpy as np

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.model.instance import instance_at, instance_caps
from blockfit.model.kinds import KINDS
from blockfit.model.predict import ceilings
from blockfit.schema import Layout, Volume, Workload

SIZES = list(range(50, 32769, 16))


def main() -> None:
    cat = load_catalog("oci")
    vt = cat.volume_types["block"]
    inst = instance_at(cat, "VM.Standard.E4.Flex", 12)
    caps = instance_caps(cat, inst, "block")
    wl = Workload()

    t0 = time.perf_counter()
    for size in SIZES[:300]:
        predict(Layout(members=9, volume=Volume(cloud="oci", type="block", size_gb=size, vpu_per_gb=10)), inst, wl,
                cat, with_curve=False)
    full = 300 / (time.perf_counter() - t0)

    t0 = time.perf_counter()
    perfs = [KINDS[vt.kind].perf(cat, vt, Volume(cloud="oci", type="block", size_gb=s, vpu_per_gb=10)) for s in SIZES]
    scalar_iops = [ceilings(p, 9, caps, wl.small_io, wl.large_io)[0] for p in perfs]
    fast = len(SIZES) / (time.perf_counter() - t0)

    lvl = next(lv for lv in vt.levels if lv.vpu == 10)
    t0 = time.perf_counter()
    reps = 200
    for _ in range(reps):
        sizes = np.array(SIZES, dtype=float)
        member_iops = np.minimum(lvl.iops_per_gb * sizes, lvl.max_iops)
        member_mbps = np.minimum(lvl.kbps_per_gb * vt.kbps_unit_bytes * sizes / 1e6, lvl.max_mbps)   # KiB/s per GB
        vec_iops = np.minimum.reduce([9 * member_iops, 9 * member_mbps * 1e6 / wl.small_io,
                                      np.full_like(sizes, caps.iops or np.inf),
                                      np.full_like(sizes, (caps.mbps or np.inf) * 1e6 / wl.small_io)])
    vec = reps * len(SIZES) / (time.perf_counter() - t0)
    assert np.allclose(vec_iops, scalar_iops), "vectorised and scalar models disagree"
    print(f"full predict (limits, cost, warnings): {full:>12,.0f} evaluations/s   1.0x")
    print(f"scalar fast path (kinds + ceilings):  {fast:>12,.0f} evaluations/s   {fast / full:,.1f}x")
    print(f"vectorised numpy (OCI per-GB rule):    {vec:>12,.0f} evaluations/s   {vec / full:,.0f}x  (same results)")


if __name__ == "__main__":
    main()
