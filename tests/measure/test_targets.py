"""Target checks and refusals: writes need --allow-write on devices, never on mounted or in-use devices."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit.devices.facts import device_facts
from blockfit.errors import InputError
from blockfit.measure.targets import filesystem_type, resolve_target, resolve_targets
from blockfit.testbed.loopdev import LoopDevice, loop_device

root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None, reason="needs root and losetup")
MiB = 1024 * 1024


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", "calibrate", *args],
                          capture_output=True, text=True)


@pytest.fixture
def loop() -> Iterator[LoopDevice]:
    with loop_device(64 * MiB, name="calibrate-test") as dev:
        yield dev


def test_missing_target_is_input_error() -> None:
    with pytest.raises(InputError, match="no such file"):
        resolve_target("/no/such/target", size_bytes=MiB, write_pct=0, allow_write=False, warnings=[])


def test_character_device_is_refused() -> None:
    with pytest.raises(InputError, match="expected a directory, a regular file or a block device"):
        resolve_target("/dev/null", size_bytes=MiB, write_pct=0, allow_write=False, warnings=[])


def test_same_target_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="twice"):
        resolve_targets([str(tmp_path), str(tmp_path) + "/"], size_bytes=MiB, write_pct=0, allow_write=False,
                        warnings=[])


def test_write_test_on_existing_file_needs_allow_write(tmp_path: Path) -> None:
    f = tmp_path / "data"
    f.write_bytes(b"x" * (2 * MiB))
    with pytest.raises(InputError, match="--allow-write"):
        resolve_target(str(f), size_bytes=MiB, write_pct=30, allow_write=False, warnings=[])
    t = resolve_target(str(f), size_bytes=MiB, write_pct=30, allow_write=True, warnings=[])
    assert t.kind == "file" and not t.created and t.size_bytes == 2 * MiB


def test_directory_gets_a_fresh_test_file(tmp_path: Path) -> None:
    t = resolve_target(str(tmp_path), size_bytes=8 * MiB, write_pct=50, allow_write=False, warnings=[])
    assert t.created and t.kind == "file" and Path(t.path).parent == tmp_path and not Path(t.path).exists()


def test_sparse_file_is_warned_about(tmp_path: Path) -> None:
    f = tmp_path / "sparse"
    with open(f, "wb") as fh:
        fh.truncate(64 * MiB)
    warnings: list[str] = []
    resolve_target(str(f), size_bytes=MiB, write_pct=0, allow_write=False, warnings=warnings)
    assert any("sparse" in w for w in warnings)


def test_bad_options_are_one_line_input_errors(tmp_path: Path) -> None:
    for args, name in ((["--percentile", "120"], "--percentile"), (["--max-latency", "fast"], "--max-latency"),
                       (["--small-io", "3"], "--small-io"), (["--duration", "2s"], "--duration"),
                       (["--write", "150"], "--write"), (["--host", "a:b"], "--host")):
        out = cli(str(tmp_path), *args)
        assert out.returncode == 2, (args, out.stderr)
        assert name in out.stderr and out.stderr.strip().count("\n") == 0
    assert not list(tmp_path.iterdir())


@root
def test_block_device_reads_allowed_writes_need_allow_write(loop: LoopDevice) -> None:
    t = resolve_target(loop.path, size_bytes=MiB, write_pct=0, allow_write=False, warnings=[])
    assert t.kind == "block" and t.size_bytes == 64 * MiB
    with pytest.raises(InputError, match="--allow-write"):
        resolve_target(loop.path, size_bytes=MiB, write_pct=100, allow_write=False, warnings=[])
    assert resolve_target(loop.path, size_bytes=MiB, write_pct=100, allow_write=True, warnings=[]).kind == "block"
    out = cli(loop.path, "--write", "30")
    assert out.returncode == 2 and "--allow-write" in out.stderr and out.stderr.count("\n") == 1


@root
def test_mounted_device_write_refused_even_with_allow_write(loop: LoopDevice, tmp_path: Path) -> None:
    subprocess.run(["mkfs.ext4", "-q", "-F", loop.path], check=True, capture_output=True)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", loop.path, str(mnt)], check=True)
    try:
        with pytest.raises(InputError, match="mounted"):
            resolve_target(loop.path, size_bytes=MiB, write_pct=10, allow_write=True, warnings=[])
        assert resolve_target(loop.path, size_bytes=MiB, write_pct=0, allow_write=False, warnings=[]).kind == "block"
        out = cli(loop.path, "--write", "10", "--allow-write")
        assert out.returncode == 2 and "mounted" in out.stderr
    finally:
        subprocess.run(["umount", str(mnt)], check=True)
    warnings: list[str] = []
    resolve_target(loop.path, size_bytes=MiB, write_pct=10, allow_write=True, warnings=warnings)
    assert any("ext4" in w for w in warnings)


@root
def test_whole_disk_write_refused_when_a_partition_is_mounted(tmp_path: Path) -> None:
    with loop_device(64 * MiB, name="calibrate-test", partscan=True) as dev:
        entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, 64 * MiB // 512 - 2048)
        with open(dev.path, "r+b") as fh:  # one-partition MBR table, written by hand (no sfdisk needed)
            fh.seek(446)
            fh.write(entry + b"\0" * 48 + b"\x55\xaa")
        subprocess.run(["blockdev", "--rereadpt", dev.path], check=True)
        part = dev.path + "p1"
        subprocess.run(["udevadm", "settle"], check=False, capture_output=True)
        if not os.path.exists(part):
            pytest.skip("this kernel created no partition device (no MBR partition support or no udev)")
        subprocess.run(["mkfs.ext4", "-q", "-F", part], check=True, capture_output=True)
        mnt = tmp_path / "mnt"
        mnt.mkdir()
        subprocess.run(["mount", part, str(mnt)], check=True)
        try:
            with pytest.raises(InputError, match="mounted"):
                resolve_target(dev.path, size_bytes=MiB, write_pct=10, allow_write=True, warnings=[])
            facts = device_facts(part)
            assert facts.scheduler and facts.size_bytes and facts.size_bytes < 64 * MiB
        finally:
            subprocess.run(["umount", str(mnt)], check=True)


@root
@pytest.mark.skipif(shutil.which("dmsetup") is None or "device-mapper" not in Path("/proc/misc").read_text(),
                    reason="needs dmsetup and a kernel with device-mapper")
def test_in_use_device_write_refused(loop: LoopDevice) -> None:
    name = f"blockfit-calibrate-{os.getpid()}"
    sectors = loop.size_bytes // 512
    subprocess.run(["dmsetup", "create", name, "--table", f"0 {sectors} linear {loop.path} 0"], check=True)
    try:
        with pytest.raises(InputError, match="in use by dm-"):
            resolve_target(loop.path, size_bytes=MiB, write_pct=10, allow_write=True, warnings=[])
        facts = device_facts(f"/dev/mapper/{name}")
        assert facts.members == [loop.name]
    finally:
        subprocess.run(["dmsetup", "remove", name], check=True)


@pytest.mark.parametrize("text", ["\n0", "0", " node1", "node1 ", "10.1", "256.1.1.1", "node1:0", "node1:x", ""])
def test_a_host_that_names_no_machine_is_refused(text: str) -> None:
    """'--host 0' would reach 0.0.0.0 (this machine), and a value with whitespace was stripped into one: neither
    names the fio server the user meant (found by the CLI fuzz: '\\n0' connected and failed with exit 4)."""
    from blockfit.measure.multihost import parse_host

    with pytest.raises(InputError, match="expected HOST or HOST:PORT") as caught:
        parse_host(text)
    assert str(caught.value).startswith(repr(text))   # the value; the command line names --host (supplied_by)


@pytest.mark.parametrize(("text", "host", "port"), [("node1", "node1", 8765), ("10.0.0.5:9000", "10.0.0.5", 9000),
                                                    ("db-2.example.com:8766", "db-2.example.com", 8766)])
def test_a_host_name_or_ipv4_with_an_optional_port_is_taken(text: str, host: str, port: int) -> None:
    from blockfit.measure.multihost import parse_host

    parsed = parse_host(text)
    assert (parsed.host, parsed.port) == (host, port)


def test_a_target_named_twice_is_named_in_the_error(tmp_path: Path) -> None:
    """Two spellings of one folder: the error says which argument repeats which (issue 37, item 8)."""
    with pytest.raises(InputError, match=r"TARGET: '.*/\./' is named twice \(as '.*' too\)"):
        resolve_targets([str(tmp_path), f"{tmp_path}/./"], size_bytes=1 << 20, write_pct=0, allow_write=False,
                        warnings=[])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to mount a tmpfs")
def test_filesystem_of_a_mount_point_with_a_tab_or_backslash(tmp_path: Path) -> None:
    """mountinfo writes these as \\011 and \\134; before, only \\040 was unescaped and the file's filesystem was
    taken to be the one the mount point sits on."""
    for name in ("a\tb", "a\\b"):
        point = tmp_path / name
        point.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "blockfit-test", str(point)], capture_output=True).returncode:
            pytest.skip("mount refused here")
        try:
            (point / "data").write_bytes(b"x")
            assert filesystem_type(str(point / "data")) == "tmpfs" != filesystem_type(str(tmp_path))
        finally:
            subprocess.run(["umount", str(point)], check=True)
