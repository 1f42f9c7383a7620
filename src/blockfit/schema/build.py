"""What `blockfit build` writes: the scripts of one build, in the order they run."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.result import ResultEnvelope

StepKind = Literal["provision", "attach", "volume-manager", "migrate", "filesystem", "asm-sql", "terraform", "runner"]


class BuildStep(BaseModel):
    """One generated file; `order` > 0 marks a script that run-all.sh runs (in that order)."""

    order: int = Field(description="run order (0: not run by run-all.sh, e.g. provisioning or SQL)")
    name: str
    path: str = Field(description="file name inside the output directory")
    kind: StepKind
    touches_devices: bool = Field(description="writes to local block devices (has the safety preamble)")
    description: str


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
    notes: list[str] = Field(default_factory=list, description="decisions the user should know (AU rounding, ...)")
    safety_checks: list[str] = Field(default_factory=list, description="what the scripts check before they change "
                                                                       "anything, and what they never change, in "
                                                                       "plain words")
