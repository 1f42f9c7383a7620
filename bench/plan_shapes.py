"""Benchmark: `plan --instance any` (every current family of the wide AWS catalog) against planning every shape.

The shipped AWS catalog prices only 21 of its sizes, so the bench first imports a catalog that prices all of them:
files in the real describe-instance-types and Price List layouts (tests/support/catalog_files.py) carrying each shipped
size's own EBS figures, with vCPUs and memory from the size's name and a price of $0.05 per vCPU-hour times a
family factor (invented: this measures speed, it is not a price list). Then, per target, side by side in one run:

- search: `plan_shapes` (branch and bound over shapes, exact search per shape, the winner planned in full), as
  `blockfit plan --cloud aws --instance any --catalog FILE` runs it;
- every: the cheapest of `search(keep=1)` over every shape (what the answer must equal; only the per-shape
  searches, not a full plan per shape, so it undercounts planning every shape);

CPU time (time.process_time) of this process, so other engineers' load on the machine does not count; the CLI
adds its start-up (imports, about 1.5 s CPU here) on top. Prints the answers (they must be equal), the times and
their ratio.

    .venv/bin/python -m bench.plan_shapes
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
import time
from pathlib import Path

from blockfit.catalog import load_catalog, load_catalog_file
from blockfit.catalog.importers import import_catalog
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.planner import ranked_points
from blockfit.plan.shapes import ANY, ShapeQuery, candidate_shapes, plan_shapes
from blockfit.plan.space import default_space
from blockfit.schema import Requirements

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.catalog_files import aws_price_list, aws_type, aws_types, write  # noqa: E402

GB_PER_VCPU = {"r": 8, "x": 16, "m": 4, "c": 2}
SIZE_VCPUS = {"medium": 1, "large": 2, "xlarge": 4, "metal": 192}

CASES = [
    ("2 TB, 20,000 IOPS", Requirements(cloud="aws", capacity_gb=2048, target_iops=20_000, instance_shape=ANY)),
    ("8 TB, 80,000 IOPS, 2,000 MB/s, 70 % reads",
     Requirements(cloud="aws", capacity_gb=8192, target_iops=80_000, target_mbps=2000, read_pct=70,
                  instance_shape=ANY)),
    ("1 TB, 5,000 IOPS", Requirements(cloud="aws", capacity_gb=1024, target_iops=5000, instance_shape=ANY)),
]


def vcpus_of(name: str) -> int:
    size = name.split(".")[1]
    m = re.fullmatch(r"(?:metal-)?(\d+)xl(?:arge)?", size)
    return 4 * int(m.group(1)) if m else SIZE_VCPUS.get(size, 4)


def wide_catalog(where: Path) -> Path:
    shipped = load_catalog("aws")
    types, prices = [], {}
    for name, s in shipped.shapes.items():
        if s.iops is None or s.mbps is None:
            continue
        vcpus = vcpus_of(name)
        per_gb = GB_PER_VCPU.get(name[0], 4)
        types.append(aws_type(name, vcpus, vcpus * per_gb * 1024, s.mbps, int(s.iops), s.mbps_burst or s.mbps,
                              int(s.iops_burst or s.iops), attachments=s.attach_max or 32))
        prices[name] = round(0.05 * vcpus * (1 + per_gb / 16) * (1.1 if "7" in name else 1.0), 4)
    files = [write(where / "types.json", aws_types(types)), write(where / "prices.json",
                                                                    aws_price_list("us-east-1", prices))]
    out = where / "aws-wide.toml"
    import_catalog("aws", files, out, shipped)
    return out


def every_shape(req: Requirements, cat_names: list[str], cat) -> tuple[float, str] | None:  # type: ignore[no-untyped-def]
    best: tuple[float, str] | None = None
    for name in cat_names:
        sreq = req.model_copy(update={"instance_shape": name})
        space = default_space(cat, sreq)
        found = ranked_points(Evaluator(cat, sreq, space), space)   # what make_plan on the shape recommends
        if found and (best is None or found[0].cost < best[0] - 1e-9):
            best = (found[0].cost, name)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="blockfit-bench-shapes-") as tmp:
        cat = load_catalog_file(str(wide_catalog(Path(tmp))))
        print(f"wide catalog: {len(cat.shapes)} AWS shapes, {len(cat.compute_prices)} priced")
        for label, req in CASES:
            names, _left = candidate_shapes(cat, ShapeQuery(ANY), req)
            t0 = time.process_time()
            plan = plan_shapes(req, cat, ShapeQuery(ANY))
            t_search = time.process_time() - t0
            t0 = time.process_time()
            ref = every_shape(req, names, cat)
            t_every = time.process_time() - t0
            got = plan.candidates[0]
            total = got.ranked_cost
            assert plan.instance_search is not None
            same = ref is not None and math.isclose(total, ref[0], abs_tol=0.01)
            print(f"{label}: search {got.instance} ${total:,.2f} in {t_search:.2f} s CPU "
                  f"({plan.instance_search.planned} of {len(names)} shapes searched); every shape "
                  f"{ref[1] if ref else None} ${ref[0] if ref else math.nan:,.2f} in {t_every:.2f} s CPU; "
                  f"{'equal' if same else 'DIFFERENT'}; every / search = {t_every / t_search:.1f}x")
            if not same:
                raise SystemExit(1)


if __name__ == "__main__":
    main()
