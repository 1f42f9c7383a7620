"""Benchmark: plan's exact search versus brute force over the full OCI space, side by side.

Space: all 13 OCI block-volume levels x 1-32 members x sizes 50 GB-32 TB (1 GB steps) x OCPUs 1-64 on
VM.Standard.E4.Flex (about 870 million layouts), ranked by total monthly cost (storage + compute at the
shape's minimum memory, 730 h a month). The brute force is vectorised with numpy over sizes
(member caps and prices come from the same model code, once per level and size) so it finishes; it
checks every point. Prints both cheapest costs (they must agree) and the time ratio.

    .venv/bin/python -m bench.plan_search
"""

from __future__ import annotations

import time

import numpy as np

from blockfit.catalog import load_catalog
from blockfit.plan import make_plan
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.search import search
from blockfit.plan.space import default_space
from blockfit.schema import Requirements
from blockfit.schema.cost import COPIES

CASES = [
    Requirements(cloud="oci", capacity_gb=4608, target_iops=150_000, small_io=8192,
                 instance_shape="VM.Standard.E4.Flex"),
    Requirements(cloud="oci", capacity_gb=2000, target_iops=400_000, target_mbps=3000,
                 instance_shape="VM.Standard.E4.Flex"),
    Requirements(cloud="oci", capacity_gb=2000, target_iops=100_000, read_pct=30, redundancy="normal",
                 instance_shape="VM.Standard.E4.Flex"),
]


def brute_force_vectorised(ev: Evaluator) -> float | None:
    req, space = ev.req, ev.space
    best = np.inf
    for option in space.options:
        sizes = np.array(space.sizes[option.type], dtype=float)
        members = [ev.member(option, int(s)) for s in sizes]
        ok = np.array([m is not None and m.cost is not None for m in members])
        iops_m = np.array([m.perf.iops if m else 0.0 for m in members])
        mbps_m = np.array([m.perf.mbps if m else 0.0 for m in members])
        cost_m = np.array([m.cost if m and m.cost is not None else np.inf for m in members])
        acct = next((m.perf.accounting_bytes for m in members if m), None)
        split_s = max(-(-req.small_io // acct), 1) if acct else 1
        split_l = max(-(-req.large_io // acct), 1) if acct else 1
        for n in space.members:
            for ocpus in space.ocpus:
                caps = ev.caps(ocpus, option.type)
                if caps.attach_max is not None and n > caps.attach_max:
                    continue
                vt = ev.cat.volume_types[option.type]
                one_path = caps.uhp_ok is False and vt.path_max_iops is not None   # no multipath: 1 iSCSI path
                iops_p = np.minimum(iops_m, vt.path_max_iops) if one_path else iops_m
                mbps_p = np.minimum(mbps_m, vt.path_max_mbps or np.inf) if one_path else mbps_m
                # caps on reads + writes together carry cap / amp logical I/Os; the network, per direction,
                # cap / busier (mirrored writes x copies: model/redundancy.py)
                amp, busier = ev.amp, max(req.read_share, (1 - req.read_share) * COPIES[req.redundancy])
                iops = np.minimum(n * iops_p / split_s, n * mbps_p * 1e6 / req.small_io) / amp
                mbps = np.minimum(n * iops_p / split_l * req.large_io / 1e6, n * mbps_p) / amp
                if caps.iops is not None:
                    iops = np.minimum(iops, caps.iops / amp)
                    mbps = np.minimum(mbps, caps.iops / amp * req.large_io / 1e6)
                if caps.mbps is not None:
                    iops = np.minimum(iops, caps.mbps / busier * 1e6 / req.small_io)
                    mbps = np.minimum(mbps, caps.mbps / busier)
                feasible = ok & (n * sizes >= req.needed_gb - 1e-9)
                if req.target_iops is not None:
                    feasible &= iops >= req.target_iops
                if req.target_mbps is not None:
                    feasible &= mbps >= req.target_mbps
                if feasible.any():
                    best = min(best, float((n * cost_m[feasible]).min()) + ev.compute_or_zero(ocpus))
    return None if best == np.inf else best


def main() -> None:
    cat = load_catalog("oci")
    for req in CASES:
        space = default_space(cat, req)
        points = sum(len(space.sizes[o.type]) for o in space.options) * len(space.members) * len(space.ocpus)
        t0 = time.perf_counter()
        found = search(Evaluator(cat, req, space), space, keep=1)
        t_search = time.perf_counter() - t0
        t0 = time.perf_counter()
        plan = make_plan(req, cat)
        t_plan = time.perf_counter() - t0
        t0 = time.perf_counter()
        brute = brute_force_vectorised(Evaluator(cat, req, space))
        t_brute = time.perf_counter() - t0
        cheapest = found[0].cost if found else None
        agree = (cheapest is None and brute is None) or (
            cheapest is not None and brute is not None and abs(cheapest - brute) < 1e-6)
        print(f"target {req.target_iops or 0:,.0f} IOPS / {req.target_mbps or 0:,.0f} MB/s / {req.capacity_gb:,.0f} GB "
              f"on {req.instance_shape}: {points:,} layouts")
        print(f"  search cheapest ${cheapest:,.2f}  brute force cheapest ${brute:,.2f}  agree={agree}")
        print(f"  brute force / search time ratio: {t_brute / t_search:,.0f}x   "
              f"(full plan incl. predictions and Pareto: {t_plan:.2f} s; search alone {t_search:.3f} s)")
        first = plan.candidates[0]
        print(f"  first candidate: {first.layout} on {first.instance}: ${first.ranked_cost:,.2f}/month "
              f"(storage ${first.cost.storage if first.cost else 0:,.2f} + compute "
              f"${(first.cost.compute or 0) if first.cost else 0:,.2f})")
        print(f"  full OCI space with compute in the objective planned in {t_plan:.2f} s "
              f"({'<=' if t_plan <= 1 else '>'} 1 s)")


if __name__ == "__main__":
    main()
