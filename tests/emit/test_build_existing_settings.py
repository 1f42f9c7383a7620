"""The build scripts on a system that already has a value: they add to it or refuse, and never overwrite it.

Each setting the emitters touch (asm_diskstring, the ASM udev rules, iscsid.conf and the iSCSI node records,
the multipath drop-in, fstab, mdadm.conf, an LVM volume group of the same name) is tried against an existing
value. The scripts run for real against a temporary root: files under tmp_path (BLOCKFIT_FSTAB, ...), a copy of
the sysfs entries they read (BLOCKFIT_SYSFS), loop devices of our own; the programs that need what this host
lacks (an Oracle ASM instance: sqlplus; iSCSI sessions: iscsiadm; device-mapper maps: dmsetup) are stand-ins
that answer as those would and record what they were asked. Cost: about 15 s (root tests: loop devices).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from blockfit.emit import build
from blockfit.schema import BuildResult
from support.build import make_layout, make_plan

MB = 1024 * 1024
OCI_DEVS = [f"/dev/oracleoci/oraclevd{c}" for c in "bcdefghij"]
needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None, reason="needs root and losetup")


def sh(*args: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, check=check, env=env)


def run(script: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, env=env, timeout=120)


def stub(bin_dir: Path, name: str, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Logs and state under tmp_path; stand-ins in tmp_path/bin come first on PATH."""
    return {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "BLOCKFIT_LOG": str(tmp_path / "log"),
            "BLOCKFIT_STATE_DIR": str(tmp_path / "state"), "BLOCKFIT_FSTAB": str(tmp_path / "fstab")}


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[Callable[[int], str]]:
    """Loop devices of our own (sparse backing files), detached afterwards; nothing of another clone is touched."""
    attached: list[str] = []

    def attach(size_mb: int = 64) -> str:
        backing = tmp_path / f"existing-{len(attached)}.img"
        with open(backing, "wb") as f:
            f.truncate(size_mb * MB)
        dev = sh("losetup", "-f", "--show", str(backing)).stdout.strip()
        attached.append(dev)
        return dev

    yield attach
    for dev in attached:
        sh("umount", dev, check=False)
        sh("losetup", "-d", dev, check=False)


def with_devices(script: Path, devices: list[str]) -> Path:
    """The script as generated for OCI device paths, pointed at devices that exist here (only stat'ed or checked)."""
    text = script.read_text()
    text = re.sub(r"^DEVICES=\(.*\)$", "DEVICES=(" + " ".join(devices) + ")", text, count=1, flags=re.M)
    script.write_text(text)
    return script


# ---------------------------------------------------------------- ASM: asm_diskstring is appended to, never replaced
SQLPLUS = r"""
# Stand-in for `sqlplus -S -L / as sysasm`: answers the queries 21-asm-diskgroup.sh makes from FAKE_* and records
# every ALTER SYSTEM and script run in FAKE_LOG.
if [[ " $* " == *" @"* ]]; then printf 'RUN %s\n' "${*: -1}" >>"$FAKE_LOG"; exit 0; fi
sql=$(cat)
case $sql in
  *"ALTER SYSTEM"*) grep 'ALTER SYSTEM' <<<"$sql" >>"$FAKE_LOG" ;;
  *"v\$asm_diskgroup"*) printf '%s\n' "${FAKE_DG_TYPE:-}" ;;
  *"v\$parameter"*) printf '  %s  \n' "$FAKE_DISKSTRING" ;;
  *"group_number > 0"*) printf '%s\n' "${FAKE_IN_GROUPS:-0}" ;;
  *"v\$asm_disk"*) printf '%s\n' "${FAKE_DISKS:-}" ;;
esac
"""


def asm_script(tmp_path: Path, redundancy: str = "none", members: int = 2) -> Path:
    out = tmp_path / "asm"
    manager_layout = make_layout(members=members, stripe=4 * MB, manager="asm", redundancy=redundancy)
    build(make_plan(manager_layout), manager="asm", devices=OCI_DEVS[:members], out_dir=out)
    stub(tmp_path / "bin", "sqlplus", SQLPLUS)
    return out / "21-asm-diskgroup.sh"


