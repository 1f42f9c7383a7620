"""Compute in cloud-neutral units (issue 39): every result names its compute in vCPUs (`vcpus`) on every cloud; only
OCI's results carry `ocpus` beside them (OCI's unit, as it presents and prices it: 2 vCPUs per OCPU on x86 and
AmpereOne, 1 on Ampere A1). A file of the previous schema (2), where `ocpus` meant vCPUs off OCI, is read in
today's names: a plan DBAs pass around still builds, a result still reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.documents import read_plan
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.plan import make_plan
from blockfit.schema import Requirements, Workload
from blockfit.schema.result import SCHEMA_VERSION
from blockfit.specs import parse_instance, parse_layout

CATS = {c: load_catalog(c) for c in ("oci", "aws", "azure", "gcp")}
LAYOUTS = {"oci": "4x1T@balanced", "aws": "4x1T@gp3", "azure": "4x1T@premium-v1", "gcp": "4x1T@pd-ssd"}


def keys(node: Any) -> set[str]:
    """Every key of a JSON document, at any depth."""
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in keys(v)}
    return set()


def counted_specs(cloud: str) -> list[str]:
    """SHAPE:N of every shape of the cloud that is sold by a count: its smallest and, for OCI, a mid count."""
    out = []
    for shape in CATS[cloud].shapes.values():
        if shape.kind == "flex" and shape.ocpus_min is not None and shape.ocpus_max is not None:
            counts = shape.ocpu_counts or [int(shape.ocpus_min), int(shape.ocpus_max) // 2 or 1]
            out += [f"{shape.name}:{c:g}" for c in counts]
        elif shape.kind == "vcpu_tiers" and shape.tiers:
            out += [f"{shape.name}:{t['vcpus_min']}" for t in shape.tiers]
    return out


SPECS = [(c, s) for c in CATS for s in counted_specs(c)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SPECS))
def test_a_prediction_names_compute_in_vcpus_and_only_oci_in_ocpus(case: tuple[str, str]) -> None:
    cloud, spec = case
    cat = CATS[cloud]
    count = float(spec.rsplit(":", 1)[1])
    inst = parse_instance(spec, cloud, cat)
    try:
        p = predict(parse_layout(LAYOUTS[cloud], cloud, cat), inst, Workload(), cat, with_curve=False)
    except InputError:   # a volume type this shape does not take: the instance alone is still checked
        p = None
    data = (p.model_dump(mode="json") if p is not None else {"instance_detail": inst.model_dump(mode="json")})
    detail = data["instance_detail"]
    if cloud == "oci":
        per_ocpu = 1 if ".A1." in spec else 2   # Ampere A1: an OCPU is one thread; x86, AmpereOne: two
        assert (detail["ocpus"], detail["vcpus"]) == (count, count * per_ocpu), spec
    else:
        assert detail["vcpus"] == count and "ocpus" not in keys(data), spec
    if p is not None and p.cost.compute_detail is not None:
        billed = data["cost"]["compute_detail"]
        assert (billed["vcpus"], billed.get("ocpus")) == (detail["vcpus"], detail.get("ocpus")), spec
    assert inst.spec == spec   # the spec a user types is unchanged: SHAPE:N in the cloud's own unit


def test_text_output_shows_vcpus_and_ocpus_on_oci(inproc_cli: Any) -> None:
    oci = inproc_cli("model", "--cloud", "oci", "--layout", "4x1T@balanced", "--instance", "VM.Standard.E4.Flex:8")
    a1 = inproc_cli("model", "--cloud", "oci", "--layout", "4x1T@balanced", "--instance", "VM.Standard.A1.Flex:8")
    gcp = inproc_cli("model", "--cloud", "gcp", "--layout", "4x1T@pd-ssd", "--instance", "n2:16", "--memory", "64G")
    assert oci.returncode == a1.returncode == gcp.returncode == 0, (oci.stderr, a1.stderr, gcp.stderr)
    assert "8 OCPUs = 16 vCPUs" in oci.stdout and "8 OCPUs = 8 vCPUs" in a1.stdout
    assert "16 vCPUs" in gcp.stdout and "OCPU" not in gcp.stdout


def test_a_plans_requirements_name_the_count_and_range_in_the_clouds_terms(inproc_cli: Any) -> None:
    gcp = inproc_cli("plan", "--cloud", "gcp", "--instance", "n2", "--memory", "64G", "--capacity", "2T",
                     "--target-iops", "20000", "--ocpus", "8-32", "--json")
    assert gcp.returncode == 0, gcp.stderr
    data = json.loads(gcp.stdout)
    req = data["requirements"]
    assert (req["vcpus_min"], req["vcpus_max"]) == (8, 32) and "ocpus" not in " ".join(keys(data))
    first = data["candidates"][0]
    assert 8 <= first["prediction"]["instance_detail"]["vcpus"] <= 32
    assert first["instance"] == f"n2:{first['prediction']['instance_detail']['vcpus']:g}"
    oci = make_plan(Requirements(cloud="oci", capacity_gb=2048, target_iops=20_000,
                                 instance_shape="VM.Standard.E4.Flex", ocpus_min=4, ocpus_max=16), CATS["oci"])
    d = oci.candidates[0].instance_detail
    assert d.ocpus is not None and 4 <= d.ocpus <= 16 and d.vcpus == 2 * d.ocpus
    assert oci.model_dump(mode="json")["requirements"]["ocpus_min"] == 4


def as_schema_2(node: Any, cloud: str | None = None) -> Any:
    """A result as schema 2 wrote it (blockfit before issue 39): one `ocpus` name for the count in the cloud's own
    unit (OCPUs on OCI, vCPUs elsewhere), no `vcpus`."""
    if isinstance(node, list):
        return [as_schema_2(v, cloud) for v in node]
    if not isinstance(node, dict):
        return node
    cloud = node.get("cloud", cloud)
    out = {k: as_schema_2(v, cloud) for k, v in node.items()}
    for new, old in (("vcpus", "ocpus"), ("instance_vcpus", "instance_ocpus"), ("vcpus_min", "ocpus_min"),
                     ("vcpus_max", "ocpus_max")):
        if new in out:
            value = out.pop(new)
            if cloud != "oci":
                out[old] = value
            else:
                out.setdefault(old, None)
    if out.get("kind"):
        out["schema_version"] = 2
    return out


@pytest.mark.parametrize(("cloud", "shape", "count"), [("gcp", "n2", 16.0), ("oci", "VM.Standard.E4.Flex", 8.0),
                                                       ("oci", "VM.Standard.A1.Flex", 8.0)])
def test_a_schema_2_plan_is_read_in_todays_names_and_builds(cloud: str, shape: str, count: float, tmp_path: Path,
                                                           inproc_cli: Any) -> None:
    cat = CATS[cloud]
    inst = parse_instance(f"{shape}:{count:g}", cloud, cat)
    plan = make_plan(Requirements(cloud=cloud, capacity_gb=1024, target_iops=5_000, instance_shape=shape,
                                  instance_vcpus=inst.vcpus, instance_ocpus=inst.ocpus, memory_gb=64), cat, keep=1)
    old = as_schema_2(plan.model_dump(mode="json"))
    assert old["schema_version"] == 2 and old["requirements"]["instance_ocpus"] == count
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(old))
    read = read_plan(path)
    assert (read.requirements.instance_vcpus, read.requirements.instance_ocpus) == (inst.vcpus, inst.ocpus)
    assert read.candidates[0].instance_detail == plan.candidates[0].instance_detail
    assert read.candidates[0].cost == plan.candidates[0].cost
    devices = ",".join(f"/dev/sd{c}" for c in "bcdefghijklmnopqrstuvwxyz"[:plan.candidates[0].layout_detail.members])
    r = inproc_cli("build", "--plan", str(path), "--manager", "lvm", "--out", str(tmp_path / "out"), "--devices",
                   devices)
    assert r.returncode == 0 and (tmp_path / "out" / "run-all.sh").is_file(), r.stderr
    report = inproc_cli("report", str(path), "--out", str(tmp_path / "r.html"))
    assert report.returncode == 0, report.stderr
    assert f"{inst.vcpus:g} vCPUs" in (tmp_path / "r.html").read_text()


def test_a_schema_2_range_off_oci_is_read_as_vcpus(tmp_path: Path) -> None:
    plan = make_plan(Requirements(cloud="gcp", capacity_gb=1024, target_iops=5_000, instance_shape="n2",
                                  memory_gb=64, vcpus_min=8, vcpus_max=32), CATS["gcp"], keep=1)
    old = as_schema_2(plan.model_dump(mode="json"))
    assert (old["requirements"]["ocpus_min"], old["requirements"]["ocpus_max"]) == (8, 32)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(old))
    req = read_plan(path).requirements
    assert (req.vcpus_min, req.vcpus_max, req.ocpus_min, req.ocpus_max) == (8, 32, None, None)


def test_schema_1_is_still_refused_and_today_is_3(tmp_path: Path) -> None:
    assert SCHEMA_VERSION == 3
    plan = make_plan(Requirements(cloud="oci", capacity_gb=1024, target_iops=5_000,
                                  instance_shape="VM.Standard.E4.Flex", ocpus_min=4), CATS["oci"], keep=1)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({**as_schema_2(plan.model_dump(mode="json")), "schema_version": 1}))
    with pytest.raises(InputError, match="older blockfit"):
        read_plan(path)


def test_a_plans_vcpus_are_derived_from_its_spec_and_a_disagreement_is_refused(tmp_path: Path) -> None:
    plan = make_plan(Requirements(cloud="oci", capacity_gb=1024, target_iops=5_000,
                                  instance_shape="VM.Standard.E4.Flex", instance_vcpus=16, instance_ocpus=8),
                     CATS["oci"], keep=1)
    data = plan.model_dump(mode="json")
    detail = data["candidates"][0]["prediction"]["instance_detail"]
    path = tmp_path / "plan.json"
    detail["vcpus"] = 8.0   # as if an E4 OCPU were one vCPU
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="8 OCPUs = 16 vCPUs"):
        read_plan(path)
    del detail["vcpus"]   # left out (a hand-made file): derived from the spec
    path.write_text(json.dumps(data))
    assert read_plan(path).candidates[0].instance_detail.vcpus == 16
