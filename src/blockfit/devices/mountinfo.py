"""Typed reader for /proc/self/mountinfo (proc(5)): which filesystem sits on which device, with what options.

Options that matter to storage latency: write barriers (ext4 shows `nobarrier` when off; XFS removed the
option in 4.19), ext4 `data=` journalling mode, and atime updates (noatime/relatime/strictatime).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from blockfit.errors import InputError

MOUNTINFO = "/proc/self/mountinfo"


class MountError(InputError):
    """A mountinfo line we cannot read."""


class Mount(BaseModel):
    mount_point: str
    dev: str = Field(description="major:minor of the mounted device")
    fstype: str
    source: str
    mount_options: list[str]
    super_options: list[str]

    @property
    def all_options(self) -> list[str]:
        return self.mount_options + self.super_options

    def option(self, key: str) -> str | None:
        for opt in self.all_options:
            if opt.startswith(key + "="):
                return opt.split("=", 1)[1]
        return None

    @property
    def barriers(self) -> bool | None:
        """True when the filesystem issues cache flushes on commit/fsync; None when it cannot be switched."""
        opts = self.all_options
        if self.fstype in ("ext3", "ext4"):
            if "nobarrier" in opts or self.option("barrier") == "0":
                return False
            return True
        if self.fstype == "xfs":
            return "nobarrier" not in opts
        if self.fstype == "btrfs":
            return "nobarrier" not in opts
        return None

    @property
    def data_mode(self) -> str | None:
        return self.option("data")

    @property
    def atime(self) -> str:
        for opt in self.mount_options:
            if opt in ("noatime", "relatime", "strictatime"):
                return opt
        return "strictatime"


def unescape(text: str) -> str:
    """Undo the kernel's octal escapes (\\ooo: space, tab, newline and backslash in mountinfo, any byte in
    principle); a backslash not followed by three octal digits is kept as written."""
    out, i = [], 0
    while i < len(text):
        code = text[i + 1:i + 4]
        if text[i] == "\\" and len(code) == 3 and all(c in "01234567" for c in code):
            out.append(chr(int(code, 8)))
            i += 4
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def parse_line(line: str, lineno: int = 1, source: str = MOUNTINFO) -> Mount:
    parts = line.split()
    if "-" not in parts:
        raise MountError(f"{source} line {lineno}: no ' - ' separator before the filesystem type: "
                         f"{line.strip()[:120]!r}")
    sep = parts.index("-")
    if sep < 6 or len(parts) < sep + 4:
        raise MountError(f"{source} line {lineno}: expected 6+ fields, ' - ', fstype, source, options: "
                         f"{line.strip()[:120]!r}")
    return Mount(
        mount_point=unescape(parts[4]),
        dev=parts[2],
        fstype=parts[sep + 1],
        source=unescape(parts[sep + 2]),
        mount_options=parts[5].split(","),
        super_options=parts[sep + 3].split(","),
    )


def parse(text: str, source: str = MOUNTINFO) -> list[Mount]:
    return [parse_line(line, n, source) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def read(path: str = MOUNTINFO) -> list[Mount]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return parse(fh.read(), path)