def asm_run(tmp_path: Path, script: Path, env: dict[str, str], *args: str,
            **fake: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    log = tmp_path / f"sqlplus-{uuid.uuid4().hex}.log"
    fake_env = {**env, "FAKE_LOG": str(log), **{f"FAKE_{k.upper()}": v for k, v in fake.items()}}
    res = run(script, fake_env, *args)
    return res, log.read_text().splitlines() if log.exists() else []


def test_asm_sql_no_longer_sets_the_discovery_string_blindly(tmp_path):
    """Issue 22 finding 7: the SQL set asm_diskstring = '/dev/oracleasm/*' SCOPE=BOTH whatever it was."""
    asm_script(tmp_path)
    sql = (tmp_path / "asm" / "21-asm-diskgroup.sql").read_text()
    assert "ALTER SYSTEM" not in sql and "CREATE DISKGROUP DATA EXTERNAL REDUNDANCY" in sql


def test_asm_appends_to_an_existing_discovery_string(tmp_path, env):
    script = asm_script(tmp_path)
    res, calls = asm_run(tmp_path, script, env, diskstring="/dev/mapper/asm*, ORCL:*", in_groups="4",
                         disks="/dev/mapper/asm1\n/dev/mapper/asm2\nORCL:FRA1")
    assert res.returncode == 0, res.stderr
    assert calls[0] == "ALTER SYSTEM SET asm_diskstring = '/dev/mapper/asm*', 'ORCL:*', '/dev/oracleasm/*' SCOPE=BOTH;"
    assert calls[1] == f"RUN @{tmp_path / 'asm' / '21-asm-diskgroup.sql'}"


def test_asm_dry_run_prints_the_change_and_makes_none(tmp_path, env):
    script = asm_script(tmp_path)
    res, calls = asm_run(tmp_path, script, env, "--dry-run", diskstring="/dev/sd*", in_groups="2",
                         disks="/dev/sdq\n/dev/sdr")
    assert res.returncode == 0, res.stderr
    assert "DRY-RUN: ALTER SYSTEM SET asm_diskstring = '/dev/sd*', '/dev/oracleasm/*' SCOPE=BOTH;" in res.stdout
    assert "DRY-RUN: sqlplus" in res.stdout and calls == []


def test_asm_leaves_a_discovery_string_that_finds_the_disks_already(tmp_path, env):
    script = asm_script(tmp_path)
    res, calls = asm_run(tmp_path, script, env, diskstring="/dev/oracleasm/*", in_groups="0",
                         disks="/dev/oracleasm/data01\n/dev/oracleasm/data02")
    assert res.returncode == 0, res.stderr
    assert "not changed" in res.stderr and not any(c.startswith("ALTER") for c in calls)
    assert calls == [f"RUN @{tmp_path / 'asm' / '21-asm-diskgroup.sql'}"]


def test_asm_names_only_the_new_disks_when_others_under_the_same_directory_are_found(tmp_path, env):
    """A wildcard would discover fra01 a second time (found already through /dev/oracleasm/fra*)."""
    script = asm_script(tmp_path)
    res, calls = asm_run(tmp_path, script, env, diskstring="/dev/oracleasm/fra*", in_groups="1",
                         disks="/dev/oracleasm/fra01")
    assert res.returncode == 0, res.stderr
    assert calls[0] == ("ALTER SYSTEM SET asm_diskstring = '/dev/oracleasm/fra*', '/dev/oracleasm/data01', "
                        "'/dev/oracleasm/data02' SCOPE=BOTH;")


def test_asm_refuses_to_replace_the_empty_default_while_disk_groups_use_it(tmp_path, env):
    script = asm_script(tmp_path)
    res, calls = asm_run(tmp_path, script, env, diskstring="", in_groups="3", disks="/dev/sdb\n/dev/sdc\n/dev/sdd")
    assert res.returncode == 1 and "asm_diskstring is empty" in res.stderr and calls == []
    fresh, calls = asm_run(tmp_path, script, env, diskstring="", in_groups="0", disks="")
    assert fresh.returncode == 0, fresh.stderr
    assert calls[0] == "ALTER SYSTEM SET asm_diskstring = '/dev/oracleasm/*' SCOPE=BOTH;"


def test_asm_refuses_a_disk_the_string_finds_under_another_name(tmp_path, env):
    """/dev/mapper/* already finds the multipath map the udev rule names /dev/oracleasm/data01: adding
    /dev/oracleasm/* would make ASM discover one disk twice. Symlinks under tmp_path play both names."""
    script = asm_script(tmp_path)
    asm_dir, mapper = tmp_path / "oracleasm", tmp_path / "mapper"
    asm_dir.mkdir()
    mapper.mkdir()
    (tmp_path / "dm-3").write_text("")
    (asm_dir / "data01").symlink_to(tmp_path / "dm-3")
    (mapper / "mpatha").symlink_to(tmp_path / "dm-3")
    text = script.read_text().replace("/dev/oracleasm", str(asm_dir))
    script.write_text(text)
    res, calls = asm_run(tmp_path, script, env, diskstring=f"{mapper}/*", in_groups="0", disks=f"{mapper}/mpatha")
    assert res.returncode == 1 and calls == []
    assert f"{asm_dir}/data01 is discovered as {mapper}/mpatha" in res.stderr


def test_asm_keeps_an_existing_disk_group_of_another_redundancy(tmp_path, env):
    script = asm_script(tmp_path, redundancy="normal", members=2)
    res, calls = asm_run(tmp_path, script, env, dg_type="EXTERN", diskstring="/dev/sd*")
    assert res.returncode == 1 and "exists with EXTERN redundancy" in res.stderr and calls == []
    same, calls = asm_run(tmp_path, script, env, dg_type="NORMAL", diskstring="/dev/sd*")
    assert same.returncode == 0 and "already done" in same.stderr and calls == []


# ---------------------------------------------------------------- ASM: udev rules of other disk groups are kept
def fake_serial_sysfs(root: Path, dev: str, serial: str) -> None:
    name = os.path.basename(os.path.realpath(dev))
    (root / "class" / "block" / name).mkdir(parents=True, exist_ok=True)
    (root / "class" / "block" / name / "serial").write_text(serial + "\n")


@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_asm_udev_rules_keep_other_lines_and_refuse_a_name_given_elsewhere(tmp_path, env, loops):
    devs = [loops(), loops()]
    out = tmp_path / "o"
    build(make_plan(make_layout(members=2, stripe=4 * MB, manager="asm")), manager="asm", devices=OCI_DEVS[:2],
          out_dir=out)
    script = with_devices(out / "20-asm-udev.sh", devs)
    assert "/etc/udev/rules.d/99-blockfit-asm-data.rules" in script.read_text()  # one file per disk group
    sysfs = tmp_path / "sys"
    for i, d in enumerate(devs):
        fake_serial_sysfs(sysfs, d, f"SERIAL{i}")
    rules_dir = tmp_path / "rules.d"
    rules_dir.mkdir()
    rules = rules_dir / "99-blockfit-asm-data.rules"
    fra = 'ACTION=="add|change", ATTRS{serial}=="FRA1", SYMLINK+="oracleasm/fra01", OWNER="grid", MODE="0660"'
    rules.write_text(f"# a site comment\n{fra}\n"
                     'ACTION=="add|change", ATTRS{serial}=="OLD", SYMLINK+="oracleasm/data01", OWNER="grid"\n')
    before = rules.read_text()
    renv = {**env, "BLOCKFIT_ASM_RULES": str(rules), "BLOCKFIT_SYSFS": str(sysfs)}
    res = run(script, renv, "--dry-run")
    assert res.returncode == 0, res.stderr
    written = [ln[4:] for ln in res.stdout.splitlines() if ln.startswith("    ")]
    assert written[:2] == ["# a site comment", fra]                      # the other disk group's rule stays
    assert 'ATTRS{serial}=="SERIAL0", SYMLINK+="oracleasm/data01"' in written[2]
    assert 'ATTRS{serial}=="SERIAL1", SYMLINK+="oracleasm/data02"' in written[3] and len(written) == 4
    sysnames = [os.path.basename(os.path.realpath(d)) for d in devs]
    assert ("DRY-RUN: udevadm trigger --action=change --subsystem-match=block "
            + " ".join(f"--sysname-match={n}" for n in sysnames)) in res.stdout
    assert rules.read_text() == before
    (rules_dir / "60-site.rules").write_text('KERNEL=="sdx", SYMLINK+="oracleasm/data02"\n')
    clash = run(script, renv, "--dry-run")
    assert clash.returncode == 1 and "60-site.rules names oracleasm/data02" in clash.stderr
    assert "DRY-RUN: write" not in clash.stdout


# ---------------------------------------------------------------- iSCSI: the queue depth is raised, never lowered
def fake_iscsi_sysfs(root: Path, dev: str, session: int) -> None:
    """sysfs as an iSCSI disk shows it: block/NAME/device -> .../sessionN/...; the session's target and portal."""
    name = os.path.basename(os.path.realpath(dev))
    target = root / "devices" / "platform" / "host2" / f"session{session}" / "target2:0:0" / "2:0:0:1"
    target.mkdir(parents=True)
    (target / "queue_depth").write_text("32\n")
    (root / "class" / "block" / name).mkdir(parents=True)
    os.symlink(target, root / "class" / "block" / name / "device")
    sess = root / "class" / "iscsi_session" / f"session{session}"
    (sess / "device" / f"connection{session}:0").mkdir(parents=True)
    (sess / "targetname").write_text(f"iqn.2015-12.com.oracleiaas:vol{session}\n")
    conn = root / "class" / "iscsi_connection" / f"{session}:0"
    conn.mkdir(parents=True)
    (conn / "persistent_address").write_text("169.254.2.2\n")
    (conn / "persistent_port").write_text("3260\n")


ISCSIADM = r"""
# Stand-in for iscsiadm: a node record's queue depth from FAKE_NODE_QD; updates recorded in FAKE_LOG.
if [[ " $* " == *" -o update "* ]]; then printf '%s\n' "$*" >>"$FAKE_LOG"; exit 0; fi
printf 'node.name = x\nnode.session.queue_depth = %s\nnode.session.cmds_max = 128\n' "$FAKE_NODE_QD"
"""


@pytest.fixture
def iscsi(tmp_path: Path, env: dict[str, str], loops: Callable[[int], str]) -> Callable[..., tuple[
        subprocess.CompletedProcess[str], str, list[str]]]:
    """Runs 10-oci-attachments.sh of a Higher Performance plan (128 per session) against an iscsid.conf and a
    node record that already have values; returns the run, the iscsid.conf after it and the node updates."""
    dev = loops(16)
    out = tmp_path / "att"
    build(make_plan(make_layout(members=1, vpu=20, stripe=None)), manager="none", devices=OCI_DEVS[:1], out_dir=out)
    script = with_devices(out / "10-oci-attachments.sh", [dev])
    sysfs = tmp_path / "sys"
    fake_iscsi_sysfs(sysfs, dev, 5)
    stub(tmp_path / "bin", "iscsiadm", ISCSIADM)

    def go(conf_text: str, node_qd: str, *args: str) -> tuple[subprocess.CompletedProcess[str], str, list[str]]:
        conf = tmp_path / "iscsid.conf"
        conf.write_text(conf_text)
        log = tmp_path / f"iscsiadm-{uuid.uuid4().hex}.log"
        res = run(script, {**env, "BLOCKFIT_SYSFS": str(sysfs), "BLOCKFIT_ISCSID_CONF": str(conf),
                           "FAKE_NODE_QD": node_qd, "FAKE_LOG": str(log)}, *args)
        return res, conf.read_text(), log.read_text().splitlines() if log.exists() else []
    return go


@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_iscsi_queue_depth_already_higher_is_kept(iscsi):
    conf = "# site settings\nnode.session.queue_depth = 256\nnode.session.cmds_max = 512\n"
    res, after, updates = iscsi(conf, "256")
    assert res.returncode == 0, res.stderr
    assert after == conf and updates == []
    assert "node.session.queue_depth = 256 (at least 128): kept" in res.stderr


@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_iscsi_queue_depth_lower_is_raised_and_comments_stay(iscsi):
    conf = "# node.session.queue_depth = 32\nnode.session.queue_depth = 64\nnode.startup = automatic\n"
    res, after, updates = iscsi(conf, "32")
    assert res.returncode == 0, res.stderr
    assert after == "# node.session.queue_depth = 32\nnode.session.queue_depth = 128\nnode.startup = automatic\n"
    assert updates == ["-m node -T iqn.2015-12.com.oracleiaas:vol5 -p 169.254.2.2:3260 -o update -n "
                       "node.session.queue_depth -v 128"]


@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_iscsi_queue_depth_missing_from_iscsid_conf_is_added(iscsi):
    conf = "# node.session.queue_depth = 32\nnode.startup = automatic\n"
    res, after, _ = iscsi(conf, "128")
    assert res.returncode == 0, res.stderr
    assert after.startswith(conf) and after.endswith("node.session.queue_depth = 128\n")
    dry, unchanged, updates = iscsi(conf, "32", "--dry-run")
    assert dry.returncode == 0 and unchanged == conf and updates == []
    assert "DRY-RUN: iscsiadm -m node" in dry.stdout


# ---------------------------------------------------------------- multipath: a drop-in for these volumes only
def test_multipath_policy_is_scoped_to_the_volumes_and_keeps_other_files(tmp_path, env):
    out = tmp_path / "mp"
    build(make_plan(make_layout(members=1, vpu=120, stripe=None, paths=4)), manager="none", devices=OCI_DEVS[:1],
          out_dir=out)
    if not Path("/dev/loop0").is_block_device():
        pytest.skip("needs a block device node to stat")
    script = with_devices(out / "11-oci-multipath.sh", ["/dev/loop0"])
    spread = ("0 1 multipath 0 0 1 1 service-time 0 4 1 8:0 1 8:16 1 8:32 1 8:48 1",
              "0 1 multipath 2 0 0 0 1 1 A 0 4 0 8:0 A 0 8:16 A 0 8:32 A 0 8:48 A 0")
    stub(tmp_path / "bin", "dmsetup", f"case $1 in table) echo '{spread[0]}' ;; status) echo '{spread[1]}' ;; "
                                      "info) echo 'mpath-36000oci0001' ;; esac\n")
    conf_dir = tmp_path / "conf.d"
    conf_dir.mkdir()
    other = conf_dir / "site.conf"
    other.write_text("defaults {\n\tpath_grouping_policy failover\n}\n")
    res = run(script, {**env, "BLOCKFIT_MULTIPATH_CONF_DIR": str(conf_dir)})
    assert res.returncode == 0, res.stderr
    assert other.read_text() == "defaults {\n\tpath_grouping_policy failover\n}\n"
    ours = (conf_dir / "blockfit-single.conf").read_text()
    assert 'wwid "36000oci0001"' in ours and "devices {" not in ours and "defaults" not in ours
    assert "ok: /dev/loop0: 4 of 4 paths active in 1 path group" in res.stderr


# ---------------------------------------------------------------- fstab, mdadm.conf, an LVM volume group
@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_a_new_filesystem_never_takes_a_mount_point_fstab_gives_to_another(tmp_path, env, loops):
    dev = loops(64)
    out = tmp_path / "fs"
    build(make_plan(make_layout(members=1, size_gb=50, stripe=None, manager="none")), manager="none", devices=[dev],
          out_dir=out, mount=str(tmp_path / "u01"))
    fstab = Path(env["BLOCKFIT_FSTAB"])
    line = f"UUID=0b7c2a54-1f1e-4d8e-9f55-3b1d7c2e9a10 {tmp_path / 'u01'} xfs defaults 0 0\n"
    fstab.write_text("# site fstab\n" + line)
    for args in (("--dry-run",), ()):
        res = run(out / "40-filesystem.sh", env, *args)
        assert res.returncode == 1 and "already mounts something else" in res.stderr
    assert fstab.read_text() == "# site fstab\n" + line
    assert sh("blkid", "-p", "-o", "value", "-s", "TYPE", dev, check=False).stdout.strip() == ""  # no mkfs either


@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_mdadm_refuses_a_name_mdadm_conf_gives_to_another_array(tmp_path, env, loops):
    devs = [loops(), loops()]
    out = tmp_path / "md"
    build(make_plan(make_layout(members=2, stripe=256 * 1024)), manager="mdadm", devices=devs, out_dir=out)
    conf = tmp_path / "mdadm.conf"
    text = ("ARRAY /dev/md/data metadata=1.2 UUID=11111111:22222222:33333333:44444444 name=db1:data\n"
            "ARRAY /dev/md/blockfit metadata=1.2 UUID=aaaaaaaa:bbbbbbbb:cccccccc:dddddddd name=db1:blockfit\n")
    conf.write_text(text)
    for args in (("--dry-run",), ()):
        res = run(out / "20-mdadm.sh", {**env, "BLOCKFIT_MDADM_CONF": str(conf)}, *args)
        assert res.returncode == 1 and "already has an array named blockfit" in res.stderr
        assert "mdadm --create" not in res.stdout + res.stderr
    assert conf.read_text() == text


@pytest.mark.slow
@pytest.mark.root
@needs_root
def test_lvm_never_extends_a_volume_group_of_the_same_name_on_other_devices(tmp_path, env, loops):
    if shutil.which("vgcreate") is None:
        pytest.skip("lvm2 not installed")
    conf = tmp_path / "lvm"
    conf.mkdir()
    (conf / "lvm.conf").write_text("global {\n  activation = 0\n}\ndevices {\n  use_devicesfile = 0\n}\n")
    lvm_env = {**env, "LVM_SYSTEM_DIR": str(conf), "LVM_SUPPRESS_FD_WARNINGS": "1"}
    vg = f"bf_{uuid.uuid4().hex[:8]}"   # unique: other clones' tests make VGs on this host too
    theirs, mine = loops(), loops()
    try:
        sh("pvcreate", "-qq", theirs, env=lvm_env)
        sh("vgcreate", "-qq", vg, theirs, env=lvm_env)
        out = tmp_path / "lvm-out"
        build(make_plan(make_layout(members=1, stripe=None)), manager="lvm", devices=[mine], out_dir=out, vg=vg)
        res = run(out / "20-lvm.sh", lvm_env)
        assert res.returncode == 1 and f"volume group {vg} already exists on {theirs}" in res.stderr
        pvs = sh("pvs", "--noheadings", "-o", "pv_name", "-S", f"vg_name={vg}", env=lvm_env).stdout.split()
        assert pvs == [theirs]
        assert sh("blkid", "-p", "-o", "value", "-s", "TYPE", mine, check=False).stdout.strip() == ""
    finally:
        sh("vgremove", "-f", vg, env=lvm_env, check=False)
        sh("pvremove", "-ff", "-y", theirs, env=lvm_env, check=False)


# ---------------------------------------------------------------- what build tells the report: plain words
SHELL_OR_TEMPLATE = re.compile(r"[$`{}]|<\(|\|\|")
REPO_PATHS = re.compile(r"(?<![\w/])(reference/|seeds/|\.\./shared|/work/|src/blockfit|tests/)")


def builds(tmp_path: Path) -> list[tuple[BuildResult, Path]]:
    cases = [
        (make_layout(members=4, vpu=120, paths=4, stripe=MB), dict(manager="lvm", mount="/u01",
                                                                   provision_with="oci-cli")),
        (make_layout(members=3, vpu=20, stripe=4 * MB, manager="asm", redundancy="normal"), dict(manager="asm")),
        (make_layout(members=4, vpu=10, stripe=MB, manager="mdadm", redundancy="raid10"),
         dict(manager="mdadm", mount="/u01", fs="ext4", migrate_from="/dev/vg0/lv0", method="offline",
              provision_with="terraform")),
        (make_layout(members=3, vpu=10, stripe=MB), dict(manager="lvm", mount="/u01",
                                                         migrate_from="/dev/vg0/lv0", method="online")),
        (make_layout(cloud="aws", members=2, iops=6000, throughput=500, stripe=MB),
         dict(manager="lvm", mount="/u01", provision_with="aws-cli")),
    ]
    out = []
    for i, (layout, kw) in enumerate(cases):
        devs = OCI_DEVS if layout.volume.cloud == "oci" else [f"/dev/nvme{k}n1" for k in range(1, 9)]
        target = tmp_path / f"b{i}"
        out.append((build(make_plan(layout), devices=devs[:layout.members], out_dir=target, **kw),  # type: ignore[arg-type]
                    target))
    return out


def test_build_tells_the_report_plain_words_and_cites_only_public_urls(tmp_path):
    """Issue 22 finding 6 and the report's build section: it printed `$(describe_sig "$sigs")` (shell text scraped
    from the scripts) and a script comment citing reference/… (a path no user has)."""
    for result, out in builds(tmp_path):
        texts = [s.description for s in result.steps] + result.notes + result.safety_checks
        assert len(result.safety_checks) >= 6
        for text in texts:
            assert not SHELL_OR_TEMPLATE.search(text), text
        for path in out.rglob("*"):
            if path.is_file():
                body = path.read_text()
                assert not REPO_PATHS.search(body), (path.name, REPO_PATHS.search(body))
                assert "{{" not in body and "{%" not in body, path.name


def test_a_lower_case_diskgroup_is_looked_up_as_asm_stores_it(tmp_path, env):
    """ASM keeps an unquoted disk group name in upper case: `--diskgroup data` creates DATA, so both the script's
    "does it exist with another redundancy" query and the SQL's closing check must look for DATA, not 'data'."""
    out = tmp_path / "asm"
    build(make_plan(make_layout(members=2, stripe=4 * MB, manager="asm")), manager="asm", devices=OCI_DEVS[:2],
          out_dir=out, diskgroup="data")
    sql = (out / "21-asm-diskgroup.sql").read_text()
    assert "CREATE DISKGROUP data EXTERNAL" in sql and "WHERE name = 'DATA'" in sql
    script = (out / "21-asm-diskgroup.sh").read_text()
    assert "v\\$asm_diskgroup WHERE name = UPPER('$DISKGROUP')" in script
