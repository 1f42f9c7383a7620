"""What `blockfit build` writes: the scripts of one build, in the order they run.

Each step carries the text it wrote (`content`, bounded), so `blockfit report` shows a build from the result
alone: a path named inside a result is never opened (a result naming /proc/self/environ put the environment on
the page).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.empty import empty_list
from blockfit.schema.migration import Migration
from blockfit.schema.result import ResultEnvelope

CONTENT_MAX = 64 * 1024  # characters of one file a build result carries; the generated files are ~1-16 KiB

StepKind = Literal["provision", "attach", "volume-manager", "migrate", "filesystem", "asm-sql", "terraform", "runner"]


class BuildStep(BaseModel):
    """One generated file; `order` > 0 marks a script that run-all.sh runs (in that order)."""

    order: int = Field(description="run order (0: not run by run-all.sh, e.g. provisioning or SQL)")
    name: str
    path: str = Field(description="file name inside the output directory")
    kind: StepKind
    touches_devices: bool = Field(description="writes to local block devices (has the safety preamble)")
    description: str
    content: str | None = Field(
        default=None, max_length=CONTENT_MAX,
        description="the file's text as written, at most 65,536 characters (a longer file is cut, and says so "
                    "on its last line); absent in build results written before 2026-11-27")


def step_content(text: str) -> str:
    """The text a step carries: the file whole, or its first part and one line saying how much was left out."""
    if len(text) <= CONTENT_MAX:
        return text
    tail = f"\n[... {len(text):,} characters in the file; the first {{:,}} are shown]\n"
    keep = CONTENT_MAX - len(tail.format(CONTENT_MAX))
    return text[:keep] + tail.format(keep)


class BuildResult(ResultEnvelope):
    kind: Literal["build"] = "build"
    out_dir: str
    cloud: str
    manager: str
    members: int
    stripe_size: int | None = Field(description="stripe unit in bytes (LVM -I, mdadm chunk, ASM AU); None: one volume")
    devices: list[str]
    target_device: str | None = Field(description="the device the filesystem/database goes on (LV, md, or member)")
    filesystem: str | None = None
    mount: str | None = None
    migrate_from: str | None = None
    migrate_method: str | None = None
    provision: str | None = None
    steps: list[BuildStep]
    notes: list[str] = Field(default_factory=empty_list,
                             description="decisions the user should know (AU rounding, ...)")
    migrations: list[Migration] = Field(default_factory=empty_list, description="build --inventory: how long "
                                        "moving the data takes, per method, with its arithmetic; the one this "
                                        "build's migration step runs first")
    safety_checks: list[str] = Field(default_factory=empty_list, description="what the scripts check before they "
                                                                             "change anything, and what they never "
                                                                             "change, in plain words")
