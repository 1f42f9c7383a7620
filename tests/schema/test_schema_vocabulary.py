"""One vocabulary (issue 22): every result carries kind and schema_version, the published JSON Schemas are the
models' own, and what the commands emit validates against them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from blockfit.cli import app
from blockfit.schema.export import json_schemas, schema_text
from blockfit.schema.kinds import RESULT_TYPES
from blockfit.schema.result import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "docs" / "schema"
runner = CliRunner()


def test_published_schemas_are_the_models_own() -> None:
    """docs/schema/<kind>.json is exactly what `python -m blockfit.schema.export` writes today."""
    for kind, schema in json_schemas().items():
        path = SCHEMA_DIR / f"{kind}.json"
        assert path.exists(), f"{path} missing: run python -m blockfit.schema.export docs/schema"
        assert path.read_text() == schema_text(schema), f"{path} is stale: run python -m blockfit.schema.export"
    assert {p.stem for p in SCHEMA_DIR.glob("*.json")} == set(RESULT_TYPES)


def _emit(*args: str, exit_code: int = 0) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == exit_code, result.output
    return json.loads(result.stdout)


def _validates(data: dict) -> None:
    assert data["kind"] in RESULT_TYPES and data["schema_version"] == SCHEMA_VERSION
    jsonschema.validate(data, json_schemas()[data["kind"]])


@pytest.mark.parametrize("args", [
    ["model", "--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12"],
    ["model", "--cloud", "aws", "--layout", "4x500G@gp3:6000:250", "--instance", "r6i.4xlarge", "--read-pct", "70"],
    ["plan", "--example", "part3"],
    ["plan", "--cloud", "azure", "--capacity", "4T", "--instance", "Standard_E16s_v5", "--target-iops", "20000"],
])
def test_emitted_results_validate_against_their_schema(args: list[str]) -> None:
    _validates(_emit(*args))


def test_an_infeasible_plan_is_a_plan_result_with_its_explanation() -> None:
    """Finding 4: the --json of an infeasible plan had no kind (report refused it); now it is a plan with
    feasible false, its reason, the best reached and priced alternatives, exit 3."""
    data = _emit("plan", "--cloud", "oci", "--capacity", "4.5T", "--instance", "VM.Standard.E3.Flex:12",
                 "--target-iops", "500000", exit_code=3)
    _validates(data)
    assert data["feasible"] is False and data["candidates"] == []
    inf = data["infeasible"]
    assert "500,000 IOPS" in inf["reason"]
    assert inf["best"]["prediction"]["max_iops"] < 500_000
    for alt in inf["alternatives"]:
        assert alt["meets_targets"] is True
        assert alt["prediction"]["cost"]["total"] is not None   # priced shapes only, at total cost


def test_the_read_share_is_a_percentage_everywhere() -> None:
    """Finding 2: read_fraction (0-1) beside --read-pct and history.read_pct (0-100); now read_pct only."""
    model = _emit("model", "--cloud", "oci", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E4.Flex:8",
                  "--read-pct", "70")
    plan = _emit("plan", "--cloud", "oci", "--capacity", "2T", "--instance", "VM.Standard.E4.Flex:8",
                 "--target-iops", "20000", "--read-pct", "70")
    assert model["workload"]["read_pct"] == 70
    assert plan["requirements"]["read_pct"] == 70
    assert plan["candidates"][0]["prediction"]["workload"]["read_pct"] == 70
    for text in (json.dumps(model), json.dumps(plan)):
        assert "read_fraction" not in text


def test_one_cost_shape_in_model_and_plan() -> None:
    """Finding 2: cost_per_month was storage in model and storage + compute in plan; cost a list in one, a dict
    in the other. Now one Cost, and the plan's recommendation costs what model says for the same layout."""
    plan = _emit("plan", "--example", "part3")
    best = plan["candidates"][0]
    model = _emit("model", "--cloud", "oci", "--layout", best["layout"], "--instance", best["instance"],
                  "--queue-depth", "128")
    for data in (plan, model):
        text = json.dumps(data)
        assert "cost_per_month" not in text and '"costs"' not in text
    assert model["cost"] == best["prediction"]["cost"]
    assert model["cost"]["total"] == pytest.approx(model["cost"]["storage"] + model["cost"]["compute"], abs=0.01)
    assert model["max_iops"] == best["prediction"]["max_iops"]
    assert model["iops_limited_by"] == best["prediction"]["iops_limited_by"]


def test_stripe_size_is_bytes_everywhere() -> None:
    """Finding 2: stripe_size was "1m" in a candidate and 1048576 in its layout_detail."""
    best = _emit("plan", "--example", "part3")["candidates"][0]
    assert "stripe_size_bytes" not in best
    assert isinstance(best["prediction"]["layout_detail"]["stripe_size"], int)


def test_no_user_visible_source_is_a_path_of_this_repository() -> None:
    """Finding 6: sources cited ../shared/seeds/... ; every cited source is a public URL (or a stated
    assumption of blockfit's own, with no URL)."""
    for args in (["model", "--cloud", "oci", "--layout", "1x3.5T@higher", "--instance", "VM.Standard.E3.Flex:12"],
                 ["model", "--cloud", "aws", "--layout", "2x1T@gp3", "--instance", "m6i.4xlarge"]):
        data = _emit(*args)
        for row in data["limits"]:
            for src in row["sources"]:
                assert src["url"] is None or src["url"].startswith("https://"), src
        assert "shared/" not in json.dumps(data) and "seeds/" not in json.dumps(data)
