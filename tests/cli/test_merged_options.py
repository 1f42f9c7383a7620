"""Issue 39: `plan --help` lists at most 30 options (32 since --inventory and its --mount, which plan from a host's
inventory; 33 since --outstanding, the workload's I/Os in flight, is listed rather than only named under
--from; 34 since --layout, which judges one layout against the targets, its --stripe-size listed under it).
Pairs of options were merged into one (--memory, --cpus,
--io-sizes, --instance SHAPE/OPTION, --capacity SIZE+GROWTH); the old spellings are hidden and still taken,
printing one deprecation line that names the new spelling, so a DBA's script gives the same Plan it gave."""

from __future__ import annotations

import json

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.cli import app
from blockfit.errors import InputError
from blockfit.specs import INTERFACES, WEIGHTINGS, split_instance
from support.inproc import run

COMMAND = typer.main.get_command(app)
OLD = {"--growth", "--small-io", "--large-io", "--min-memory", "--min-vcpus", "--ocpus", "--interface",
       "--ebs-weighting"}


def listed(help_text: str) -> list[str]:
    """The options a --help page lists (its own --help aside)."""
    return [line.split()[0] for line in help_text.splitlines()
            if line.startswith("  --") and not line.startswith("  --help")]


def test_plan_help_lists_at_most_34_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["plan", "--help"], capsys)
    shown = listed(out)
    assert code == 0 and len(shown) <= 34, shown
    assert not OLD & set(shown)
    visible = [p for p in COMMAND.commands["plan"].params if not getattr(p, "hidden", False)]
    assert len(visible) <= 35   # the 34 options and --help's own parameter, if typer lists it as one


