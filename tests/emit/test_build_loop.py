"""The generated scripts run for real against loop devices on this host (root): the safety checks, the
filesystem step with fstab and mount, reruns, dry runs, and the offline dd migration with checksums.
LVM and mdadm need device-mapper / md, which this host's kernel lacks: the lab guest runs those."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import struct
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from blockfit.emit import build
from blockfit.emit.safety import render_template
from blockfit.schema import BuildStep
from support.build import make_layout, make_plan

pytestmark = [
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None, reason="needs root and losetup"),
]

MB = 1024 * 1024


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, check=check)


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[Callable[[int], str]]:
    """Attach sparse loop devices (unique backing files); detach them and unmount what we mounted after."""
    attached: list[str] = []

    def attach(size_mb: int) -> str:
        backing = tmp_path / f"blockfit-build-{len(attached)}.img"
        with open(backing, "wb") as f:
            f.truncate(size_mb * MB)
        dev = sh("losetup", "-f", "--show", str(backing)).stdout.strip()
        attached.append(dev)
        return dev

    yield attach
    for dev in attached:
        for _ in range(5):
            mounts = [ln.split()[1] for ln in Path("/proc/mounts").read_text().splitlines() if ln.split()[0] == dev]
            if not mounts:
                break
            sh("umount", mounts[0], check=False)
        # partitions a test added (partx -a) outlive the detach on this kernel: the next user of the loop device
        # would look partitioned, and libblkid skips a partitioned disk when it resolves UUID= (mount by UUID fails)
        sh("partx", "-d", dev, check=False)
        sh("losetup", "-d", dev, check=False)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Scripts write their fstab, state and log under tmp_path, never /etc."""
    fstab = tmp_path / "fstab"
    fstab.write_text("# test fstab\n")
    return {**os.environ, "BLOCKFIT_FSTAB": str(fstab), "BLOCKFIT_STATE_DIR": str(tmp_path / "state"),
            "BLOCKFIT_LOG": str(tmp_path / "build.log")}


def run_script(path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(path), *args], capture_output=True, text=True, env=env, timeout=300)


def blkid(dev: str, tag: str) -> str:
    return sh("blkid", "-p", "-o", "value", "-s", tag, dev, check=False).stdout.strip()


def mounted_at(dev: str) -> list[str]:
    real = os.path.realpath(dev)
    return [ln.split()[1] for ln in Path("/proc/mounts").read_text().splitlines() if ln.split()[0] == real]


def single_volume_build(out: Path, dev: str, mount: Path, **kw: object) -> Path:
    plan = make_plan(make_layout(members=1, size_gb=50, stripe=None, manager="none"))
    build(plan, manager="none", devices=[dev], out_dir=out, mount=str(mount), **kw)  # type: ignore[arg-type]
    return out


# ---------------------------------------------------------------- the preamble's device checks
def check_script(tmp_path: Path) -> Path:
    step = BuildStep(order=1, name="check", path="check.sh", kind="volume-manager", touches_devices=True,
                     description="check devices")
    text = render_template("preamble.sh.j2", step=step, source="test", env_doc=[])
    text += '\nDEV=${CHECK_DEV:?}\ncheck_device "$DEV"\nwipe_if_forced "$DEV"\nlog "ACCEPTED $DEV"\n'
    path = tmp_path / "check.sh"
    path.write_text(text)
    return path


def test_blank_device_passes_and_signatures_are_refused_unless_forced(tmp_path, loops, env):
    script = check_script(tmp_path)
    blank, ext4 = loops(64), loops(64)
    sh("mkfs.ext4", "-q", ext4)

    ok = run_script(script, {**env, "CHECK_DEV": blank})
    assert ok.returncode == 0, ok.stderr
    assert f"ACCEPTED {blank}" in ok.stderr

    refused = run_script(script, {**env, "CHECK_DEV": ext4})
    assert refused.returncode == 1
    assert "ext4" in refused.stderr and "--force-device" in refused.stderr
    assert blkid(ext4, "TYPE") == "ext4"  # untouched

    forced = run_script(script, {**env, "CHECK_DEV": ext4}, "--force-device", ext4)
    assert forced.returncode == 0, forced.stderr
    assert blkid(ext4, "TYPE") == ""  # wiped, because it was named


