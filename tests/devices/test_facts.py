"""Device facts as calibrate reports them, read from a real loop device's sysfs tree."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from blockfit.devices.facts import device_facts
from blockfit.testbed.loopdev import LoopDevice, loop_device

root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None, reason="needs root and losetup")
MiB = 1024 * 1024


@pytest.fixture
def loop() -> Iterator[LoopDevice]:
    with loop_device(64 * MiB, name="facts-test") as dev:
        yield dev


@root
def test_device_facts_of_a_loop_device(loop: LoopDevice) -> None:
    f = device_facts(loop.path)
    assert f.kind == "block" and f.size_bytes == 64 * MiB
    assert f.loop_direct_io is True and f.loop_backing_file == str(loop.backing_file)
    assert f.rotational is not None and f.logical_block_size in (512, 4096) and f.scheduler
    assert f.major_minor == loop.major_minor


def test_a_file_on_tmpfs_has_no_block_device(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A regular file's facts come from the device holding its filesystem; an anonymous one (major 0) has none."""
    shm = "/dev/shm"
    if not os.path.isdir(shm) or os.major(os.stat(shm).st_dev) != 0:
        pytest.skip("no tmpfs at /dev/shm")
    path = os.path.join(shm, f"blockfit-facts-{os.getpid()}")
    with open(path, "wb") as fh:
        fh.write(b"x" * 4096)
    try:
        f = device_facts(path)
    finally:
        os.unlink(path)
    assert f.kind == "file" and f.size_bytes == 4096 and f.device is None and f.major_minor.startswith("0:")
