"""Issue 36 parts 1 and 9: a plan file's strings never reach a script; the small holes.

A plan read by `build --plan` is derived again from the spec grammar and the catalog (a field that disagrees is
refused with one line); a Plan handed to the library directly, with hostile strings, still yields scripts whose
header comments, Terraform and SQL hold those strings as text. The holes (mount points compared as paths, system
folders refused, names validated as whole values, stripe sizes bounded) are tested beside the modules that close
them: test_context.py and test_filesystem.py; a plan on a catalog not shipped stays here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import hcl2
import pytest

from blockfit.documents import read_plan
from blockfit.emit import build
from blockfit.errors import InputError
from blockfit.schema import Plan

DEVS6 = [f"/dev/blockfit-absent-{c}" for c in "bcdefg"]
PWN = "\ntouch pwned #"


@pytest.fixture(scope="module")
def part3() -> dict:
    proc = subprocess.run([sys.executable, "-m", "blockfit", "plan", "--example", "part3", "--json"],
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def _write(tmp_path: Path, data: dict, name: str = "plan.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def _with_candidate(plan: Plan, **update: object) -> Plan:
    """PLAN with candidate 0 changed as a hostile file would have it, past read_plan (the library's own input)."""
    cand = plan.candidates[0]
    pred_update = {k[len("prediction."):]: v for k, v in update.items() if k.startswith("prediction.")}
    cand_update = {k: v for k, v in update.items() if not k.startswith("prediction.")}
    pred = cand.prediction.model_copy(update=pred_update)
    return plan.model_copy(update={"candidates": [cand.model_copy(update={**cand_update, "prediction": pred})]})


# ---------------------------------------------------------------- item 1: the plan's strings


def test_the_touch_pwned_layout_is_refused_by_build_with_one_line(part3, tmp_path):
    data = json.loads(json.dumps(part3))
    data["candidates"][0]["layout"] += PWN
    proc = _cli("build", "--plan", str(_write(tmp_path, data, "evil.json")), "--manager", "lvm", "--out", "o",
                "--devices", ",".join(DEVS6), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "candidates.0" in proc.stderr and "layout" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists() and not (tmp_path / "pwned").exists()


def test_the_touch_pwned_layout_past_the_reader_stays_a_comment(part3, tmp_path):
    """Defense in depth: the library given the hostile layout writes scripts whose dry run creates nothing."""
    plan = _with_candidate(Plan.model_validate(part3), layout=part3["candidates"][0]["layout"] + PWN,
                           instance="VM.Standard.E3.Flex:12" + PWN)
    out = tmp_path / "o"
    build(plan, manager="lvm", devices=DEVS6, out_dir=out, mount="/u01")
    scripts = sorted(out.glob("*.sh"))
    assert len(scripts) >= 3
    for script in scripts:
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=60).returncode == 0
        assert "\ntouch pwned" not in script.read_text()
    proc = subprocess.run(["bash", str(out / "20-lvm.sh"), "--dry-run"], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert proc.returncode != 0 and "does not exist" in proc.stderr  # refused at the first absent device
    assert not (tmp_path / "pwned").exists() and not (out / "pwned").exists()


def test_a_quote_or_newline_in_the_volume_type_is_refused_at_read(part3, tmp_path):
    data = json.loads(json.dumps(part3))
    data["candidates"][0]["prediction"]["layout_detail"]["volume"]["type"] = 'block"\n#'
    proc = _cli("build", "--plan", str(_write(tmp_path, data)), "--manager", "lvm", "--out", "o", "--devices",
                ",".join(DEVS6), cwd=tmp_path)
    assert proc.returncode == 2 and "layout_detail" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_hostile_volume_type_stays_one_string_in_aws_tf(tmp_path):
    from support.build import make_layout, make_plan

    evil = 'gp3"\n  provisioner "local-exec" { command = "touch MARKER" }\n#${file("/etc/passwd")}'
    plan = make_plan(make_layout(cloud="aws", members=2, vtype=evil, vpu=None), instance="r6i.2xlarge")
    plan = _with_candidate(plan, layout="2x500G@gp3" + PWN)
    out = tmp_path / "o"
    build(plan, manager="lvm", devices=["/dev/nvme1n1", "/dev/nvme2n1"], out_dir=out, provision_with="terraform")
    tf = (out / "terraform" / "main.tf").read_text()
    parsed = hcl2.loads(tf)
    volumes = [r for r in parsed["resource"] if "aws_ebs_volume" in str(list(r))]
    (body,) = [v['"blockfit"'] for r in volumes for v in r.values() if isinstance(v, dict)]
    attrs = {k for k in body if not k.startswith("__")}
    assert attrs == {"count", "availability_zone", "size", "type", "tags"}
    assert "provisioner" not in str(parsed) or body["type"].count("provisioner") == 1
    assert body["type"].startswith('"gp3\\"\\n') and "$${file" in body["type"]
    plan = _with_candidate(plan, layout="2x500G@gp3")
    build(plan, manager="lvm", devices=["/dev/nvme1n1", "/dev/nvme2n1"], out_dir=tmp_path / "a",
          provision_with="aws-cli")
    script = tmp_path / "a" / "00-provision-aws.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=60).returncode == 0
    assert "--volume-type 'gp3\"\n" in script.read_text()  # one quoted word


def test_a_hostile_source_stays_a_comment_in_asm_sql(tmp_path):
    from support.build import make_layout, make_plan

    plan = make_plan(make_layout(members=2, manager="asm"))
    plan = _with_candidate(plan, layout="2x500G@balanced\nDROP DISKGROUP DATA INCLUDING CONTENTS;\n--",
                           instance="x'; DROP DISKGROUP DATA; --")
    out = tmp_path / "o"
    build(plan, manager="asm", devices=["/dev/oracleoci/oraclevdb", "/dev/oracleoci/oraclevdc"], out_dir=out)
    sql = (out / "21-asm-diskgroup.sql").read_text()
    assert not [line for line in sql.splitlines() if "DROP" in line and not line.startswith("--")]
    for script in out.glob("*.sh"):
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=60).returncode == 0


@pytest.mark.parametrize(("path", "value", "field"), [
    (("candidates", 0, "layout"), "6x768G@higher", "candidates.0.layout"),
    (("candidates", 0, "instance"), "VM.Standard.E3.Flex:13", "candidates.0.instance"),
    (("catalog_version",), "2019-01-01", "catalog_version"),
    (("catalog_version",), "2026-11-25\n", "catalog_version"),
    (("candidates", 0, "prediction", "catalog_version"), "2026-09-05", "prediction.catalog_version"),
    (("candidates", 0, "prediction", "layout_detail", "stripe_size"), 2**64, "stripe_size"),
    (("candidates", 0, "prediction", "layout_detail", "stripe_size"), 2 * 1024**3, "stripe_size"),
    (("candidates", 0, "prediction", "layout_detail", "paths"), 10**9, "paths"),
    (("candidates", 0, "session_queue_depth"), 10**9, "session_queue_depth"),
    (("candidates", 0, "prediction", "attachment"), "iscsi\n#", "attachment"),
    (("candidates", 0, "prediction", "redundancy"), "normal", "redundancy"),
    (("candidates", 0, "prediction", "workload", "large_io"), 2**40, "large_io"),
    (("cloud",), "aws", "cloud"),
    (("candidates", 0, "prediction", "layout_detail", "volume", "size_gb"), 769, "layout_detail"),
])
def test_a_plan_field_that_disagrees_with_the_grammar_is_refused(part3, tmp_path, path, value, field):
    data = json.loads(json.dumps(part3))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(InputError, match=field) as err:
        read_plan(_write(tmp_path, data))
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_a_genuine_plan_reads_back_as_written(part3, tmp_path):
    plan = read_plan(_write(tmp_path, part3))
    assert [(c.layout, c.instance) for c in plan.candidates] == \
        [(c["layout"], c["instance"]) for c in part3["candidates"]]
    assert plan.candidates[0].layout_detail.model_dump() == part3["candidates"][0]["prediction"]["layout_detail"]


def test_spaces_and_newlines_inside_a_spec_do_not_survive_the_reader(part3, tmp_path):
    data = json.loads(json.dumps(part3))
    data["candidates"][0]["layout"] = " 6 x 768G @ balanced "
    plan = read_plan(_write(tmp_path, data))
    assert plan.candidates[0].layout == "6x768G@balanced"
    data["candidates"][0]["layout"] = "\u0666x768G@balanced"  # an Arabic-Indic 6: the grammar's digits are ASCII
    with pytest.raises(InputError, match="candidates.0"):
        read_plan(_write(tmp_path, data))


# ---------------------------------------------------------------- item 9: the small holes (the others: test_context.py)
def test_a_catalog_version_not_shipped_needs_the_catalog_it_was_made_on(part3, tmp_path):
    """A plan made on a `catalog import` file carries that file's date: refused alone (naming --catalog), read
    with --catalog; build takes the option as lab does."""
    data = json.loads(json.dumps(part3))
    data["catalog_version"] = "2026-11-27"
    for cand in data["candidates"] + data["pareto"]:
        cand["prediction"]["catalog_version"] = "2026-11-27"
    path = _write(tmp_path, data)
    with pytest.raises(InputError, match=r"catalog_version 2026-11-27.*--catalog PATH"):
        read_plan(path)
    assert read_plan(path, catalog="2026-11-25").candidates[0].layout == "6x768G@balanced"
    args = ["build", "--plan", str(path), "--manager", "lvm", "--out", "o", "--devices",
            ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcdefg")]
    assert _cli(*args, cwd=tmp_path).returncode == 2
    proc = _cli(*args, "--catalog", "2026-11-25", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
