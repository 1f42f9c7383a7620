"""A plan from an AWR or Statspack report: the host's CPUs and memory (Operating System Statistics) bound the shape
and the plan says so; a history without them says the compute was sized for the I/O alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog
from blockfit.history import awr, statspack
from blockfit.model.instance import find_shape
from blockfit.model.kinds.clouds import cloud_of
from blockfit.plan import sizing
from blockfit.schema import Plan
from support.awr_samples import SAMPLES, needs_samples
from support.inproc import run

REPORTS = ["awr18c_prdg1_rac_237812_237837.html", "awr19c_rmgtibp_72337_72338.html", "awr122_bpsc_2668_2669.txt",
           "sp121_clinprd1_70371_70372.txt"]


def os_stat(text: str, name: str) -> float:
    """The statistic as the report's header table also gives it: read here from the HTML or text by hand."""
    m = re.search(rf"{name}(?:</td><td[^>]*>|\s+)([\d,]+)", text)
    assert m is not None
    return float(m.group(1).replace(",", ""))


@needs_samples
@pytest.mark.parametrize("name", REPORTS)
def test_the_reader_takes_the_hosts_cpus_and_memory(name: str) -> None:
    path = SAMPLES / name
    text = path.read_text(errors="replace")
    series = (statspack if name.startswith("sp") else awr).read(path, text)
    assert series.host is not None
    assert series.host.cpus == os_stat(text, "NUM_CPUS")
    assert series.host.memory_gb == pytest.approx(os_stat(text, "PHYSICAL_MEMORY_BYTES") / 2**30, abs=0.01)


def plan_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out, err = run(["plan", *args, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


def vcpus_and_memory(cloud: str, cand: dict) -> tuple[float, float]:
    d = cand["prediction"]["cost"]["compute_detail"]
    shape = find_shape(load_catalog(cloud), cand["prediction"]["instance_detail"]["shape"])
    vcpus = d["vcpus"] if d and d["vcpus"] is not None else shape.vcpus
    memory = d["memory_gb"] if d and d["memory_gb"] is not None else shape.memory_gb
    return vcpus, memory


@needs_samples
@pytest.mark.parametrize("cloud", ["oci", "aws", "azure", "gcp"])
def test_a_14_cpu_472_gb_server_gets_at_least_that(cloud: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the 18c RAC instance's host (14 CPUs, 472 GB) once got E4.Flex:1 for its I/O alone."""
    plan = plan_json(capsys, "--from", str(SAMPLES / REPORTS[0]), "--cloud", cloud, "--capacity", "2T")
    hist = plan["requirements"]["history"]
    assert (hist["host_cpus"], round(hist["host_memory_gb"])) == (14, 472)
    best = plan["candidates"][0]
    vcpus, memory = vcpus_and_memory(cloud, best)
    assert vcpus >= 14 and memory >= hist["host_memory_gb"] - 0.01
    note = next(n for n in plan["notes"] if n.startswith("Compute bounded by the history's host"))
    assert "14 CPUs and 472 GB" in note and f"{best['instance']} has" in note
    smallest = [n for n in plan["notes"] if n.startswith("Smallest ")]
    assert all("with at least 14 vCPUs (the history's host)" in n for n in smallest)


@needs_samples
def test_one_open_shape_is_bounded_too_and_options_override(capsys: pytest.CaptureFixture[str]) -> None:
    awr18 = str(SAMPLES / REPORTS[0])
    plan = plan_json(capsys, "--from", awr18, "--cloud", "oci", "--capacity", "2T",
                     "--instance", "VM.Standard.E4.Flex")
    best = plan["candidates"][0]
    ratio = cloud_of("oci").vcpus_per_ocpu("VM.Standard.E4.Flex")
    assert best["prediction"]["instance_detail"]["ocpus"] * ratio >= 14
    assert best["prediction"]["cost"]["compute_detail"]["memory_gb"] >= 471.98
    given = plan_json(capsys, "--from", awr18, "--cloud", "oci", "--capacity", "2T",
                      "--instance", "VM.Standard.E4.Flex", "--cpus", "1", "--memory", "16G")
    assert given["candidates"][0]["prediction"]["instance_detail"]["ocpus"] < 7
    note = next(n for n in given["notes"] if n.startswith("Compute below the history's host, 14 CPUs"))
    assert "as --instance, --cpus or --memory set it" in note
    fixed = plan_json(capsys, "--from", awr18, "--cloud", "aws", "--capacity", "2T", "--instance", "m6i.large")
    assert fixed["candidates"][0]["instance"] == "m6i.large"   # named: planned as named, and said to be below
    assert any(n.startswith("Compute below the history's host") and "m6i.large has 2 vCPUs" in n
               for n in fixed["notes"])


def test_a_history_without_cpus_or_memory_says_it_sized_for_io_alone(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "h.csv"
    csv.write_text("timestamp,read IOPS,write IOPS,read MB/s,write MB/s\n" +
                   "".join(f"2026-11-23T10:{i:02d}:00,{900 + i},{100},{20},{5}\n" for i in range(10)))
    plan = plan_json(capsys, "--from", str(csv), "--cloud", "oci", "--capacity", "1T")
    assert plan["requirements"]["history"]["host_cpus"] is None
    assert any(n.startswith("Compute sized for the I/O alone") for n in plan["notes"])
    targets = plan_json(capsys, "--cloud", "oci", "--capacity", "1T", "--target-iops", "1000")
    assert not [n for n in targets["notes"] if n.startswith("Compute ")]


@needs_samples
def test_the_note_is_the_plans_own_and_a_plan_from_targets_has_none(capsys: pytest.CaptureFixture[str]) -> None:
    """compute_basis_note on the plan's own requirements and best candidate gives the note the plan carries; the
    same requirements without a history (a plan from targets alone) give none."""
    plan = Plan.model_validate(plan_json(capsys, "--from", str(SAMPLES / REPORTS[0]), "--cloud", "aws",
                                         "--capacity", "2T"))
    cat = load_catalog("aws")
    note = sizing.compute_basis_note(plan.requirements, cat, plan.candidates[0])
    assert note is not None and note in plan.notes
    bare = plan.requirements.model_copy(update={"history": None})
    assert sizing.compute_basis_note(bare, cat, plan.candidates[0]) is None
