"""Plans on a volume type the catalog has no price for (Azure Premium SSD v2, named with --levels): the
cost of every layout of it is unknown, so nothing ties within 1 % of a total and no front can be ordered by cost.
The plan ranks them on performance (known compute, then the fewest volumes, then the least provisioned), leaves
them out of "what each extra dollar buys" and says why, and answers in well under a second of search.

Since issue 38 every shipped volume type has a price, so these tests plan on the newest Azure catalog with Premium
SSD v2's prices taken out (written as a catalog file, as `blockfit catalog import` writes one)."""

import dataclasses
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog, load_catalog_file, raw_catalog
from blockfit.catalog.toml_out import dumps
from blockfit.plan import make_plan
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.planner import dominates, ranked_points
from blockfit.plan.search import brute_force, rank_key, search
from blockfit.plan.space import default_space
from blockfit.schema import Requirements


def without_premium_v2_prices(folder: Path) -> Path:
    """The newest Azure catalog, Premium SSD v2 unpriced: its price fields and their source entries removed."""
    raw = raw_catalog(load_catalog("azure"))
    vt = raw["volume_types"]["premium-v2"]
    for field in ("price_per_gb", "price_per_iops", "price_per_tput", "price_region"):
        vt.pop(field, None)
        vt.get("sources", {}).pop(field, None)
    path = folder / "azure-unpriced.toml"
    path.write_text(dumps(raw, "the newest Azure catalog with Premium SSD v2 unpriced (a test fixture)"))
    return path


# read once at import from a folder removed at once: a killed run leaves no file behind
with tempfile.TemporaryDirectory(prefix="blockfit-unpriced-") as _folder:
    AZURE = load_catalog_file(str(without_premium_v2_prices(Path(_folder))))


@pytest.fixture(scope="module")
def unpriced_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return without_premium_v2_prices(tmp_path_factory.mktemp("unpriced"))


def req(level: str, shape: str = "Standard_E32s_v5", iops: int = 40_000, capacity: int = 4096,
        max_volumes: int | None = None) -> Requirements:
    return Requirements(cloud="azure", capacity_gb=capacity, instance_shape=shape, target_iops=iops,
                        levels=level.split(","), max_volumes=max_volumes)


def cli(catalog: Path, *args: str) -> subprocess.CompletedProcess[str]:
    case = ["plan", "--cloud", "azure", "--capacity", "4T", "--instance", "Standard_E32s_v5", "--target-iops", "40000",
            "--catalog", str(catalog)]
    return subprocess.run([sys.executable, "-m", "blockfit", *case, *args], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("level", ["premium-v2"])
@pytest.mark.parametrize(("iops", "capacity"), [(40_000, 4096), (150_000, 2048), (12_000, 300)])
def test_the_recommendation_is_the_first_of_the_whole_space_in_the_stated_order(level, iops, capacity):
    """Brute force over a few sizes around the capacity, every provisioning step and up to 6 members: the plan's
    recommendation has the fewest volumes any feasible layout has, and of those the least provisioned."""
    r = req(level, iops=iops, capacity=capacity, max_volumes=6)
    full = default_space(AZURE, r)
    assert level in full.unknown_price
    keep = {capacity // m + d for m in range(1, 7) for d in (0, 1, 64)} | {capacity, 2 * capacity}
    space = dataclasses.replace(full, sizes={level: [s for s in full.sizes[level] if s in keep]})
    every = brute_force(Evaluator(AZURE, r, space), space)
    if not every:
        assert not ranked_points(Evaluator(AZURE, r, space), space)
        return
    first = ranked_points(Evaluator(AZURE, r, space), space)[0]
    assert rank_key(first) == min(rank_key(p) for p in every)
    fewest = min(p.members for p in every)
    assert first.members == fewest
    assert first.units == min(p.units for p in every if p.members == fewest)


def test_the_search_passes_over_layouts_with_more_volumes_without_searching_them():
    """The issue's case searched 3,840 (provisioning, member count) pairs, 69,636 evaluations, 4.9 s: every layout
    of the unpriced type tied within 1 % of the compute price. Counted, not timed (the machine is shared)."""
    r = req("premium-v2")
    space = default_space(AZURE, r)

    class Counting(Evaluator):
        calls = 0

        def evaluate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return super().evaluate(*args, **kwargs)

    found = search(Counting(AZURE, r, space), space, keep=20)
    assert found and all(p.members == 1 for p in found)
    assert Counting.calls < 2_000, Counting.calls


@pytest.mark.parametrize("level", ["premium-v2"])
def test_plan_json_ranks_on_performance_and_leaves_the_unpriced_out_of_the_front(level, unpriced_file):
    out = cli(unpriced_file, "--levels", level, "--json")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    cands = plan["candidates"]
    assert plan["feasible"] and cands and all(c["meets_targets"] for c in cands)
    assert all(c["prediction"]["cost"]["storage"] is None for c in cands)
    members = [c["prediction"]["layout_detail"]["members"] for c in cands]
    assert members == sorted(members) and members[0] == 1        # 1 x 4 TiB holds 40,000 IOPS: no stripe
    assert cands[0]["prediction"]["max_iops"] >= 40_000
    assert plan["pareto"] == []
    assert any(n.startswith(f"What each extra dollar buys: {level} left out") for n in plan["notes"])
    assert not any(n.startswith("Ties:") for n in plan["notes"])


def test_plan_text_says_how_it_ranked_and_shows_no_cost_ordered_table(unpriced_file):
    out = cli(unpriced_file, "--levels", "premium-v2")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert ("storage price unknown (a group of their own, not ranked by cost): known compute cost, then fewest "
            "volumes, then least provisioned first") in text
    assert "What each extra dollar buys (Pareto" not in text
    assert "What each extra dollar buys: premium-v2 left out (no price in the catalog" in text
    assert "Recommended: 1x4T@premium-v2:" in text


def test_with_a_priced_type_beside_it_the_front_holds_the_priced_layouts_only():
    """--levels premium-v1,premium-v2: Premium SSD v1 has prices, v2 has none. The front is made of v1 layouts,
    ordered by total cost, none dominated; the v2 layouts are left out and the note says so. The priced v1 layout
    is recommended, the v2 ones follow as their own group (issue 37: known before unknown)."""
    plan = make_plan(req("premium-v1,premium-v2", shape="Standard_E16s_v5", iops=20_000, capacity=2048), AZURE)
    assert plan.feasible and plan.candidates[0].cost.storage is not None
    assert plan.candidates[-1].cost.storage is None    # v2: ranked on performance, after the priced ones
    front = plan.pareto
    assert front and all(c.cost.storage is not None and c.layout_detail.volume.type == "premium-v1" for c in front)
    assert [c.ranked_cost for c in front] == sorted(c.ranked_cost for c in front)
    assert not any(dominates(a, b) for a in front for b in front if a is not b)
    assert any("premium-v2 left out" in n and f"{len(front)} priced layouts shown" in n for n in plan.notes)


def test_a_priced_plan_keeps_its_tie_rule_and_front():
    plan = make_plan(req("premium-v1", shape="Standard_E16s_v5", iops=20_000, capacity=2048), AZURE)
    assert any(n.startswith("Order: recommended first. Layouts within 1 %") for n in plan.notes)
    assert not any("left out (no price" in n for n in plan.notes)
    assert (plan.candidates[0].layout, plan.candidates[0].instance) in {(c.layout, c.instance) for c in plan.pareto}
