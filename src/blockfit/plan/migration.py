"""How long a move takes, per method: arithmetic over the model's figures for the old layout (its reads), the new
one (its writes) and the instance both hang off, and over what each tool keeps in flight.

- offline block copy (dd of the whole device) and offline file copy (a filesystem copy of the bytes in use): a
  stream whose rate is the lowest of the source's large-read MB/s, the target's large-write MB/s and the
  instance's MB/s left for a copy (every byte comes in and goes out: a cap for reads and writes together halves);
- online LVM mirror (lvconvert --type mirror, pvmove): dm-mirror recovers one region at a time, each read from the
  old leg then written to the new one, so its rate is a region over a read and a write of it, at most the stream's;
- ASM rebalance: one extent relocation in flight per unit of power (Oracle), each a read of an allocation unit from
  an old disk and a write to a new one, at most the stream's.

Each Migration carries its figures and lines of arithmetic; the tools' behaviours cite their public sources.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blockfit.schema import Citation, Migration, Prediction
from blockfit.units import fmt_hours

MB = 1e6
MIB = 1024 * 1024
LVM_REGION_BYTES = 2 * MIB      # lvm.conf activation/raid_region_size default (512 KiB in releases before 2.02.171)
KCOPYD_SUB_JOB_BYTES = 512 * 1024
ASM_DEFAULT_AU_BYTES = MIB      # CREATE DISKGROUP's default allocation unit
ASM_MAX_POWER = 1024            # COMPATIBLE.ASM >= 11.2.0.2 (11 before)
DD_BLOCK = "dd bs=128M iflag=direct oflag=direct status=progress"

DM_RAID1 = Citation(id="LINUX-DM-RAID1", url="https://github.com/torvalds/linux/blob/master/drivers/md/dm-raid1.c",
                    date="2026-12-07")
DM_KCOPYD = Citation(id="LINUX-DM-KCOPYD",
                     url="https://github.com/torvalds/linux/blob/master/drivers/md/dm-kcopyd.c", date="2026-12-07")
LVM_DEFAULTS = Citation(id="LVM2-DEFAULTS", url="https://github.com/lvmteam/lvm2/blob/main/lib/config/defaults.h",
                        date="2026-12-07")
ASM_POWER = Citation(id="ORACLE-ASM-REBALANCE",
                     url="https://docs.oracle.com/database/121/OSTMG/GUID-14E48E96-F5D6-4F41-A8E4-B535CBD3CAE5.htm",
                     date="2026-12-07")
ASM_POWER_LIMIT = Citation(id="ORACLE-ASM-POWER-LIMIT",
                           url="https://docs.oracle.com/en/database/oracle/oracle-database/18/refrn/"
                               "ASM_POWER_LIMIT.html", date="2026-12-07")

LIMIT_WORDS = {"source_read": "the source's reads", "target_write": "the target's writes",
               "instance_mbps": "the instance's MB/s left for a copy", "in_flight": "what the tool keeps in flight"}


@dataclass(frozen=True)
class Sides:
    """The two layouts of a move and the instance both hang off.

    source: the old layout predicted at 100 % reads; target: the new one at 0 % reads (both at large I/O);
    instance_mbps: what the instance leaves a copy (None: no cap known), instance_rule: how that was found."""

    source: Prediction
    target: Prediction
    instance_mbps: float | None
    instance_rule: str

    def stream(self) -> tuple[float, str]:
        """The stream's rate and which side holds it (ties: the source first, as the copy reads first)."""
        bounds = [(self.source.max_mbps, "source_read"), (self.target.max_mbps, "target_write")]
        if self.instance_mbps is not None:
            bounds.append((self.instance_mbps, "instance_mbps"))
        rate, name = min(bounds, key=lambda b: b[0])
        return rate, name

    def side_lines(self) -> list[str]:
        src, dst = self.source, self.target
        lines = [f"source {src.layout} on {src.instance}: reads {mbps(src.max_mbps)} "
                 f"({_words(src, src.mbps_limited_by)})",
                 f"target {dst.layout}: writes {mbps(dst.max_mbps)} ({_words(dst, dst.mbps_limited_by)})"]
        if self.instance_mbps is not None:
            lines.append(f"instance: {mbps(self.instance_mbps)} left for a copy ({self.instance_rule})")
        return lines