@pytest.mark.parametrize("command", ["plan", "model", "fleet", "calibrate"])
def test_merged_options_are_listed_and_old_spellings_hidden(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([command, "--help"], capsys)
    shown = set(listed(out))
    assert code == 0 and "--io-sizes" in shown and not {"--small-io", "--large-io"} & shown


def plan_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    code, out, err = run(["plan", "--json", *args], capsys)
    assert code == 0, err
    plan = json.loads(out)
    plan.pop("created")
    return plan, err


OCI_FLEX = ["--capacity", "1T", "--target-iops", "20000", "--levels", "balanced", "--max-volumes", "2", "--instance",
            "VM.Standard.E4.Flex"]
AWS_R7I = ["--cloud", "aws", "--capacity", "1T", "--target-iops", "20000", "--instance", "r7i"]
AZURE = ["--cloud", "azure", "--capacity", "1T", "--target-iops", "30000"]
SAME = [
    # (old spelling, new spelling, what the deprecation line must tell to write)
    ([*AWS_R7I, "--min-memory", "256G"], [*AWS_R7I, "--memory", "256G"], "--memory 256G"),
    ([*OCI_FLEX, "--min-memory", "64G"], [*OCI_FLEX, "--memory", "64G"], "--memory 64G"),
    ([*OCI_FLEX, "--ocpus", "8-24"], [*OCI_FLEX, "--cpus", "8-24"], "--cpus 8-24"),
    ([*OCI_FLEX, "--ocpus", "8-"], [*OCI_FLEX, "--cpus", "8"], "--cpus 8-"),
    ([*AWS_R7I, "--min-vcpus", "16"], [*AWS_R7I, "--cpus", "16"], "--cpus 16"),
    ([*AZURE, "--instance", "Standard_E8bds_v5", "--interface", "nvme"],
     [*AZURE, "--instance", "Standard_E8bds_v5/nvme"], "--instance SHAPE/nvme"),
    (["--cloud", "aws", "--capacity", "1T", "--target-iops", "20000", "--instance", "r8g.16xlarge", "--ebs-weighting",
      "ebs-1"], ["--cloud", "aws", "--capacity", "1T", "--target-iops", "20000", "--instance", "r8g.16xlarge/ebs-1"],
     "--instance SHAPE/ebs-1"),
    ([*OCI_FLEX[:-1], "VM.Standard.E4.Flex:8", "--small-io", "16k", "--large-io", "512k"],
     [*OCI_FLEX[:-1], "VM.Standard.E4.Flex:8", "--io-sizes", "16k,512k"], "--io-sizes 16k,512k"),
    (["--capacity", "1T", "--growth", "20", "--instance", "VM.Standard.E4.Flex:8"],
     ["--capacity", "1T+20%", "--instance", "VM.Standard.E4.Flex:8"], "--capacity 1T+20%"),
]


@pytest.mark.parametrize("old,new,use", SAME, ids=[case[2] for case in SAME])
def test_old_and_new_spellings_give_the_same_plan(old: list[str], new: list[str], use: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    old_plan, old_err = plan_json(old, capsys)
    new_plan, new_err = plan_json(new, capsys)
    assert old_plan == new_plan
    assert new_err == ""
    lines = old_err.splitlines()
    assert len(lines) == 1 and "deprecated" in lines[0] and lines[0].endswith(f"use {use}"), old_err


def test_the_merged_options_change_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    """What SAME compares is not vacuous: each new option moves what it should."""
    base, _ = plan_json(OCI_FLEX, capsys)
    floor, _ = plan_json([*OCI_FLEX, "--cpus", "24"], capsys)
    assert floor["requirements"]["ocpus_min"] == 24 and floor["candidates"][0]["prediction"]["cost"][
        "compute_detail"]["ocpus"] >= 24 > base["candidates"][0]["prediction"]["cost"]["compute_detail"]["ocpus"]
    grown, _ = plan_json(["--capacity", "1T+20%", "--instance", "VM.Standard.E4.Flex:8"], capsys)
    assert grown["requirements"]["growth_pct"] == 20
    sized, _ = plan_json([*OCI_FLEX, "--io-sizes", "16k,512k"], capsys)
    assert (sized["requirements"]["small_io"], sized["requirements"]["large_io"]) == (16384, 512 * 1024)
    nvme, _ = plan_json([*AZURE, "--instance", "Standard_E8bds_v5/nvme"], capsys)
    scsi, _ = plan_json([*AZURE, "--instance", "Standard_E8bds_v5/scsi"], capsys)
    assert nvme["requirements"]["interface"] == "nvme" and scsi["requirements"]["interface"] == "scsi"


def test_old_spellings_on_other_commands_say_their_new_one(capsys: pytest.CaptureFixture[str]) -> None:
    model = ["model", "--cloud", "azure", "--layout", "1x1T@premium-v2:30000:500", "--json"]
    code, old_out, old_err = run([*model, "--instance", "Standard_E8bds_v5", "--interface", "nvme", "--small-io",
                                  "16k"], capsys)
    assert code == 0 and old_err.count("\n") == 1 and "use --io-sizes 16k,1m, --instance SHAPE/nvme" in old_err
    code, new_out, new_err = run([*model, "--instance", "Standard_E8bds_v5/nvme", "--io-sizes", "16k,1m"], capsys)
    assert code == 0 and new_err == ""
    assert json.loads(old_out) == json.loads(new_out)
    assert json.loads(new_out)["workload"]["small_io"] == 16384 and "nvme" in new_out


BOTH = [
    ["plan", "--capacity", "1T", "--memory", "64G", "--min-memory", "64G"],
    ["plan", "--capacity", "1T", "--cpus", "8", "--ocpus", "8-"],
    ["plan", "--cloud", "aws", "--capacity", "1T", "--instance", "r7i", "--cpus", "8", "--min-vcpus", "8"],
    ["plan", "--capacity", "1T", "--io-sizes", "8k,1m", "--large-io", "1m"],
    ["plan", "--capacity", "1T+20%", "--growth", "20"],
    ["plan", "--cloud", "azure", "--capacity", "1T", "--instance", "Standard_E8bds_v5/nvme", "--interface", "nvme"],
    ["plan", "--cloud", "aws", "--capacity", "1T", "--instance", "r8g.16xlarge/ebs-1", "--ebs-weighting", "vpc-1"],
    ["model", "--instance", "VM.Standard.E3.Flex:4", "--io-sizes", "8k,1m", "--small-io", "8k"],
    ["fleet", "--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--cpus", "8-", "--ocpus", "8-"],
    ["calibrate", "/nonexistent-blockfit", "--io-sizes", "8k,1m", "--small-io", "8k"],
]


@pytest.mark.parametrize("argv", BOTH, ids=[" ".join(a[:1] + a[-2:-1]) for a in BOTH])
def test_old_and_new_spelling_together_is_one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "old spelling" in err or "already" in err


@given(shape=st.from_regex(r"[A-Za-z0-9._-]{1,20}(:[0-9]{1,3})?", fullmatch=True),
       interface=st.sampled_from([None, *INTERFACES]), weighting=st.sampled_from([None, *WEIGHTINGS]),
       swap=st.booleans())
@settings(max_examples=200, deadline=None)
def test_instance_options_read_back_in_either_order(shape: str, interface: str | None, weighting: str | None,
                                                    swap: bool) -> None:
    options = [f"/{o}" for o in (interface, weighting) if o is not None]
    spec = shape + "".join(reversed(options) if swap else options)
    assert split_instance(spec) == (shape, interface, weighting)


@pytest.mark.parametrize("spec", ["r8g.16xlarge/", "r8g.16xlarge/nvme/scsi", "r8g.16xlarge/ebs-1/vpc-1",
                                  "r8g.16xlarge/iops", "r8g.16xlarge//nvme"])
def test_a_bad_instance_option_names_what_is_taken(spec: str) -> None:
    with pytest.raises(InputError, match=r"--instance .*expected SHAPE\[:COUNT\] then"):
        split_instance(spec)


def test_a_family_with_an_option_is_still_a_search() -> None:
    from blockfit.catalog import load_catalog
    from blockfit.plan.shapes import is_search

    aws = load_catalog("aws")
    assert is_search(aws, "r8g/ebs-1") and is_search(aws, "any/ebs-1")
    assert not is_search(aws, "r8g.16xlarge/ebs-1")


@pytest.mark.parametrize("argv", [
    ["calibrate", "/nonexistent-blockfit", "--small-io", "8k"],
    ["model", "--layout", "1x1T@nosuchlevel", "--small-io", "16k"],
    ["plan", "--capacity", "1T", "--levels", "nosuchlevel", "--min-memory", "64G"],   # a search: was exit 3
    ["plan", "--cloud", "aws", "--capacity", "1T", "--instance", "r7i", "--levels", "gp9", "--min-vcpus", "8"],
], ids=["calibrate", "model", "plan-oci-search", "plan-aws-family"])
def test_an_old_spelling_with_a_bad_input_prints_the_error_alone(argv: list[str],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The deprecation line comes once the command has worked: a refusal is one line, as every bad input is."""
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "blockfit: error:" in err and "use --" not in err
