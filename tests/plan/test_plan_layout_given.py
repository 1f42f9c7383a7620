"""plan --layout: one layout judged against the targets, with the figures a searched candidate has (the same
predict, the same judge); build --layout writes the same one-candidate plan through the same code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.plan.advice import workload
from blockfit.plan.planner import meets_targets
from blockfit.schema import Plan
from blockfit.specs import parse_instance, parse_layout
from support.inproc import run

GIVEN = ["plan", "--cloud", "oci", "--layout", "9x500G@balanced", "--stripe-size", "4m",
         "--instance", "VM.Standard.E3.Flex:12"]


def test_the_authors_layout_has_the_figures_model_gives(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*GIVEN, "--target-iops", "150000", "--json"], capsys)
    assert code == 0, err
    plan = Plan.model_validate_json(out)
    (cand,) = plan.candidates
    cat = load_catalog("oci")
    req = plan.requirements
    pred = predict(parse_layout("9x500G@balanced", "oci", cat, stripe_size=4 * 1024 ** 2),
                   parse_instance("VM.Standard.E3.Flex:12", "oci", cat), workload(req), cat)
    assert (cand.max_iops, cand.max_mbps, cand.cost.total) == (pred.max_iops, pred.max_mbps, pred.cost.total)
    assert cand.layout_detail.stripe_size == 4 * 1024 ** 2 and "--stripe-size 4m" in cand.stripe_reason
    assert req.capacity_gb == 4500 and req.target_iops == 150000
    assert cand.meets_targets and meets_targets(cand.prediction, req)
    assert any(n.startswith("Assumes the host as 'blockfit build' sets it") for n in plan.notes)


def test_a_target_the_layout_misses_is_infeasible_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*GIVEN, "--target-iops", "200000", "--capacity", "4.5T", "--json"], capsys)
    assert code == 3
    plan = json.loads(out)
    assert not plan["feasible"] and plan["candidates"] == []
    missed = plan["infeasible"]["missed"]
    best = plan["infeasible"]["best"]["prediction"]
    assert missed[0].startswith("4,608 GB usable (it holds 4,500)")
    assert missed[1].startswith(f"200,000 IOPS (best {best['max_iops']:,.0f}")
    code, _, err = run([*GIVEN, "--target-iops", "200000"], capsys)
    assert code == 3 and "blockfit: infeasible: the layout given, 9x500G@balanced" in err


def test_the_plan_written_builds_like_build_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([*GIVEN, "--target-iops", "150000", "--out", str(tmp_path / "p.json")], capsys)
    assert code == 0, err
    devices = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghij")
    scripts = []
    for source in (["--plan", str(tmp_path / "p.json")],
                   ["--layout", "9x500G@balanced", "--cloud", "oci", "--instance", "VM.Standard.E3.Flex:12",
                    "--stripe-size", "4m"]):
        out = tmp_path / f"b{len(scripts)}"
        code, _, err = run(["build", *source, "--manager", "lvm", "--devices", devices, "--out", str(out)], capsys)
        assert code == 0, err
        scripts.append(sorted((p.name, p.read_text()) for p in out.glob("*.sh")))
    assert scripts[0] and scripts[0] == scripts[1]
    readme = (tmp_path / "b0" / "README.md").read_text()
    assert "lvcreate --stripes 9 --stripesize 4096k" in readme


@pytest.mark.parametrize("extra,option", [(["--levels", "balanced"], "--levels"), (["--family", "E4"], "--family"),
                                          (["--allow-hdd"], "--allow-hdd"), (["--max-volumes", "4"], "--max-volumes")])
def test_search_options_are_refused_beside_a_layout(extra: list[str], option: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([*GIVEN, "--target-iops", "1000", *extra], capsys)
    assert code == 2 and err.startswith(f"blockfit: error: {option}: goes with a search") and "Traceback" not in err


def test_an_open_instance_or_stray_stripe_size_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["plan", "--cloud", "oci", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E4.Flex",
                        "--target-iops", "1000"], capsys)
    assert code == 2 and "--instance: with --layout, expected one shape and its count" in err
    code, _, err = run(["plan", "--cloud", "oci", "--capacity", "1T", "--stripe-size", "4m"], capsys)
    assert code == 2 and "--stripe-size: goes with --layout" in err

