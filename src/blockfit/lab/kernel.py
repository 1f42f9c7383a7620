"""The guest kernel: Debian's own kernel package, unpacked (never installed) into the user's cache.

Why this way: the host kernel has neither device-mapper nor md, and nested KVM fails here, so the lab
boots a stock Debian kernel under TCG. qemu boots an uncompressed ELF vmlinux directly through its PVH
entry point, skipping bzImage's real-mode set-up and the in-guest xz decompression (seconds under TCG).
The modules stay in the unpacked tree; the guest bind-mounts them onto /lib/modules/VERSION.
"""

from __future__ import annotations

import lzma
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from blockfit import proc, tools
from blockfit.errors import EnvironmentProblem
from blockfit.lab.cache import cache_dir, locked

KERNEL_META_PACKAGE = "linux-image-amd64"
_XZ_MAGIC = b"\xfd7zXZ\x00"
_READY = "READY"

Step = Callable[[str], None]


@dataclass(frozen=True)
class GuestKernel:
    version: str  # e.g. 6.1.0-56-amd64
    root: Path  # unpacked package root: ROOT/lib/modules/VERSION
    vmlinux: Path

    @property
    def modules_dir(self) -> Path:
        return self.root / "lib" / "modules" / self.version


def kernels_dir() -> Path:
    return cache_dir() / "kernels"


def cached_kernel() -> GuestKernel | None:
    """The newest complete kernel in the cache, or None (no apt call when the cache is warm)."""
    base = kernels_dir()
    if not base.is_dir():
        return None
    ready = sorted(d for d in base.iterdir() if (d / _READY).is_file())
    if not ready:
        return None
    d = ready[-1]
    return GuestKernel(version=(d / _READY).read_text().strip(), root=d / "root", vmlinux=d / "vmlinux")


def ensure_kernel(step: Step | None = None) -> GuestKernel:
    """Return the cached guest kernel, fetching and unpacking it once (under a lock) if missing."""
    found = cached_kernel()
    if found:
        return found
    say = step or (lambda _msg: None)
    with locked(cache_dir() / "kernel.lock"):
        found = cached_kernel()  # another process may have built it while we waited
        if found:
            return found
        tools.require("lab (unpacks Debian's kernel package)", "apt-get", "apt-cache", "dpkg-deb", "depmod")
        say("resolving the Debian kernel package")
        package = _resolve_package()
        base = kernels_dir()
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{package}-", dir=base))
        try:
            say(f"downloading {package}")
            deb = _download(package, tmp)
            say(f"unpacking {deb.name}")
            _run(["dpkg-deb", "-x", str(deb), str(tmp / "root")], "dpkg-deb -x")
            deb.unlink()
            versions = sorted(p.name for p in (tmp / "root" / "lib" / "modules").iterdir())
            if len(versions) != 1:
                raise EnvironmentProblem(f"lab: {package} holds kernel versions {versions}, expected exactly one")
            version = versions[0]
            say("indexing modules (depmod)")
            _run(["depmod", "-b", str(tmp / "root"), version], "depmod")
            say("extracting vmlinux from vmlinuz")
            extract_vmlinux(tmp / "root" / "boot" / f"vmlinuz-{version}", tmp / "vmlinux")
            shutil.rmtree(tmp / "root" / "usr", ignore_errors=True)  # docs only; keep boot/ for config
            (tmp / _READY).write_text(version + "\n")
            final = base / package
            if final.exists():
                shutil.rmtree(final)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    found = cached_kernel()
    assert found is not None
    return found


def extract_vmlinux(vmlinuz: Path, out: Path) -> None:
    """Write the ELF kernel hidden in a bzImage's xz payload to OUT (atomically)."""
    data = vmlinuz.read_bytes()
    offset = data.find(_XZ_MAGIC)
    if offset < 0:
        raise EnvironmentProblem(f"lab: {vmlinuz} has no xz payload (expected Debian's xz-compressed bzImage)")
    elf = lzma.LZMADecompressor().decompress(data[offset:])
    if elf[:4] != b"\x7fELF":
        raise EnvironmentProblem(f"lab: the xz payload of {vmlinuz} is not an ELF kernel")
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(elf)
    os.replace(tmp, out)


def _resolve_package() -> str:
    """linux-image-amd64 → the versioned package it depends on; runs apt-get update once if lists are empty."""
    for attempt in range(2):
        out = proc.run(["apt-cache", "depends", KERNEL_META_PACKAGE], timeout=120)
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "Depends:" and parts[1].startswith("linux-image-"):
                return parts[1]
        if attempt == 0:
            _apt_update()
    raise EnvironmentProblem(f"lab: apt does not know {KERNEL_META_PACKAGE} (check /etc/apt/sources.list)")


def _download(package: str, into: Path) -> Path:
    for attempt in range(2):
        out = proc.run(["apt-get", "download", package], cwd=into, timeout=1800)
        debs = list(into.glob(f"{package}_*.deb"))
        if out.returncode == 0 and debs:
            return debs[0]
        if attempt == 0:
            _apt_update()
    raise EnvironmentProblem(f"lab: 'apt-get download {package}' failed: {out.stderr.strip()[-300:]}")


def _apt_update() -> None:
    if os.geteuid() == 0:
        proc.run(["apt-get", "update", "-qq"], timeout=1800)


def _run(cmd: list[str], what: str) -> None:
    out = proc.run(cmd)
    if out.returncode != 0:
        raise EnvironmentProblem(f"lab: {what} failed: {out.stderr.strip()[-300:]}")
