"""What `blockfit build` generates: a RAID10 build, the command line, shellcheck over a matrix of plans ×
managers × filesystems × migration/provisioning, the notes, and the OCI multipath policy. The option checks, each
emitter's own arithmetic, and Terraform and cloud CLI flags are tested beside their modules (test_context.py,
test_migrate.py, test_provision.py, ...)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog
from blockfit.cli import main
from blockfit.emit import build
from blockfit.model.resolve import layout_spec
from blockfit.schema import BuildResult
from blockfit.specs import parse_layout
from support.build import make_layout, make_plan

KIB, MIB = 1024, 1024 * 1024
OCI_DEVS = [f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghijklmnop"]


# ---------------------------------------------------------------- a mirrored build, and the command line
def test_raid10_plan_builds_mdadm_raid10_near2_with_the_plans_chunk(tmp_path):
    plan = make_plan(make_layout(members=4, stripe=256 * KIB, manager="mdadm", redundancy="raid10"))
    out = tmp_path / "o"
    result = build(plan, manager="mdadm", devices=OCI_DEVS[:4], out_dir=out, mount="/u01")
    md = (out / "20-mdadm.sh").read_text()
    assert '--level=10 --layout=n2 --raid-devices="$MEMBERS" --chunk="$((CHUNK_BYTES / 1024))K"' in md
    assert "CHUNK_BYTES=262144" in md and "LEVEL=raid10" in md and "LAYOUT_WORD=258" in md
    assert "set -euo pipefail" in md and "--dry-run" in md and "BLOCKFIT_MDADM_ASSUME_CLEAN" in md
    # two copies of each chunk: a full stripe holds 4 / 2 chunks of distinct data
    assert "su=256k,sw=2" in (out / "40-filesystem.sh").read_text()
    assert "RAID10" in next(s.description for s in result.steps if s.name == "mdadm")
    assert "RAID10" in (out / "README.md").read_text()
    striped = build(make_plan(make_layout(members=4, stripe=256 * KIB)), manager="mdadm", devices=OCI_DEVS[:4],
                    out_dir=tmp_path / "r0", mount="/u01")
    assert striped.manager == "mdadm" and "--level=0 " in (tmp_path / "r0" / "20-mdadm.sh").read_text()
    assert "su=256k,sw=4" in (tmp_path / "r0" / "40-filesystem.sh").read_text()


def write_plan(tmp_path: Path, members: int) -> Path:
    """A plan file `build --plan` accepts: its layout spec, details and catalog version agree (read_plan derives
    them again and refuses a file whose fields disagree)."""
    cat = load_catalog("oci")
    layout = parse_layout(f"{members}x500G@balanced", "oci", cat, stripe_size=1024 * 1024)
    data = json.loads(make_plan(layout).model_dump_json())
    for node in (data["candidates"][0], data["candidates"][0]["prediction"]):
        node["layout"] = layout_spec(cat, layout)
    data["catalog_version"] = data["candidates"][0]["prediction"]["catalog_version"] = cat.version.isoformat()
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    return path


def test_cli_writes_scripts_and_json(tmp_path, capsys):
    plan = write_plan(tmp_path, members=3)
    out = tmp_path / "out"
    main(["build", "--plan", str(plan), "--manager", "lvm", "--devices", ",".join(OCI_DEVS[:3]),
          "--mount", "/u01", "--out", str(out), "--json"])
    result = BuildResult.model_validate_json(capsys.readouterr().out)
    assert [s.path for s in result.steps if s.order] == ["10-oci-attachments.sh", "20-lvm.sh", "40-filesystem.sh"]
    for step in result.steps:
        assert (out / step.path).is_file()
    assert (out / "20-lvm.sh").stat().st_mode & 0o111
    assert "lvcreate" in (out / "20-lvm.sh").read_text()


def test_cli_refuses_a_non_empty_out_dir_unless_forced(tmp_path, capsys):
    plan = write_plan(tmp_path, members=2)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    args = ["build", "--plan", str(plan), "--manager", "mdadm", "--devices", "/dev/vdb,/dev/vdc", "--out", str(out)]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not empty" in err
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    main([*args, "--force"])
    assert (out / "20-mdadm.sh").exists() and (out / "keep.txt").read_text() == "mine"


def test_cli_bad_plan_file(tmp_path, capsys):
    bad = tmp_path / "plan.json"
    bad.write_text(json.dumps({"cloud": "oci"}))
    for plan in (bad, tmp_path / "missing.json"):
        with pytest.raises(SystemExit) as exc:
            main(["build", "--plan", str(plan), "--manager", "lvm", "--devices", "/dev/vdb", "--out",
                  str(tmp_path / "o")])
        assert exc.value.code == 2
        assert "--plan" in capsys.readouterr().err


# ---------------------------------------------------------------- shellcheck over a matrix
def _cases() -> list[tuple[str, dict[str, object], dict[str, object]]]:
    plans: dict[str, dict[str, object]] = {
        "oci-9x500-balanced-4m": dict(cloud="oci", members=9, vpu=10, stripe=4 * MIB),
        "oci-4x1000-uhp-1m": dict(cloud="oci", members=4, vpu=120, stripe=1 * MIB, paths=4),
        "oci-3x700-hp-256k": dict(cloud="oci", members=3, vpu=20, stripe=256 * KIB),
        "aws-4x500-gp3-512k": dict(cloud="aws", members=4, stripe=512 * KIB, iops=6000, throughput=500),
        "aws-2x1000-io2-64k": dict(cloud="aws", vtype="io2", members=2, stripe=64 * KIB, iops=20000),
    }
    cases = []
    for pname, layout in plans.items():
        n = int(layout["members"])  # type: ignore[call-overload]
        cloud = layout["cloud"]
        devs = OCI_DEVS[:n] if cloud == "oci" else [f"/dev/nvme{i}n1" for i in range(1, n + 1)]
        prov = ["terraform", "oci-cli" if cloud == "oci" else "aws-cli"]
        for manager in ("lvm", "mdadm", "asm"):
            if manager == "asm":
                cases.append((f"{pname}-asm", layout, dict(manager="asm", devices=devs, provision_with=prov[1])))
                continue
            for fs in ("xfs", "ext4"):
                base = dict(manager=manager, devices=devs, mount="/u01", fs=fs)
                cases.append((f"{pname}-{manager}-{fs}", layout, base))
                cases.append((f"{pname}-{manager}-{fs}-offline", layout,
                              {**base, "migrate_from": "/dev/ebs_vg/ebs_lv", "method": "offline",
                               "provision_with": prov[fs == "ext4"]}))
            if manager == "lvm":
                cases.append((f"{pname}-lvm-online", layout,
                              dict(manager="lvm", devices=devs, mount="/u01", migrate_from="/dev/mapper/ebs_vg-ebs_lv",
                                   method="online")))
    cases.append(("single-none-xfs", dict(members=1, stripe=None), dict(manager="none", devices=["/dev/vdb"],
                                                                          mount="/u01")))
    for mirror in ("normal", "high"):
        cases.append((f"oci-3x500-asm-{mirror}", dict(cloud="oci", members=3, vpu=20, stripe=4 * MIB, manager="asm",
                                                      redundancy=mirror), dict(manager="asm", devices=OCI_DEVS[:3])))
    cases.append(("oci-2x500-uhp-paravirtualized", dict(cloud="oci", members=2, vpu=30, attachment="paravirtualized"),
                  dict(manager="lvm", devices=OCI_DEVS[:2], mount="/u01", provision_with="oci-cli")))
    raid10 = dict(cloud="oci", members=4, vpu=10, stripe=1 * MIB, manager="mdadm", redundancy="raid10")
    for fs in ("xfs", "ext4"):
        cases.append((f"oci-4x500-balanced-raid10-mdadm-{fs}", raid10,
                      dict(manager="mdadm", devices=OCI_DEVS[:4], mount="/u01", fs=fs)))
    cases.append(("oci-4x500-balanced-raid10-mdadm-xfs-offline", raid10,
                  dict(manager="mdadm", devices=OCI_DEVS[:4], mount="/u01", migrate_from="/dev/ebs_vg/ebs_lv",
                       method="offline", provision_with="oci-cli")))
    return cases


CASES = _cases()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
def test_every_generated_script_passes_shellcheck(tmp_path):
    scripts: list[Path] = []
    kinds: set[str] = set()
    for name, layout, kw in CASES:
        out = tmp_path / name
        result = build(make_plan(make_layout(**layout)), out_dir=out, **kw)  # type: ignore[arg-type]
        kinds.update(s.path for s in result.steps)
        scripts += sorted(out.glob("*.sh"))
    assert len(CASES) >= 40
    assert any(layout.get("redundancy") == "raid10" for _, layout, _ in CASES)
    assert {"00-provision-oci.sh", "00-provision-aws.sh", "10-oci-attachments.sh", "11-oci-multipath.sh", "20-lvm.sh",
            "20-mdadm.sh",
            "20-asm-udev.sh", "21-asm-diskgroup.sh", "30-migrate-offline.sh", "30-migrate-online.sh",
            "40-filesystem.sh", "run-all.sh"} <= kinds
    # identical scripts (e.g. the same step for two filesystems) are checked once; two shellchecks at a time
    unique = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in scripts}
    res = subprocess.run(["xargs", "-0", "-P", "2", "-n", "16", "shellcheck", "--severity=style", "--shell=bash"],
                         input="\0".join(map(str, unique.values())), capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[:5000]


def test_every_script_is_strict_and_has_a_dry_run(tmp_path):
    for name, layout, kw in CASES[:12]:
        out = tmp_path / name
        build(make_plan(make_layout(**layout)), out_dir=out, **kw)  # type: ignore[arg-type]
        for script in out.glob("*.sh"):
            text = script.read_text()
            assert "set -euo pipefail" in text and "--dry-run" in text, script
            assert "<(" not in text, f"{script}: process substitution needs /dev/fd (absent in a minimal guest)"


def test_notes_explain_choices(tmp_path):
    plan = make_plan(make_layout(members=2, stripe=256 * KIB))
    result = build(plan, manager="asm", devices=["/dev/sdb", "/dev/sdc"], out_dir=tmp_path / "o")
    text = " ".join(result.notes)
    assert "not a valid ASM AU" in text and "consistent device paths" in text and "made for lvm" in text
    readme = (tmp_path / "o" / "README.md").read_text()
    assert "not a valid ASM AU" in readme and "21-asm-diskgroup.sql" in readme


# ---------------------------------------------------------------- multipath policy (OCI UHP)
# `dmsetup table` / `dmsetup status` of a two-path map as the lab guest's kernel (6.1) printed them
# (tests/data/diagnose/lab_multipath.recipe.py): one group of both paths (spread), and two groups of one
# path each (the failover grouping); the failed-path status is the spread one with path 2 marked F. The
# host kernel has no device-mapper, so the script reads them from a stand-in dmsetup; the lab test
# (tests/lab/test_lab_paths.py) runs the script against real maps in the guest.
MAPS = {
    "spread": ("0 524288 multipath 0 0 1 1 round-robin 0 2 1 254:0 1 254:16 1",
               "0 524288 multipath 2 1 0 0 1 1 E 0 2 0 254:0 A 0 254:16 A 0"),
    "failover": ("0 524288 multipath 0 0 2 1 round-robin 0 1 1 254:0 1 round-robin 0 1 1 254:16 1",
                 "0 524288 multipath 2 1 0 0 2 1 E 0 1 0 254:0 A 0 E 0 1 0 254:16 A 0"),
    "failed-path": ("0 524288 multipath 0 0 1 1 service-time 0 2 2 254:0 1 1 254:16 1 1",
                    "0 524288 multipath 2 0 0 0 1 1 A 0 2 2 254:0 A 0 0 1 254:16 F 3 0 1"),
}


def _multipath_script(tmp_path: Path, paths: int = 2) -> Path:
    out = tmp_path / "mp"
    layout = make_layout(members=1, vpu=120, stripe=None, paths=paths)
    build(make_plan(layout), manager="none", devices=["/dev/oracleoci/oraclevdb"], out_dir=out)
    script = out / "11-oci-multipath.sh"
    # the script's device is a real block node (only stat'ed for its numbers, never opened)
    script.write_text(script.read_text().replace("DEVICES=(/dev/oracleoci/oraclevdb)", "DEVICES=(/dev/loop0)"))
    return script


def _run_multipath(tmp_path: Path, script: Path, state: str, *args: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    table, status = MAPS[state]
    fake = bin_dir / "dmsetup"
    fake.write_text(f"#!/bin/sh\ncase $1 in table) echo '{table}' ;; status) echo '{status}' ;; "
                    "info) echo ' mpath-3600a0980383030523424457a4d6f7a31' ;; esac\n")
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/sbin:/usr/bin:/sbin:/bin", "BLOCKFIT_MULTIPATH_CONF_DIR": str(tmp_path / "conf.d"),
           "BLOCKFIT_LOG": str(tmp_path / "log"), "BLOCKFIT_STATE_DIR": str(tmp_path / "state")}
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, env=env, timeout=60)


def test_multipath_policy_spreads_over_all_paths_and_cites_why(tmp_path):
    script = _multipath_script(tmp_path)
    text = script.read_text()
    for line in ("GROUPING=multibus", "SELECTOR='service-time 0'", "multipath.conf(5)",
                 "https://man7.org/linux/man-pages/man5/multipath.conf.5.html"):
        assert line in text, line
    balanced = tmp_path / "balanced"
    result = build(make_plan(make_layout(members=2, vpu=10)), manager="lvm", devices=OCI_DEVS[:2], out_dir=balanced)
    assert "11-oci-multipath.sh" not in [s.path for s in result.steps]  # Balanced: no multipath attachment


@pytest.mark.skipif(not Path("/dev/loop0").is_block_device(), reason="needs a block device node to stat")
def test_multipath_policy_applies_once_and_verifies_a_spread_map(tmp_path):
    script = _multipath_script(tmp_path)
    first = _run_multipath(tmp_path, script, "spread")
    assert first.returncode == 0, first.stderr
    conf = tmp_path / "conf.d" / "blockfit-single.conf"
    assert conf.read_text().splitlines()[1:] == [
        "multipaths {", "\tmultipath {", '\t\twwid "3600a0980383030523424457a4d6f7a31"',
        "\t\tpath_grouping_policy multibus", '\t\tpath_selector "service-time 0"', "\t}", "}"]
    assert "ok: /dev/loop0: 2 of 2 paths active in 1 path group" in first.stderr
    before = conf.stat().st_mtime_ns
    again = _run_multipath(tmp_path, script, "spread")
    assert again.returncode == 0, again.stderr
    assert f"already done: {conf}" in again.stderr and "already done: every map" in again.stderr
    assert conf.stat().st_mtime_ns == before and sorted(p.name for p in conf.parent.iterdir()) == [conf.name]


@pytest.mark.skipif(not Path("/dev/loop0").is_block_device(), reason="needs a block device node to stat")
@pytest.mark.parametrize(("state", "expect"), [("failover", "2 path group(s), 2 of 2 paths active"),
                                               ("failed-path", "1 path group(s), 1 of 2 paths active")])
def test_multipath_policy_refuses_a_map_that_is_not_spread(tmp_path, state, expect):
    script = _multipath_script(tmp_path)
    dry = _run_multipath(tmp_path, script, state, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "DRY-RUN: write" in dry.stdout and "path_grouping_policy multibus" in dry.stdout
    assert not (tmp_path / "conf.d").exists()  # the dry run changed nothing
    assert f"NOT SPREAD: /dev/loop0: {expect}" in dry.stderr
    real = _run_multipath(tmp_path, script, state)
    assert real.returncode != 0
    # after writing the policy it must reload the maps: here multipath-tools is absent, which it says
    assert (tmp_path / "conf.d" / "blockfit-single.conf").exists()
    assert "multipath-tools not installed" in real.stderr


@pytest.mark.skipif(not Path("/dev/loop0").is_block_device(), reason="needs a block device node to stat")
def test_multipath_policy_wants_the_plans_paths(tmp_path):
    script = _multipath_script(tmp_path, paths=4)
    assert "WANT_PATHS=4" in script.read_text()
    dry = _run_multipath(tmp_path, script, "spread", "--dry-run")  # a spread map, but of 2 paths, not 4
    assert "NOT SPREAD: /dev/loop0: 1 path group(s), 2 of 2 paths active (want 1 group, all paths active, at " \
           "least 4 paths)" in dry.stderr
    balanced = tmp_path / "balanced4"
    layout = make_layout(members=1, vpu=10, stripe=None, paths=4)
    result = build(make_plan(layout), manager="none", devices=["/dev/sdb"], out_dir=balanced)
    assert "11-oci-multipath.sh" in [s.path for s in result.steps]  # several paths: spread them, whatever level


def test_multipath_policy_refuses_a_device_that_is_not_a_map(tmp_path):
    script = _multipath_script(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dmsetup").write_text("#!/bin/sh\necho '0 524288 linear 254:0 0'\n")
    (bin_dir / "dmsetup").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/sbin:/usr/bin:/sbin:/bin", "BLOCKFIT_MULTIPATH_CONF_DIR": str(tmp_path / "c")}
    res = subprocess.run(["bash", str(script), "--dry-run"], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode != 0 and "NOT MULTIPATH: /dev/loop0" in res.stderr


@pytest.mark.skipif(not Path("/dev/loop0").is_block_device(), reason="needs a block device node to stat")
def test_log_lines_carry_an_iso_time_with_its_offset_and_start_no_date_process(tmp_path):
    """Every line a root script logs is stamped by bash's own printf: right whatever TZ says (the offset is in the
    stamp), and no `date` process per line (a build logs every command it runs; each process costs a slow guest
    about 0.1 s). A `date` on PATH that records being called proves it is not used."""
    script = _multipath_script(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "date-calls"
    (bin_dir / "date").write_text(f"#!/bin/sh\necho called >> {calls}\nexit 1\n")
    (bin_dir / "date").chmod(0o755)
    res = _run_multipath(tmp_path, script, "spread")
    assert res.returncode == 0, res.stderr
    stamped = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(stamped) >= 3, res.stderr
    assert all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} \[", ln) for ln in stamped), res.stderr
    assert not calls.exists(), "a log line started date"
