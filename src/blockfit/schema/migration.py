"""How long a move from the layout a host has (an inventory's) to a planned one takes, per method, with the
figures each duration comes from, so a reader can redo the arithmetic."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.citation import Citation
from blockfit.schema.empty import empty_list
from blockfit.schema.prediction import Prediction

MigrationMethod = Literal["offline-block-copy", "offline-file-copy", "lvm-mirror", "asm-rebalance"]
# each method in words, as the terminal and the report name it
METHOD_WORDS: dict[str, str] = {"offline-block-copy": "offline, block copy",
                                "offline-file-copy": "offline, filesystem copy",
                                "lvm-mirror": "online, LVM mirror", "asm-rebalance": "online, ASM rebalance"}
MigrationLimit = Literal["source_read", "target_write", "instance_mbps", "in_flight"]


class Migration(BaseModel):
    """One way to move the data, and how long it takes: data_bytes / rate_mbps, the rate being the lowest of the
    source's reads, the target's writes, the instance's share for a copy, and what the tool keeps in flight."""

    method: MigrationMethod = Field(description="offline-block-copy (dd of the whole device), offline-file-copy "
                                                "(a filesystem copy of the bytes in use), lvm-mirror (lvconvert "
                                                "--type mirror or pvmove, online), asm-rebalance (ADD/DROP DISK "
                                                "REBALANCE POWER n, online)")
    online: bool = Field(description="the database keeps running while it copies")
    tool: str = Field(description="the command that does it, e.g. 'dd bs=128M iflag=direct oflag=direct'")
    data_bytes: int = Field(description="bytes the method copies")
    data_what: str = Field(description="what data_bytes is: the whole source device, or the bytes in use")
    read_mbps: float = Field(description="the source layout's MB/s at large reads (model, 100 % reads)")
    read_limited_by: str = Field(description="the source prediction's limit row holding read_mbps")
    write_mbps: float = Field(description="the target layout's MB/s at large writes (model, 0 % reads)")
    write_limited_by: str = Field(description="the target prediction's limit row holding write_mbps")
    instance_mbps: float | None = Field(default=None, description="MB/s the instance leaves a copy, whose every "
                                                                  "byte is read in and written out; None: no cap known")
    in_flight: int | None = Field(default=None, description="copy units the tool keeps in flight (a mirror's "
                                                            "regions, an ASM rebalance's extents); None: a stream")
    unit_bytes: int | None = Field(default=None, description="bytes of one copy unit (region, allocation unit)")
    latency_ms: float | None = Field(default=None, description="one read plus one write of a unit at no load, ms "
                                                               "(the models' base latencies)")
    power: int | None = Field(default=None, description="ASM rebalance power (1..1024)")
    rate_mbps: float = Field(description="the copy's MB/s: the lowest bound")
    limited_by: MigrationLimit = Field(description="which bound holds rate_mbps")
    duration_s: float = Field(description="data_bytes / rate_mbps")
    arithmetic: list[str] = Field(description="the figures and the sum, one line each, as shown to the user")
    sources: list[Citation] = Field(default_factory=empty_list, description="where the tool's behaviour is "
                                                                           "documented")
    notes: list[str] = Field(default_factory=empty_list, description="what the figure assumes")


class CurrentLayout(BaseModel):
    """The layout a host has under a mount point (from an inventory), and what the model predicts for it."""

    mount_point: str | None
    device: str = Field(description="kernel name of the top device (dm-0, md0, nvme1n1)")
    size_bytes: int | None = Field(default=None, description="the top device's size: what a block copy reads")
    used_bytes: int | None = Field(default=None, description="bytes in use on its filesystem")
    prediction: Prediction
