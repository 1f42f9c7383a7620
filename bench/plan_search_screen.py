"""Benchmark: plan's search with its pair screen against the same search walking every pair, side by side.

Each (volume option, member count) pair of a search starts with the same test in cheapest_for: its storage floor
plus the cheapest compute above the bound ends it. The screen (plan/search.py, `search(screen=True)`) answers that
test from tables kept with the catalog and leaves an option once its smallest members already cost too much; the
walk (`screen=False`) takes every pair through cheapest_for, as plan did before. For each case, per-shape searches
as `plan --instance any` and the tests' per-shape answers run them (every current priced shape of the cloud with
--min-memory, ranked_points = search(keep=20)), timed in CPU seconds of this process (time.process_time: the load
of other processes does not count). Prints both answers (they must be the same points in the same order) and the
ratio.

    .venv/bin/python -m bench.plan_search_screen
"""

from __future__ import annotations

import time

from blockfit.catalog import Catalog, load_catalog
from blockfit.errors import InputError
from blockfit.plan.evaluate import Evaluator, Point
from blockfit.plan.search import search
from blockfit.plan.shapes import ANY, ShapeQuery, candidate_shapes
from blockfit.plan.space import default_space
from blockfit.schema import Requirements
from blockfit.schema.plan import OPEN_COUNT

CASES = [  # (cloud, capacity GB, target IOPS, --min-memory GB)
    ("aws", 2000, 20_000, 128), ("aws", 5000, None, 256), ("azure", 2000, 20_000, 128),
    ("azure", 8000, 40_000, 600), ("gcp", 3000, 30_000, 64),
]


KEPT: list[Catalog] = []   # every copy stays alive: its derived values are keyed by its id


def every_shape(cloud: str, capacity: int, iops: int | None, memory: int, screen: bool) -> list[list[Point]]:
    cat = load_catalog(cloud).model_copy()   # a copy keeps derived values of its own: nothing carried over
    KEPT.append(cat)
    req = Requirements(cloud=cloud, capacity_gb=capacity, target_iops=iops, instance_shape=ANY,
                       memory_gb=float(memory))
    names, _ = candidate_shapes(cat, ShapeQuery(ANY, min_memory_gb=memory), req)
    out = []
    for name in names:
        sreq = req.model_copy(update={"instance_shape": name, **OPEN_COUNT})
        try:
            space = default_space(cat, sreq)
        except InputError:
            continue
        out.append(search(Evaluator(cat, sreq, space), space, keep=20, screen=screen))
    return out


def main() -> None:
    total = {True: 0.0, False: 0.0}
    for cloud, capacity, iops, memory in CASES:
        answers, seconds = {}, {}
        for screen in (False, True):
            started = time.process_time()
            answers[screen] = every_shape(cloud, capacity, iops, memory, screen)
            seconds[screen] = time.process_time() - started
            total[screen] += seconds[screen]
        same = answers[True] == answers[False]
        best = min((p[0].cost for p in answers[True] if p), default=None)
        print(f"{cloud} {capacity} GB {iops or '-'} IOPS >= {memory} GB memory: {len(answers[True])} shapes, "
              f"cheapest ${best:,.2f}; walk {seconds[False]:.2f} s, screen {seconds[True]:.2f} s CPU, "
              f"ratio {seconds[False] / max(seconds[True], 1e-9):.1f}x, same points: {same}")
        assert same, (cloud, capacity, iops, memory)
    print(f"all cases: walk {total[False]:.1f} s, screen {total[True]:.1f} s CPU, "
          f"ratio {total[False] / max(total[True], 1e-9):.1f}x")


if __name__ == "__main__":
    main()