def test_force_of_another_device_does_not_cover_this_one(tmp_path, loops, env):
    script = check_script(tmp_path)
    ext4, other = loops(64), loops(64)
    sh("mkfs.ext4", "-q", ext4)
    res = run_script(script, {**env, "CHECK_DEV": ext4}, "--force-device", other)
    assert res.returncode == 1
    assert blkid(ext4, "TYPE") == "ext4"


def test_pv_label_is_refused_as_a_physical_volume(tmp_path, loops, env):
    if shutil.which("pvcreate") is None:
        pytest.skip("lvm2 not installed")
    script = check_script(tmp_path)
    dev = loops(64)
    created = sh("pvcreate", "-qq", dev, check=False)
    if created.returncode != 0:
        pytest.skip(f"pvcreate on a loop device failed here: {created.stderr.strip()}")
    try:
        res = run_script(script, {**env, "CHECK_DEV": dev})
        assert res.returncode == 1
        assert "LVM physical volume" in res.stderr
    finally:
        sh("pvremove", "-qq", "-y", dev, check=False)


def test_mounted_device_is_refused_even_when_forced(tmp_path, loops, env):
    script = check_script(tmp_path)
    dev = loops(64)
    sh("mkfs.ext4", "-q", dev)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    sh("mount", dev, str(mnt))
    res = run_script(script, {**env, "CHECK_DEV": dev}, "--force-device", dev)
    assert res.returncode == 1
    assert "mounted" in res.stderr
    assert blkid(dev, "TYPE") == "ext4"


def partitioned(dev: str, tmp_path: Path) -> list[str]:
    """Give DEV an MBR with two 16 MiB partitions; their device nodes (made in TMP_PATH where nothing made them)."""
    mbr = bytearray(512)
    for i, start in enumerate((2048, 2048 + 32768)):
        mbr[446 + 16 * i:462 + 16 * i] = struct.pack("<B3sB3sII", 0, bytes(3), 0x83, bytes(3), start, 32768)
    mbr[510:512] = b"\x55\xaa"
    with open(dev, "r+b") as f:
        f.write(mbr)
    sh("partx", "-a", dev, check=False)  # already known (a partscanning loop driver): fine
    name = Path(dev).name
    nodes = []
    for n in (1, 2):
        sysfs = Path(f"/sys/class/block/{name}/{name}p{n}/dev")
        major, minor = map(int, sysfs.read_text().split(":"))
        node = tmp_path / f"{name}p{n}"
        os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
        nodes.append(str(node))
    return nodes


def test_a_partition_mounted_or_used_as_swap_is_refused_even_when_forced(tmp_path, loops, env):
    """The swap check looked at the device alone: a disk whose second partition was active swap carried only a
    partition table, so --force-device accepted it and the script would have wiped it under the running swap."""
    script = check_script(tmp_path)
    dev = loops(64)
    first, second = partitioned(dev, tmp_path)
    sh("mkfs.ext4", "-q", first)
    sh("mkswap", "-q", second)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    sh("mount", first, str(mnt))
    try:
        res = run_script(script, {**env, "CHECK_DEV": dev}, "--force-device", dev)
        assert res.returncode == 1 and "is mounted at" in res.stderr, res.stderr
    finally:
        sh("umount", str(mnt))
    sh("swapon", second)
    try:
        res = run_script(script, {**env, "CHECK_DEV": dev}, "--force-device", dev)
        assert res.returncode == 1 and "in use as swap" in res.stderr, res.stderr
    finally:
        sh("swapoff", second)
    assert blkid(second, "TYPE") == "swap"  # untouched
    res = run_script(script, {**env, "CHECK_DEV": dev}, "--force-device", dev)
    assert res.returncode == 0 and "forced over signatures: PTTYPE dos" in res.stderr, res.stderr