def copy_share(instance_mbps: float | None, direction: str, rule: str) -> tuple[float | None, str]:
    """The instance's MB/s for a copy, which reads every byte in and writes it out: the whole cap where it holds for
    each direction (OCI's full-duplex network), half of it where one cap counts reads and writes together."""
    if instance_mbps is None:
        return None, "no instance cap known"
    if direction == "each":
        return instance_mbps, f"{rule}, for reads and for writes each"
    return instance_mbps / 2, f"{rule}, one cap for reads and writes together: {instance_mbps:,.0f} / 2"


def offline_block_copy(sides: Sides, device_bytes: int) -> Migration:
    """dd of the whole source device onto the new one: every block, used or not, at the stream's rate."""
    rate, name = sides.stream()
    return _migration(sides, "offline-block-copy", False, DD_BLOCK, device_bytes,
                      "the whole source device (a block copy reads every block, used or not)", rate, name,
                      notes=["Assumes the copy keeps reads and writes going at once (GNU dd with direct I/O on both "
                             "sides alternates a 128 MiB read and a 128 MiB write, which can only be slower)."])


def offline_file_copy(sides: Sides, used_bytes: int) -> Migration:
    """A filesystem copy (cp -a, rsync, xfsdump | xfsrestore) of the bytes in use, at the stream's rate."""
    rate, name = sides.stream()
    return _migration(sides, "offline-file-copy", False, "cp -a / rsync / xfsdump | xfsrestore", used_bytes,
                      "the bytes in use on the filesystem", rate, name,
                      notes=["A filesystem copy of many small files goes slower than this: it pays per file, which "
                             "this figure leaves out; it also lets the target be smaller than the source."])


def lvm_mirror(sides: Sides, lv_bytes: int, region_bytes: int = LVM_REGION_BYTES) -> Migration:
    """lvconvert --type mirror (or pvmove) onto the new PVs: dm-mirror recovers one region at a time, kcopyd reading
    it from the old leg and then writing it to the new one, so a region costs a read and a write of it."""
    stream, stream_name = sides.stream()
    latency_ms = sides.source.base_latency_ms + sides.target.base_latency_ms
    per_region_s = latency_ms / 1000 + region_bytes / MB / sides.source.max_mbps \
        + region_bytes / MB / sides.target.max_mbps
    paced = region_bytes / MB / per_region_s
    rate, name = (paced, "in_flight") if paced < stream else (stream, stream_name)
    sub_jobs = math.ceil(region_bytes / KCOPYD_SUB_JOB_BYTES)
    flight = [f"1 region of {_size(region_bytes)} in flight (dm-mirror recovers one at a time; kcopyd copies it as "
              f"{sub_jobs} sub-job(s) of {_size(KCOPYD_SUB_JOB_BYTES)}): {latency_ms:.2f} ms (a read and a write at "
              f"no load) + {_size(region_bytes)} / {mbps(sides.source.max_mbps)} + {_size(region_bytes)} / "
              f"{mbps(sides.target.max_mbps)} = {per_region_s * 1000:.2f} ms a region -> {mbps(paced)}"]
    return _migration(sides, "lvm-mirror", True, "lvconvert --type mirror --mirrors 1 --mirrorlog core --stripes N "
                      "(or pvmove)", lv_bytes, "the whole logical volume (the mirror syncs every region, used or "
                      "not)", rate, name, in_flight=1, unit_bytes=region_bytes, latency_ms=latency_ms,
                      extra=flight, sources=[DM_RAID1, DM_KCOPYD, LVM_DEFAULTS],
                      notes=["The database's own I/O shares the devices while the mirror syncs and slows it further; "
                             "lvconvert -R/--regionsize sets the region (a larger one needs fewer round trips)."])


