"""Hostile plan files (issue 36): real `blockfit plan` results, one per cloud, with every string field mutated in
turn by payloads that would run a command in bash, add a Terraform block, end a SQL statement, drive a terminal
or inject rich markup. Each is fed to what `build --plan` and `lab --plan` do (in-process, the library the CLI
calls) and a representative few to the real CLI.

A mutation is either refused (InputError, one line) or accepted; an accepted plan must build exactly the files
the unmutated plan builds (nothing the file spells reaches a generated file), every .sh passes `bash -n`, and
no MARKER file appears anywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from blockfit.cli.lab import lab_target
from blockfit.emit.bundle import generate
from blockfit.emit.context import BuildContext
from blockfit.errors import InputError

PAYLOADS = [
    "\ntouch MARKER #",
    "$(touch MARKER)",
    "`touch MARKER`",
    '"; provisioner "local-exec" { command = "touch MARKER" } #',
    "'; DROP DISKGROUP DATA; --",
    "\x1b]0;pwned\x07",
    "[link=file:///etc/passwd]x[/link]",
]
OCI_DEVS = [f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghijklmnopqrstuvwxyz"]
OTHER_DEVS = [f"/dev/blockfit-absent-{i:02d}" for i in range(1, 40)]
# cloud plan: (its `blockfit plan` arguments, the build options it is built with)
PLANS: dict[str, tuple[list[str], dict[str, Any]]] = {
    "part3": (["--example", "part3"], dict(manager="lvm", mount="/u01", provision="oci-cli")),
    "oci-asm": (["--cloud", "oci", "--capacity", "2T", "--target-iops", "100000", "--instance",
                 "VM.Standard.E4.Flex:16", "--manager", "asm", "--redundancy", "normal"],
                dict(manager="asm", provision="terraform")),
    "aws": (["--cloud", "aws", "--capacity", "2T", "--target-iops", "20000", "--target-mbps", "500", "--instance",
             "r6i.8xlarge"], dict(manager="lvm", mount="/u01", provision="terraform")),
    "azure": (["--cloud", "azure", "--capacity", "2T", "--target-iops", "20000", "--instance", "Standard_E32s_v5"],
              dict(manager="mdadm", mount="/u01")),
    "gcp": (["--cloud", "gcp", "--capacity", "2T", "--target-iops", "20000", "--instance", "n2-standard-32"],
            dict(manager="lvm", mount="/u02", fs="ext4")),
}


def _blockfit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each cloud's real plan, computed in parallel."""
    cwd = tmp_path_factory.mktemp("plans")
    procs = {name: subprocess.Popen([sys.executable, "-m", "blockfit", "plan", *args, "--json"], cwd=cwd,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name, (args, _) in PLANS.items()}
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, (name, stderr)
        out[name] = json.loads(stdout)
        assert out[name]["candidates"], name
    return out


def _string_fields(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every string in NODE, keys included as their own field where they name free entries."""
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _string_fields(v, (*path, k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _string_fields(v, (*path, i))]
    return [path] if isinstance(node, str) else []


def _distinct(paths: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """One path per field: the first element of each list stands for the others (candidates.0 is the one built),
    so every field name at every depth is mutated once per payload."""
    seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for path in paths:
        seen.setdefault(tuple("#" if isinstance(p, int) else p for p in path), path)
    return list(seen.values())


def _mutated(data: dict[str, Any], path: tuple[Any, ...], payload: str) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    _set(copy, path, _get(copy, path) + payload)
    return copy


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: tuple[Any, ...], value: str) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _payloads(field: tuple[Any, ...], index: int) -> list[str]:
    """Every payload for the candidate a build uses and the plan's own fields; for the other candidates (pareto,
    infeasible: read by the same code as candidate 0) and figures' prose, one payload each, in turn."""
    if field[:2] == ("candidates", 0) and "limits" not in field or len(field) <= 2:
        return PAYLOADS
    return [PAYLOADS[index % len(PAYLOADS)]]


def _build_files(plan: Any, options: dict[str, Any], tmp: Path) -> dict[str, str]:
    layout = plan.candidates[0].layout_detail
    devices = (OCI_DEVS if layout.volume.cloud == "oci" else OTHER_DEVS)[:layout.members]
    ctx = BuildContext(plan=plan, candidate_index=0, devices=devices, out_dir=tmp / "out", **options)
    _, files = generate(ctx)
    return {f.step.path: f.text for f in files}


def _assert_one_line(exc: InputError) -> None:
    text = str(exc)
    assert "\n" not in text and "\r" not in text and "\x1b" not in text and len(text) < 600, text[:300]


@pytest.mark.parametrize("name", list(PLANS))
def test_every_string_field_mutated_is_refused_or_changes_nothing_built(name, plans, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # two Pareto entries stand for the rest (each is read by the same code as a candidate): Azure's twelve made
    # every read of the file three times as long
    data, options = {**plans[name], "pareto": plans[name]["pareto"][:2]}, PLANS[name][1]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    base = _build_files(lab_target(path, None, None, None, None, "lvm").plan, options, tmp_path)
    fields = _distinct(_string_fields(data))
    assert len(fields) > 50  # the whole result, not a sample of it
    refused = accepted = 0
    data = json.loads(json.dumps(data))  # mutated in place below, each field restored after its payloads
    for index, field in enumerate(fields):
        original = _get(data, field)
        for payload in _payloads(field, index):
            _set(data, field, original + payload)
            path.write_text(json.dumps(data))
            try:
                target = lab_target(path, None, None, None, None, "lvm")  # what `lab --plan` and `build --plan` read
            except InputError as exc:
                _assert_one_line(exc)
                refused += 1
                continue
            accepted += 1
            assert _build_files(target.plan, options, tmp_path) == base, (field, payload)
        _set(data, field, original)
    assert refused > 0 and accepted > 0
    # the specs, details and names a build uses are refused whatever the payload
    for field in (("candidates", 0, "layout"), ("candidates", 0, "instance"), ("catalog_version",), ("cloud",),
                  ("candidates", 0, "prediction", "layout_detail", "volume", "type")):
        for payload in PAYLOADS:
            path.write_text(json.dumps(_mutated(data, field, payload)))
            with pytest.raises(InputError):
                lab_target(path, None, None, None, None, "lvm")
    out = tmp_path / "scripts"
    out.mkdir()
    for file, text in base.items():
        (out / file.replace("/", "_")).write_text(text)
    scripts = sorted(str(p) for p in out.glob("*.sh"))
    check = subprocess.run(["bash", "-c", 'for f; do bash -n "$f" || exit 1; done', "x", *scripts],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    assert not list(tmp_path.rglob("MARKER")) and not (Path.cwd() / "MARKER").exists()


def test_the_cli_refuses_a_hostile_layout_and_instance_in_one_line(plans, tmp_path):
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(_mutated(plans["part3"], ("candidates", 0, "layout"), PAYLOADS[0])))
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(_mutated(plans["aws"], ("candidates", 0, "instance"), PAYLOADS[1])))
    for args in (["build", "--plan", str(layout), "--manager", "lvm", "--out", "o", "--devices",
                  ",".join(OCI_DEVS[:6])], ["lab", "--plan", str(instance)]):
        proc = _blockfit(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args[0], proc.stderr)
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert "--plan" in proc.stderr and "candidates.0" in proc.stderr
    assert not (tmp_path / "o").exists() and not list(tmp_path.rglob("MARKER"))


def test_the_cli_builds_a_plan_with_hostile_prose_and_its_dry_run_creates_nothing(plans, tmp_path):
    data = plans["part3"]
    for field in (("notes", 0), ("candidates", 0, "stripe_reason"), ("candidates", 0, "prediction", "limits", 0,
                                                                          "description")):
        for payload in PAYLOADS:
            data = _mutated(data, field, payload)
    path = tmp_path / "prose.json"
    path.write_text(json.dumps(data))
    proc = _blockfit("build", "--plan", str(path), "--manager", "lvm", "--out", "o", "--devices",
                     ",".join(OCI_DEVS[:6]), "--mount", "/u01", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    out = tmp_path / "o"
    for script in sorted(out.glob("*.sh")):
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=60).returncode == 0, script
        assert "MARKER" not in script.read_text()
    dry = subprocess.run(["bash", str(out / "20-lvm.sh"), "--dry-run"], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert dry.returncode != 0 and "does not exist" in dry.stderr  # the absent device stops it, and nothing ran
    assert not list(tmp_path.rglob("MARKER"))