def traced_children(script: Path, env: dict[str, str], traces: Path) -> tuple[int, list[str]]:
    """Run SCRIPT under strace, a trace file per process: (processes it started, the programs they ran)."""
    traces.mkdir()
    res = subprocess.run(["strace", "-ff", "-qq", "-e", "trace=execve", "-o", str(traces / "t"), "bash", str(script)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    files = list(traces.iterdir())
    execve = re.compile(r'^execve\("[^"]*/([^/"]+)", .*= 0$', re.M)
    programs = [m.group(1) for f in files for m in execve.finditer(f.read_text())]
    return len(files) - 1, sorted(programs)


def test_one_device_check_starts_only_the_probes(tmp_path, loops, env):
    """check_device started 34 processes per device (20 programs: readlink, stat, basename, tr, awk, sed, sort,
    paste, blockdev, ...), 0.2-0.3 s each under the lab's emulator. Now: one stat for the device's numbers and the
    two signature probes; /proc and /sys are read by bash itself. Counted as one check minus none."""
    if shutil.which("strace") is None:
        pytest.skip("needs strace")
    step = BuildStep(order=1, name="check", path="check.sh", kind="volume-manager", touches_devices=True,
                     description="check devices")
    script = tmp_path / "check.sh"
    script.write_text(render_template("preamble.sh.j2", step=step, source="test", env_doc=[])
                      + 'for DEV in ${CHECK_DEVS:-}; do check_device "$DEV"; done\nlog "CHECKED ${CHECK_DEVS:-}"\n')
    dev = loops(64)
    none, before = traced_children(script, {**env, "CHECK_DEVS": ""}, tmp_path / "none")
    one, programs = traced_children(script, {**env, "CHECK_DEVS": dev}, tmp_path / "one")
    assert f"device {dev} ({dev}, {64 * MB} bytes)" in Path(env["BLOCKFIT_LOG"]).read_text()
    assert {"blkid", "wipefs"} <= set(programs) - set(before)  # the signature probes still run
    assert one - none <= 3, (one - none, programs)


def test_globs_and_missing_devices_are_refused(tmp_path, env):
    script = check_script(tmp_path)
    for dev, why in (("/dev/loop*", "globs"), ("/dev/blockfit-build-none", "does not exist"),
                     ("loop0", "absolute path")):
        res = run_script(script, {**env, "CHECK_DEV": dev})
        assert res.returncode == 1 and why in res.stderr, (dev, res.stderr)


# ---------------------------------------------------------------- filesystem step
@pytest.mark.parametrize("fs", ["xfs", "ext4"])
def test_filesystem_step_dry_run_real_run_and_rerun(tmp_path, loops, env, fs):
    dev = loops(320)
    mnt = tmp_path / "u01"
    out = single_volume_build(tmp_path / "out", dev, mnt, fs=fs)
    script = out / "40-filesystem.sh"
    fstab = Path(env["BLOCKFIT_FSTAB"])
    before = fstab.read_text()

    dry = run_script(script, env, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"DRY-RUN: mkfs.{fs}" in dry.stdout and "mount --fstab" in dry.stdout
    assert blkid(dev, "TYPE") == "" and fstab.read_text() == before and not mounted_at(dev)
    assert not Path(env["BLOCKFIT_LOG"]).exists()

    real = run_script(script, env)
    assert real.returncode == 0, real.stderr
    assert blkid(dev, "TYPE") == fs
    uuid = blkid(dev, "UUID")
    lines = [ln.split() for ln in fstab.read_text().splitlines() if ln and not ln.startswith("#")]
    assert lines == [[f"UUID={uuid}", str(mnt), fs, "defaults,nofail,noatime", "0", "0" if fs == "xfs" else "2"]]
    assert mounted_at(dev) == [str(mnt)]
    log = Path(env["BLOCKFIT_LOG"]).read_text()
    assert "[filesystem]" in log and "run: mkfs." in log

    fstab_after = fstab.read_text()
    rerun = run_script(script, env)
    assert rerun.returncode == 0, rerun.stderr
    assert "run:" not in rerun.stderr  # nothing executed
    assert rerun.stderr.count("already done") == 3  # filesystem, fstab, mount
    assert fstab.read_text() == fstab_after and blkid(dev, "UUID") == uuid and mounted_at(dev) == [str(mnt)]


def test_filesystem_step_refuses_a_device_with_a_foreign_signature(tmp_path, loops, env):
    dev = loops(320)
    sh("mkfs.ext4", "-q", "-L", "precious", dev)
    out = single_volume_build(tmp_path / "out", dev, tmp_path / "u01", fs="xfs")
    res = run_script(out / "40-filesystem.sh", env)
    assert res.returncode == 1
    assert "ext4" in res.stderr and "Refusing" in res.stderr
    assert blkid(dev, "LABEL") == "precious"
    forced = run_script(out / "40-filesystem.sh", env, "--force-device", dev)
    assert forced.returncode == 0, forced.stderr
    assert blkid(dev, "TYPE") == "xfs"


# ---------------------------------------------------------------- offline migration
def checksums(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "lost+found" not in p.parts}


@pytest.mark.parametrize("fs", ["xfs", "ext4"])
def test_offline_migration_copies_the_filesystem_and_checksums_match(tmp_path, loops, env, fs):
    src, dst = loops(320), loops(448)
    sh(f"mkfs.{fs}", "-q", src)
    old = tmp_path / "old"
    old.mkdir()
    sh("mount", src, str(old))
    (old / "oradata").mkdir()
    for i in range(5):
        (old / "oradata" / f"file{i}.dbf").write_bytes(os.urandom(256 * 1024 * (i + 1)))
    (old / "spfile.ora").write_text("db_block_size=8192\n")
    want = checksums(old)
    sh("umount", str(old))
    src_uuid = blkid(src, "UUID")
    fstab = Path(env["BLOCKFIT_FSTAB"])
    fstab.write_text(f"UUID={src_uuid} {tmp_path / 'u01'} {fs} defaults 0 0\n")

    out = single_volume_build(tmp_path / "out", dst, tmp_path / "u01", fs=fs, migrate_from=src, method="offline")
    assert (out / "30-migrate-offline.sh").exists()

    dry = run_script(out / "run-all.sh", env, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "DRY-RUN: dd if=" in dry.stdout and "bs=128M" in dry.stdout
    assert blkid(dst, "TYPE") == ""

    res = run_script(out / "run-all.sh", env)
    assert res.returncode == 0, res.stderr
    assert "verified: " in res.stderr
    assert blkid(dst, "TYPE") == fs
    new_uuid = blkid(dst, "UUID")
    assert new_uuid and new_uuid != src_uuid and blkid(src, "UUID") == src_uuid
    mnt = tmp_path / "u01"
    assert mounted_at(dst) == [str(mnt)]
    assert checksums(mnt) == want
    active = [ln for ln in fstab.read_text().splitlines() if ln and not ln.startswith("#")]
    assert active == [f"UUID={new_uuid} {mnt} {fs} defaults,nofail,noatime 0 {0 if fs == 'xfs' else 2}"]
    assert f"# blockfit: replaced by the next line: UUID={src_uuid}" in fstab.read_text()
    # grown to the bigger target
    assert os.statvfs(mnt).f_blocks * os.statvfs(mnt).f_frsize > 360 * MB

    again = run_script(out / "run-all.sh", env)
    assert again.returncode == 0, again.stderr
    assert "run:" not in again.stderr.replace("run-all", "")
    assert checksums(mnt) == want


def test_offline_migration_refuses_a_mounted_source_and_a_small_target(tmp_path, loops, env):
    src, small = loops(320), loops(256)
    sh("mkfs.xfs", "-q", src)
    out = single_volume_build(tmp_path / "out", small, tmp_path / "u01", migrate_from=src, method="offline")
    res = run_script(out / "30-migrate-offline.sh", env)
    assert res.returncode == 1 and "smaller than source" in res.stderr
    mnt = tmp_path / "m"
    mnt.mkdir()
    sh("mount", src, str(mnt))
    res = run_script(out / "30-migrate-offline.sh", env)
    assert res.returncode == 1 and "is mounted" in res.stderr
    assert blkid(small, "TYPE") == ""


# ---------------------------------------------------------------- LVM metadata (no device-mapper here)
@pytest.fixture
def lvm_no_dm(tmp_path: Path, env: dict[str, str]) -> Iterator[dict[str, str]]:
    """LVM with `global/activation = 0`: real PV/VG/LV metadata on the loop devices, no device-mapper.
    The generated script runs unchanged; only activation (and so mkfs on the LV) is left to the lab guest."""
    if shutil.which("lvcreate") is None:
        pytest.skip("lvm2 not installed")
    conf = tmp_path / "lvm"
    conf.mkdir()
    (conf / "lvm.conf").write_text("global {\n  activation = 0\n}\ndevices {\n  use_devicesfile = 0\n}\n")
    lvm_env = {**env, "LVM_SYSTEM_DIR": str(conf), "LVM_SUPPRESS_FD_WARNINGS": "1"}
    yield lvm_env
    subprocess.run(["vgremove", "-f", "blockfit_vg"], env=lvm_env, capture_output=True)


def test_lvm_step_builds_the_asked_stripe_in_lvm_metadata(tmp_path, loops, lvm_no_dm):
    devs = [loops(100), loops(100), loops(120)]  # unequal: the smallest PV decides the extents
    out = tmp_path / "out"
    build(make_plan(make_layout(members=3, stripe=1 * MB)), manager="lvm", devices=devs, out_dir=out)
    script = out / "20-lvm.sh"

    dry = run_script(script, lvm_no_dm, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.count("DRY-RUN: pvcreate") == 3 and "DRY-RUN: vgcreate" in dry.stdout
    assert "--stripes 3 --stripesize 1024k" in dry.stdout
    assert all(blkid(d, "TYPE") == "" for d in devs)

    res = run_script(script, lvm_no_dm)
    assert res.returncode == 0, res.stderr
    seg = subprocess.run(["lvs", "--noheadings", "--segments", "--units", "b", "--nosuffix", "-o",
                          "segtype,stripes,stripe_size,seg_size_pe", "blockfit_vg/blockfit_lv"],
                         env=lvm_no_dm, capture_output=True, text=True, check=True).stdout.split()
    assert seg[:3] == ["striped", "3", str(1 * MB)]
    assert int(seg[3]) % 3 == 0
    pvs = subprocess.run(["pvs", "--noheadings", "-o", "pv_pe_count", devs[0]], env=lvm_no_dm,
                         capture_output=True, text=True, check=True).stdout.split()
    assert int(seg[3]) == 3 * int(pvs[0])  # all of the smallest PV, on each of the three
    assert "verified: blockfit_vg/blockfit_lv has 3 stripe(s) of 1048576 bytes" in res.stderr

    again = run_script(script, lvm_no_dm)
    assert again.returncode == 0, again.stderr
    assert "run:" not in again.stderr and "already done" in again.stderr


def test_lvm_step_refuses_a_disk_with_a_signature(tmp_path, loops, lvm_no_dm):
    devs = [loops(64), loops(64)]
    sh("mkfs.ext4", "-q", devs[1])
    out = tmp_path / "out"
    build(make_plan(make_layout(members=2, stripe=1 * MB)), manager="lvm", devices=devs, out_dir=out)
    res = run_script(out / "20-lvm.sh", lvm_no_dm)
    assert res.returncode == 1 and "ext4" in res.stderr and f"--force-device {devs[1]}" in res.stderr
    assert blkid(devs[0], "TYPE") == "" and blkid(devs[1], "TYPE") == "ext4"  # nothing was touched


def test_online_migration_makes_extents_divisible_then_adds_a_striped_mirror_leg(tmp_path, loops, lvm_no_dm):
    """Up to the sync wait: with activation off there is no sync to wait for (the lab guest does the rest)."""
    old, *new = loops(128), loops(128), loops(128), loops(128)
    for args in (["pvcreate", "-qq", old], ["vgcreate", "-qq", "blockfit_vg", old],
                 ["lvcreate", "-qq", "-l", "28", "-n", "data", "blockfit_vg", old]):
        subprocess.run(args, env=lvm_no_dm, capture_output=True, check=True)
    out = tmp_path / "out"
    build(make_plan(make_layout(members=3, stripe=1 * MB)), manager="lvm", devices=new, out_dir=out,
          migrate_from="/dev/blockfit_vg/data", method="online")
    assert not (out / "40-filesystem.sh").exists()
    res = run_script(out / "20-lvm.sh", lvm_no_dm)
    assert res.returncode == 0, res.stderr
    res = run_script(out / "30-migrate-online.sh", lvm_no_dm)
    assert "28 extents is not divisible by 3: extending blockfit_vg/data by 2 extents" in res.stderr
    # lvconvert returns at its first look that finds the sync done: a 120 MiB LV is looked at every second, not
    # every 10 (the lab's online migration waited 10 s for a sync of 2)
    assert "--interval 1 blockfit_vg/data" in res.stderr, res.stderr
    segs = subprocess.run(["lvs", "-a", "--noheadings", "--segments", "--units", "b", "--nosuffix", "-o",
                           "lv_name,segtype,stripes,stripe_size,seg_size_pe", "blockfit_vg"],
                          env=lvm_no_dm, capture_output=True, text=True, check=True).stdout
    rows = {r.split()[0].strip("[]"): r.split()[1:] for r in segs.strip().splitlines()}
    assert rows["data"][0] == "mirror" and rows["data"][3] == "30"
    assert rows["data_mimage_1"] == ["striped", "3", str(1 * MB), "30"]
    assert res.returncode == 1 and "cannot read the mirror's sync progress" in res.stderr


@pytest.mark.parametrize(("redundancy", "create"), [
    ("none", "--level=0 --raid-devices=2 --chunk=256K --metadata=1.2 --name=blockfit /dev/"),
    ("raid10", "--level=10 --layout=n2 --raid-devices=2 --chunk=256K --metadata=1.2 --name=blockfit --assume-clean "
               "/dev/"),
], ids=["raid0", "raid10"])
def test_mdadm_step_dry_run_checks_devices_and_changes_nothing(tmp_path, loops, env, redundancy, create):
    """No md driver here: the dry run still checks every device and prints the exact mdadm command."""
    devs = [loops(64), loops(64)]
    out = tmp_path / "out"
    build(make_plan(make_layout(members=2, stripe=256 * 1024, redundancy=redundancy)), manager="mdadm", devices=devs,
          out_dir=out)
    res = run_script(out / "20-mdadm.sh", {**env, "BLOCKFIT_MDADM_CONF": str(tmp_path / "mdadm.conf"),
                                           "BLOCKFIT_MDADM_ASSUME_CLEAN": "1"}, "--dry-run")
    assert res.returncode == 0, res.stderr
    assert f"DRY-RUN: mdadm --create /dev/md/blockfit --run {create}" in res.stdout
    assert res.stderr.count("no signature") == 2
    assert all(blkid(d, "TYPE") == "" for d in devs) and not (tmp_path / "mdadm.conf").exists()
    sh("mkfs.ext4", "-q", devs[0])
    res = run_script(out / "20-mdadm.sh", env, "--dry-run")
    assert res.returncode == 1 and "ext4" in res.stderr


def test_asm_udev_step_needs_a_stable_identity(tmp_path, loops, env):
    """ASM rules match disks by DM UUID, WWID or serial; a loop device has none, so the step stops
    before writing a rule that would name the disk by its unstable kernel name."""
    devs = [loops(64), loops(64)]
    out = tmp_path / "out"
    build(make_plan(make_layout(members=2, stripe=4 * MB)), manager="asm", devices=devs, out_dir=out)
    rules = tmp_path / "99-asm.rules"
    res = run_script(out / "20-asm-udev.sh", {**env, "BLOCKFIT_ASM_RULES": str(rules)}, "--dry-run")
    assert res.returncode == 1 and "no DM UUID, WWID or serial" in res.stderr
    assert not rules.exists()
    sql = (out / "21-asm-diskgroup.sql").read_text()
    assert "EXTERNAL REDUNDANCY" in sql and "'au_size' = '4M'" in sql and "'/dev/oracleasm/data02'" in sql
