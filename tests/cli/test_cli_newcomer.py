"""The first things a newcomer types (issue 37 item 8), each as the CLI answers it, in process."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit import __version__
from blockfit.errors import InputError
from blockfit.schema import Cost
from blockfit.schema.cost import ComputeCost
from blockfit.units import parse_mbps, parse_quantity
from blockfit.views.model import cost_line
from support.inproc import run


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip() == f"blockfit {__version__}"


def test_cloud_is_case_insensitive_like_shapes_and_levels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["model", "--cloud", "AWS", "--layout", "1x1T@GP3", "--instance", "R7I.4XLARGE", "--json"],
                         capsys)
    assert code == 0, err
    assert json.loads(out)["cloud"] == "aws"


def test_target_mbps_with_g_is_gigabytes_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    """'--target-mbps 1G' was read as 1,000,000,000 MB/s, then "infeasible"."""
    assert parse_mbps("1G", "--target-mbps") == 1000 == parse_mbps("1GB/s", "--target-mbps")
    assert parse_mbps("1500MB/s", "--target-mbps") == 1500 == parse_mbps("1,500", "--target-mbps")
    with pytest.raises(InputError, match="--target-mbps '1k': expected MB/s"):
        parse_mbps("1k", "--target-mbps")
    code, out, err = run(["plan", "--cloud", "oci", "--capacity", "1T", "--target-mbps", "1G", "--instance",
                          "VM.Standard.E4.Flex", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["requirements"]["target_mbps"] == 1000


@given(st.integers(1_000, 999_999_999))
def test_thousands_separators_are_read(n: int) -> None:
    """'--target-iops 40,000' was refused."""
    assert parse_quantity(f"{n:,}", "--target-iops") == n
    for bad in ("40,00", "4,0000", ",400", "40,000,0"):
        with pytest.raises(InputError):
            parse_quantity(bad, "--target-iops")


def test_compute_unknown_is_said_once() -> None:
    """'compute unknown (no compute price for r7i.4xlarge ...: compute cost unknown)' said it twice."""
    note = "no compute price for r7i.4xlarge in the aws catalog 2026-11-25: compute cost unknown"
    cost = Cost(storage=81.92, compute=None, total=None, region="us-east-1",
                compute_detail=ComputeCost(shape="r7i.4xlarge", note=note))
    line = cost_line(cost)
    assert line.count("unknown") == 1 and "no compute price for r7i.4xlarge" in line


def test_report_png_makes_its_directory_and_help_names_every_result(tmp_path, capsys) -> None:
    """`report --png DIR` needed DIR to exist (build --out makes its own); `report --help` left out fleet results."""
    from blockfit.schema.kinds import RESULT_TYPES

    code, out, err = run(["model", "--cloud", "oci", "--layout", "2x1T@balanced", "--instance",
                          "VM.Standard.E4.Flex:8", "--json"], capsys)
    assert code == 0, err
    (tmp_path / "m.json").write_text(out)
    figs = tmp_path / "figs" / "run1"
    code, out, err = run(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r.html"), "--png", str(figs)],
                         capsys)
    assert code == 0, err
    assert any(figs.glob("*.png"))
    (tmp_path / "afile").write_text("x")
    code, _, err = run(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r2.html"), "--png",
                        str(tmp_path / "afile" / "sub")], capsys)
    assert code == 2 and "is a file, not a directory" in err
    code, out, _ = run(["report", "--help"], capsys)
    text = " ".join(out.split())
    for kind in RESULT_TYPES:
        assert {"lab-bench": "lab --bench", "fleet": "fleet plan"}.get(kind, kind) in text, kind


def test_build_names_the_device_given_twice(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    code, out, err = run(["plan", "--example", "part3", "--json"], capsys)
    assert code == 0, err
    plan = tmp_path / "plan.json"
    plan.write_text(out)
    devices = ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sdc", "/dev/sde", "/dev/sdf"]
    code, _, err = run(["build", "--plan", str(plan), "--manager", "lvm", "--out", str(tmp_path / "o"),
                        "--devices", ",".join(devices)], capsys)
    assert code == 2 and "--devices: /dev/sdc is named twice" in err and not (tmp_path / "o").exists()


def test_build_on_an_infeasible_plan_says_why_there_is_nothing_to_build(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path) -> None:
    code, out, err = run(["plan", "--cloud", "oci", "--capacity", "4.5T", "--instance", "VM.Standard.E3.Flex:12",
                          "--target-iops", "500000", "--json"], capsys)
    assert code == 3, err
    plan = tmp_path / "plan.json"
    plan.write_text(out)
    code, _, err = run(["build", "--plan", str(plan), "--manager", "lvm", "--out", str(tmp_path / "o"),
                        "--devices", "/dev/sdb"], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "no candidate to build (infeasible: no layout on VM.Standard.E3.Flex meets 500,000 IOPS" in lines[0]


ONE_PLURAL = re.compile(r"\b1 (?:[\w-]+ ){0,3}(?:volumes|shapes|files|hosts|devices)\b")


@pytest.mark.parametrize(("cloud", "instance", "provision"), [
    ("oci", "VM.Standard.E4.Flex:4", "oci-cli"), ("oci", "VM.Standard.E4.Flex:4", "terraform"),
    ("aws", "m6i.xlarge", "aws-cli"), ("aws", "m6i.xlarge", "terraform")])
def test_one_volume_is_one_volume_in_what_build_writes(cloud: str, instance: str, provision: str,
                                                       capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    """'create 1 volumes and attach them' (issue 37 item 8): the step, its script or Terraform, and the summary."""
    code, out, err = run(["plan", "--cloud", cloud, "--capacity", "500G", "--target-iops", "3000", "--instance",
                          instance, "--max-volumes", "1", "--json"], capsys)
    assert code == 0, err
    plan = tmp_path / "plan.json"
    plan.write_text(out)
    device = "/dev/oracleoci/oraclevdb" if cloud == "oci" else "/dev/sdf"
    code, out, err = run(["build", "--plan", str(plan), "--manager", "none", "--devices", device, "--provision",
                          provision, "--out", str(tmp_path / "o"), "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    texts = [s["description"] for s in result["steps"]] + [p.read_text() for p in (tmp_path / "o").rglob("*")
                                                            if p.is_file()]
    provisioning = [s["description"] for s in result["steps"] if s["kind"] in ("provision", "terraform")]
    one = re.compile(r"\b1 (?:OCI block |EBS \w+ )?volume\b")
    assert provisioning and all(one.search(d) for d in provisioning), provisioning
    assert [m.group(0) for t in texts for m in ONE_PLURAL.finditer(t)] == []


def test_counts_say_one_thing_in_the_singular() -> None:
    from blockfit.diagnose.wording import instance_cap
    from blockfit.units import fmt_count

    assert instance_cap(1, 3000, "IOPS").startswith("sum over 1 volume held")
    assert fmt_count(1, "shape") == "1 shape" and fmt_count(2, "shape") == "2 shapes"


@given(st.sampled_from(["st1", "sc1"]), st.integers(125, 16_384))
def test_a_derived_mib_s_figure_has_at_most_one_decimal(vtype: str, size: int) -> None:
    """'1x12788G@st1' printed "499.531 MiB/s" (0.0390625 MiB/s per GiB x 12,788 GiB)."""
    from blockfit.catalog import load_catalog
    from blockfit.model import predict
    from blockfit.specs import parse_instance, parse_layout

    aws = load_catalog("aws")
    p = predict(parse_layout(f"1x{size}G@{vtype}", "aws", aws), parse_instance("m6i.xlarge", "aws", aws),
                catalog=aws, with_curve=False)
    words = p.model_dump_json()
    assert "MiB/s" in words
    assert re.findall(r"\d\.\d{2,} MiB/s", words) == []