def asm_rebalance(sides: Sides, used_bytes: int, power: int, au_bytes: int = ASM_DEFAULT_AU_BYTES) -> Migration:
    """ADD DISK the new volumes and DROP DISK the old in one statement, REBALANCE POWER n: ASM keeps one relocation
    I/O in flight per unit of power, each an allocation unit read from an old disk and written to a new one."""
    stream, stream_name = sides.stream()
    src, dst = sides.source, sides.target
    latency_ms = src.base_latency_ms + dst.base_latency_ms
    per_extent_s = latency_ms / 1000 + au_bytes / MB / src.member_mbps + au_bytes / MB / dst.member_mbps
    paced = power * au_bytes / MB / per_extent_s
    rate, name = (paced, "in_flight") if paced < stream else (stream, stream_name)
    flight = [f"power {power}: {power} extent relocation(s) of {_size(au_bytes)} in flight, each {latency_ms:.2f} ms + "
              f"{_size(au_bytes)} / {mbps(src.member_mbps)} (one old disk) + {_size(au_bytes)} / "
              f"{mbps(dst.member_mbps)} (one new disk) = {per_extent_s * 1000:.2f} ms -> {power} x "
              f"{_size(au_bytes)} / {per_extent_s * 1000:.2f} ms = {mbps(paced)}"]
    return _migration(sides, "asm-rebalance", True, f"ALTER DISKGROUP ... ADD DISK ... DROP DISK ... REBALANCE POWER "
                      f"{power}", used_bytes, "the extents allocated in the disk group (a rebalance moves only "
                      "those)", rate, name, in_flight=power, unit_bytes=au_bytes, latency_ms=latency_ms, power=power,
                      extra=flight, sources=[ASM_POWER, ASM_POWER_LIMIT],
                      notes=["Power above 11 needs COMPATIBLE.ASM 11.2.0.2 or later (up to 1024); ASM lowers the "
                             "power to fit its PGA memory."])


def power_to_reach(sides: Sides, au_bytes: int = ASM_DEFAULT_AU_BYTES) -> int:
    """The smallest rebalance power whose relocations in flight reach the stream's rate (at most 1024)."""
    stream, _ = sides.stream()
    src, dst = sides.source, sides.target
    per_extent_s = (src.base_latency_ms + dst.base_latency_ms) / 1000 + au_bytes / MB / src.member_mbps \
        + au_bytes / MB / dst.member_mbps
    return min(ASM_MAX_POWER, max(1, math.ceil(stream * per_extent_s / (au_bytes / MB) - 1e-9)))


def _migration(sides: Sides, method: str, online: bool, tool: str, data_bytes: int, what: str, rate: float,
               name: str, *, in_flight: int | None = None, unit_bytes: int | None = None,
               latency_ms: float | None = None, power: int | None = None, extra: list[str] | None = None,
               sources: list[Citation] | None = None, notes: list[str] | None = None) -> Migration:
    duration = data_bytes / MB / rate
    lines = [*sides.side_lines(), *(extra or []),
             f"{_size(data_bytes)} ({what}) / {mbps(rate)} = {duration:,.0f} s = {hours(duration)}; "
             f"binding: {LIMIT_WORDS[name]}"]
    return Migration.model_validate(dict(
        method=method, online=online, tool=tool, data_bytes=data_bytes, data_what=what,
        read_mbps=sides.source.max_mbps, read_limited_by=sides.source.mbps_limited_by,
        write_mbps=sides.target.max_mbps, write_limited_by=sides.target.mbps_limited_by,
        instance_mbps=sides.instance_mbps, in_flight=in_flight, unit_bytes=unit_bytes, latency_ms=latency_ms,
        power=power, rate_mbps=rate, limited_by=name, duration_s=duration, arithmetic=lines,
        sources=sources or [], notes=notes or []))


def _words(p: Prediction, name: str) -> str:
    return p.limit_description(name) or name


def mbps(value: float) -> str:
    return f"{value:,.0f} MB/s"


def hours(seconds: float) -> str:
    """'2 h 50 min', '45 min', '30 s'."""
    return fmt_hours(seconds)


def _size(n: int) -> str:
    """'4,889,781,911,552 B (4.89 TB)' for data; '2 MiB' for a unit."""
    if n < 1024**3 and n % 1024 == 0:
        return f"{n // MIB} MiB" if n % MIB == 0 else f"{n // 1024} KiB"
    return f"{n:,} B ({n / 1e12:.2f} TB)"
