"""emit/provision.py: the volumes a build provisions, as Terraform that parses and as cloud CLI commands whose
flags exist, with a dry run that prints them."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import hcl2
import pytest

from blockfit.emit import build
from blockfit.emit.provision import OCI_CLI_FLAGS
from support.build import make_layout, make_plan

OCI_DEVS = [f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghijklmnop"]


def _tf(tmp_path: Path, **layout: object) -> tuple[Path, dict]:
    cloud = layout.get("cloud", "oci")
    n = int(layout.get("members", 4))  # type: ignore[call-overload]
    devs = OCI_DEVS[:n] if cloud == "oci" else [f"/dev/nvme{i}n1" for i in range(1, n + 1)]
    out = tmp_path / f"tf-{cloud}"
    build(make_plan(make_layout(**layout)), manager="lvm", devices=devs, out_dir=out,  # type: ignore[arg-type]
          provision_with="terraform")
    path = out / "terraform" / "main.tf"
    with open(path) as f:
        return path, hcl2.load(f)


def _plain(obj: object) -> object:
    """python-hcl2 ≥ 7 keeps string quotes and adds __is_block__ markers: drop both."""
    if isinstance(obj, dict):
        return {str(_plain(k)): _plain(v) for k, v in obj.items() if k != "__is_block__"}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    if isinstance(obj, str) and len(obj) >= 2 and obj[0] == obj[-1] == '"':
        return obj[1:-1]
    return obj


def _resource(doc: dict, rtype: str) -> dict:
    for block in _plain(doc["resource"]):  # type: ignore[union-attr]
        if rtype in block:
            return next(iter(block[rtype].values()))
    raise AssertionError(f"no {rtype}")


def test_oci_terraform_parses_with_vpus_and_iscsi_attachments(tmp_path):
    _, doc = _tf(tmp_path, cloud="oci", members=4, size_gb=1000, vpu=120)
    vol = _resource(doc, "oci_core_volume")
    att = _resource(doc, "oci_core_volume_attachment")
    assert vol["count"] == 4 and vol["size_in_gbs"] == 1000 and vol["vpus_per_gb"] == 120
    assert att["attachment_type"] == "iscsi" and att["is_agent_auto_iscsi_login_enabled"] is True
    locals_ = _plain(doc["locals"])[0]  # type: ignore[index]
    assert locals_["devices"] == OCI_DEVS[:4]


def test_aws_terraform_parses_with_iops_and_throughput(tmp_path):
    _, doc = _tf(tmp_path, cloud="aws", members=3, size_gb=500, iops=6000, throughput=500)
    vol = _resource(doc, "aws_ebs_volume")
    assert vol["count"] == 3 and vol["type"] == "gp3" and vol["iops"] == 6000 and vol["throughput"] == 500
    assert _resource(doc, "aws_volume_attachment")["device_name"] == "${local.device_names[count.index]}"


@pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform not installed")
@pytest.mark.parametrize("cloud", ["oci", "aws"])
def test_terraform_fmt_accepts_the_output(tmp_path, cloud):
    path, _ = _tf(tmp_path, cloud=cloud, members=2, iops=3000 if cloud == "aws" else None)
    res = subprocess.run(["terraform", "fmt", "-check", "-diff", str(path)], capture_output=True, text=True,
                         env={"PATH": "/usr/local/bin:/usr/bin:/bin", "TF_CLI_CONFIG_FILE": "/dev/null"})
    assert res.returncode == 0, res.stdout + res.stderr


def _cli_invocations(script: str, tool: str) -> list[list[str]]:
    """Each `tool …` command in a script, and each read through its `tool_read` wrapper (continuation lines
    joined), as argv words up to the end of the command (a `)`, `||`, `2>` or `|` outside quotes)."""
    joined = re.sub(r"\\\n\s*", " ", script)
    calls = []
    for line in joined.splitlines():
        line = line.strip()
        m = re.search(rf"(?:^|\$\(|run )({tool}(?:_read)? .*)", line)
        if not m or line.startswith("#"):
            continue
        lexer = shlex.shlex(m.group(1), posix=True, punctuation_chars="|&;<>()")
        lexer.whitespace_split = True
        argv: list[str] = []
        for word in lexer:
            if word in (")", "||", "|", "&&", ";") or word.startswith(("2>", ">")) or word == "2":
                break
            argv.append(word)
        if argv[1:2] == ['"$@"'] or argv[1:2] == ["$@"]:
            continue   # the wrapper itself
        calls.append([tool, *argv[1:]])
    return calls


def test_oci_cli_commands_use_documented_flags(tmp_path):
    out = tmp_path / "oci"
    build(make_plan(make_layout(members=4, vpu=120)), manager="lvm", devices=OCI_DEVS[:4], out_dir=out,
          provision_with="oci-cli")
    calls = _cli_invocations((out / "00-provision-oci.sh").read_text(), "oci")
    seen = set()
    for argv in calls:
        verb_words = [w for w in argv[1:] if not w.startswith("-")][:3]
        for n in (3, 2):
            cmd = " ".join(verb_words[:n])
            if cmd in OCI_CLI_FLAGS:
                break
        else:
            raise AssertionError(f"undocumented oci command: {argv}")
        seen.add(cmd)
        flags = {w for w in argv if w.startswith("--")}
        assert flags <= OCI_CLI_FLAGS[cmd], (cmd, flags - OCI_CLI_FLAGS[cmd])
    assert {"bv volume create", "bv volume get", "bv volume list", "bv volume delete", "compute volume-attachment list",
            "compute volume-attachment attach-iscsi-volume", "compute volume-attachment detach"} <= seen
    text = (out / "00-provision-oci.sh").read_text()
    assert "--vpus-per-gb" in text and "--is-agent-auto-iscsi-login-enabled true" in text


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("aws") is None, reason="aws CLI not installed")
def test_aws_cli_commands_use_flags_the_installed_cli_documents(tmp_path):
    out = tmp_path / "aws"
    build(make_plan(make_layout(cloud="aws", members=2, iops=6000, throughput=500)), manager="lvm",
          devices=["/dev/nvme1n1", "/dev/nvme2n1"], out_dir=out, provision_with="aws-cli")
    calls = _cli_invocations((out / "00-provision-aws.sh").read_text(), "aws")
    helps: dict[str, str] = {}
    checked = 0
    for argv in calls:
        words = [w for w in argv[1:] if not w.startswith("-") and not w.startswith("$")][:3]
        sub = words[:3] if words[1] == "wait" else words[:2]
        key = " ".join(sub)
        if key not in helps:
            res = subprocess.run(["aws", *sub, "help"], capture_output=True, text=True, timeout=60,
                                 env={"PATH": "/root/.pyenv/shims:/usr/local/bin:/usr/bin:/bin", "PAGER": "cat",
                                      "HOME": "/root", "AWS_PAGER": ""})
            assert res.returncode == 0, res.stderr
            helps[key] = res.stdout
        for flag in (w for w in argv if w.startswith("--")):
            assert flag in helps[key], (key, flag)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("cloud", ["oci", "aws"])
def test_provision_script_dry_run_prints_the_cloud_commands(tmp_path, cloud):
    devs = OCI_DEVS[:2] if cloud == "oci" else ["/dev/nvme1n1", "/dev/nvme2n1"]
    out = tmp_path / cloud
    build(make_plan(make_layout(cloud=cloud, members=2, size_gb=700, vpu=30, iops=4000, throughput=250)),
          manager="lvm", devices=devs, out_dir=out, provision_with=f"{cloud}-cli")
    env = {"PATH": "/usr/bin:/bin", "OCI_COMPARTMENT_ID": "ocid1.compartment.oc1..x",
           "OCI_INSTANCE_ID": "ocid1.instance.oc1.phx.i1", "OCI_AVAILABILITY_DOMAIN": "Uocm:PHX-AD-1",
           "AWS_AVAILABILITY_ZONE": "us-east-1a", "AWS_INSTANCE_ID": "i-0123456789abcdef0"}
    res = subprocess.run(["bash", str(out / f"00-provision-{cloud}.sh"), "--dry-run"], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("DRY-RUN:")]
    assert len(lines) == 4  # create + attach per volume
    if cloud == "oci":
        assert all("--vpus-per-gb 30" in ln and "--size-in-gbs 700" in ln for ln in lines[::2])
        assert [ln.split("--device ")[1].split()[0] for ln in lines[1::2]] == OCI_DEVS[:2]
    else:
        assert all("--volume-type gp3" in ln and "--iops 4000" in ln and "--throughput 250" in ln for ln in lines[::2])
    missing = subprocess.run(["bash", str(out / f"00-provision-{cloud}.sh"), "--dry-run"], capture_output=True,
                             text=True, env={"PATH": "/usr/bin:/bin"})
    assert missing.returncode != 0 and "set " in missing.stderr


# the one data source each Terraform file may read, and the arguments that name what the volumes belong to
TF_IDENTITY = {
    "aws": dict(data="aws_instance", volume="aws_ebs_volume", attachment="aws_volume_attachment",
                zone=("availability_zone", "${data.aws_instance.this.availability_zone}")),
    "oci": dict(data="oci_core_instance", volume="oci_core_volume", attachment="oci_core_volume_attachment",
                zone=("availability_domain", "${data.oci_core_instance.this.availability_domain}")),
}


@pytest.mark.parametrize("cloud", ["oci", "aws"])
def test_terraform_knows_volumes_by_the_ids_it_creates_and_the_instance_by_its_id(tmp_path, cloud):
    """Static (Terraform's providers cannot be downloaded here, so no `terraform validate`): the only data source
    reads the instance by its ID; the volumes go to that instance's zone; each attachment names a volume this
    file creates and the instance; nothing is looked up by name."""
    want = TF_IDENTITY[cloud]
    _, doc = _tf(tmp_path, cloud=cloud, members=3, iops=3000 if cloud == "aws" else None)
    data = _plain(doc["data"])
    assert data == [{want["data"]: {"this": {"instance_id": "${var.instance_id}"}}}]
    variables = {name for block in _plain(doc["variable"]) for name in block}  # type: ignore[union-attr]
    assert variables <= {"instance_id", "compartment_id"}, "the zone comes from the instance, never a variable"
    validation = _plain(doc["variable"])[-1]["instance_id"]["validation"][0]["condition"]  # type: ignore[index]
    assert "var.instance_id" in validation
    vol, att = _resource(doc, want["volume"]), _resource(doc, want["attachment"])
    key, value = want["zone"]
    assert vol[key] == value
    assert att["volume_id"] == f"${{{want['volume']}.blockfit[count.index].id}}"
    assert att["instance_id"] == "${var.instance_id}"
    text = (tmp_path / f"tf-{cloud}" / "terraform" / "main.tf").read_text()
    assert "filter" not in text and "terraform import" in text
