"""What a Finding says in words: its one-line summary and its recommendation, for every kind, in one place.

Rules (rules.py) decide from figures and settings and hand over the facts; nothing decides from these
words (readers of a Finding use its `kind`, `metric` and `measurements`). Evidence lines stay with the
rules: each is a figure the rule measured, said once where it is measured.
"""

from __future__ import annotations

from blockfit.devices import sysfs
from blockfit.units import fmt_count

MultipathCause = str  # "failed_paths" | "failover_grouping" | "one_active_path" | "unknown"


def figure(x: float) -> str:
    """A measured figure as the findings write it: 1,234 from 100 up, three significant digits below."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


_f = figure


# --- summaries -----------------------------------------------------------------------------------------------


def flush_storm(flushes_per_write: float, flush_share: float) -> str:
    return f"{flushes_per_write:.2f} cache flushes per write; flushing takes {flush_share:.0%} of write time"


def member_cap(unit: str, cap: float, use: float) -> str:
    return f"{unit} held at the {_f(cap)} {unit} cap ({use:.0%})"


def plateau(iops: float, aqu_low: float, aqu_high: float) -> str:
    return f"IOPS plateau at {_f(iops)}: in flight rose {aqu_low:.1f} → {aqu_high:.1f}, IOPS did not"


def queue_depth_bound(depth: float, await_ms: float) -> str:
    return f"throughput held by {depth:.1f} I/Os in flight at {_f(await_ms)} ms, not by the device"


def stripe_hot_member(member: str, stripe: str, share: float, fair: float) -> str:
    return f"{member} carries {share:.0%} of {stripe}'s I/O (fair share {fair:.0%})"


def stripe_slow_member(member: str, stripe: str, await_ms: float, others_ms: float) -> str:
    return f"{member} is the slow member of {stripe}: await {_f(await_ms)} ms vs {_f(others_ms)} ms for the others"


def multipath_one_path(device: str, paths: int, hot: str, share: float) -> str:
    return f"{device}'s I/O goes over one of its {paths} paths ({hot}: {share:.0%})"


def instance_cap(volumes: int, cap: float, unit: str) -> str:
    return f"sum over {fmt_count(volumes, 'volume')} held at the instance's {_f(cap)} {unit} limit"


def small_io_on_throughput_bound(request_kib: float, mbps_use: float) -> str:
    return f"IOPS cap spent on {request_kib:.0f} KiB requests while MB/s uses {mbps_use:.0%} of its cap"


def misaligned_partition(start_bytes: int, align: int) -> str:
    return f"partition starts at byte {start_bytes}, not a multiple of {align}"


def misaligned_xfs(mount_point: str, stripes: int) -> str:
    return f"XFS at {mount_point} sunit/swidth do not match the {stripes}-way stripe"


def scheduler_bfq(iops: float) -> str:
    return f"bfq scheduler on a non-rotational device at {_f(iops)} IOPS"


# --- recommendations -----------------------------------------------------------------------------------------


def flush_storm_advice(mount_point: str | None, fstype: str | None) -> str:
    if mount_point is not None:
        return (f"Only if every layer below has a power-safe (battery- or flash-backed) write cache, as the Claremont "
                f"SAN had: remount {mount_point} with barrier=0 ({fstype} 'nobarrier'). Otherwise keep barriers and "
                "cut the flush rate: batch commits (PostgreSQL commit_delay/commit_siblings or synchronous_commit=off "
                "where acceptable), move the journal/WAL to a device with a power-safe cache.")
    return ("Flushes come from fsync/fdatasync/O_SYNC per write or a filesystem with barriers above this device: "
            "batch commits, or if the cache below is power-safe, disable barriers on the filesystem above.")


MEMBER_CAP = ("The volume's own cap binds, not the host: more queue depth only adds latency. Raise the cap (larger "
              "volume or higher performance level) or stripe across more members.")
PLATEAU = ("A cap below this device binds (volume or instance limit): more queue depth only adds latency. Check the "
           "volume's IOPS/MB/s cap and raise it or add members.")
STRIPE_HOT_MEMBER = ("A hot extent or a stripe size larger than the I/O pattern concentrates load: check with lvs "
                     "--segments that the LV is striped across all members, and use a stripe size the workload's I/O "
                     "spans evenly (or re-balance the hot extent).")
STRIPE_SLOW_MEMBER = ("Every stripe request waits for its slowest member: bring this member to the same "
                      "size/performance level as the others (or find what else uses it).")
INSTANCE_CAP = ("The instance, not the volumes, binds: a larger shape (more OCPUs/vCPUs or an EBS-optimised size) "
                "raises it; more volumes will not.")
SMALL_IO = ("Larger I/O (bigger multiblock reads, larger max_sectors_kb, less splitting by a small stripe) would "
            "move more data under the same IOPS cap.")
PARTITION_ALIGN = "Re-create the partition on a 1 MiB boundary (parted -a optimal)."


def queue_depth_advice(depth: float, target: str, limit: tuple[str, int] | None) -> str:
    if limit is not None:
        what, lim = limit
        return (f"Raise the host queue limit ({what} = {lim}; for iSCSI node.session.queue_depth, e.g. 32 → 128) "
                f"to {target}, then re-measure: IOPS should rise in proportion while await stays flat.")
    return (f"The submitter keeps only ~{depth:.1f} I/Os outstanding: raise concurrency (more parallel sessions or "
            f"readers, async I/O depth, fio iodepth) to {target}; IOPS should rise while await stays flat.")


def multipath_advice(cause: MultipathCause) -> str:
    if cause == "failed_paths":
        return ("Paths are failed: bring them back (iscsiadm -m session; check the iSCSI sessions and the network), "
                "then `multipathd reinstate path` or let multipathd's checker do it.")
    if cause == "failover_grouping":
        return ("The map puts each path in its own group (failover), so only one path carries I/O: group all paths "
                "together (path_grouping_policy multibus with path_selector \"service-time 0\"; `blockfit build` "
                "emits this for OCI UHP), then `multipathd reconfigure`; `multipath -ll` must show one group with "
                "every path active.")
    return ("Spread the I/O over every path: one path group with all paths (path_grouping_policy multibus, "
            "path_selector \"service-time 0\", which `blockfit build` emits); check `multipath -ll` and the iSCSI "
            "sessions (one per path).")


def xfs_geometry_advice(stripe_bytes: int, stripes: int) -> str:
    return f"mkfs.xfs -d su={stripe_bytes},sw={stripes} (or mount -o sunit=,swidth=)."


def bfq_advice(device: str) -> str:
    return ("bfq's per-request cost shows at these rates: use 'none' or 'mq-deadline' "
            f"(echo none > {sysfs.shown(device, 'queue/scheduler')}).")
