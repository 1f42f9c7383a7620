"""The guest's initramfs: the newc archive cpio reads back, and the init's module loading."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from blockfit.lab.initramfs import newc_archive


@pytest.mark.skipif(not shutil.which("cpio"), reason="cpio not installed")
def test_newc_archive_is_read_back_by_cpio(tmp_path: Path) -> None:
    data = newc_archive([("bin", 0o040755, b"", 0), ("bin/hello", 0o100755, b"echo hi\n", 0),
                         ("odd-name.x", 0o100644, b"x" * 1001, 0)])
    proc = subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"], input=data, cwd=tmp_path,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "bin" / "hello").read_bytes() == b"echo hi\n"
    assert (tmp_path / "odd-name.x").stat().st_size == 1001
    assert (tmp_path / "bin" / "hello").stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("broken", [None, "raid1"])
def test_init_loads_the_late_modules_in_one_modprobe_and_names_one_that_fails(tmp_path: Path,
                                                                            broken: str | None) -> None:
    """Each chroot + modprobe exec costs a TCG guest's boot about 0.3 s: all late modules go to one modprobe, and
    only when it fails is each tried on its own, so the console still names the one that is missing. The init's
    module block runs here under sh, with chroot a stand-in that logs each call."""
    from blockfit.lab.initramfs import LATE_MODULES, render_init
    from blockfit.lab.kernel import GuestKernel

    kernel = GuestKernel(version="6.1.0-test-amd64", root=tmp_path / "root", vmlinux=tmp_path / "vmlinux")
    text = render_init(kernel, [tmp_path / "virtio_pci.ko"])
    assert "if ! chroot $R /sbin/modprobe -a " in text, "each late module gets a modprobe exec of its own"
    block = text[text.index("if ! chroot $R /sbin/modprobe"):]
    block = block[:block.index("\nfi\n") + 4]
    log = tmp_path / "calls"
    stub = (f'chroot() {{ shift; echo "$*" >> {log}; for m in "$@"; do [ "$m" = "{broken or "-"}" ] && return 1; '
            'done; return 0; }\nsay() { echo "blockfit-lab: $*"; }\nR=/newroot\n')
    out = subprocess.run(["sh", "-c", stub + block], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "/sbin/modprobe -a " + " ".join(LATE_MODULES)
    if broken is None:
        assert calls == calls[:1] and out.stdout == ""  # one exec on the way every guest boots
    else:
        assert calls[1:] == [f"/sbin/modprobe {m}" for m in LATE_MODULES]
        assert out.stdout.splitlines() == [f"blockfit-lab: modprobe {broken} failed"]
