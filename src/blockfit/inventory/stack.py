"""The kernel's block devices as the inventory's nodes: what each one is (disk, partition, LVM linear or striped,
md array, multipath map), its stripe geometry, its members, and the names and identity it shows."""

from __future__ import annotations

from blockfit.devices.blockstack import HostStack
from blockfit.devices.sysfs import BlockDevice
from blockfit.inventory.identity import disk_identity, shared_azure_luns
from blockfit.schema.inventory import BlockNode, NodeKind

STRIPED_MD = ("raid0", "raid10")


def _dm_kind(dev: BlockDevice, stack: HostStack) -> tuple[NodeKind, int | None, int | None, str | None]:
    uuid = dev.dm_uuid or ""
    if uuid.startswith("mpath-") or any(m.device == dev.name for m in stack.multipath_maps):
        return "multipath", None, None, f"dm/uuid {uuid!r}" if uuid else "dmsetup table: multipath"
    geo = stack.dm.get(dev.name)
    lvm = uuid.startswith("LVM-")
    if geo is None or geo.target not in ("linear", "striped"):
        return "dm-other", None, None, geo.source if geo else None
    striped = geo.target == "striped"
    kind: NodeKind = ("lvm-striped" if striped else "lvm-linear") if lvm else ("dm-striped" if striped else "dm-linear")
    return kind, geo.stripes if striped else None, geo.stripe_bytes if striped else None, geo.source


def _md(dev: BlockDevice, stack: HostStack, node: BlockNode) -> None:
    node.level = dev.md_level
    node.stack_evidence = f"md/level {dev.md_level!r}, md/chunk_size {dev.md_chunk_bytes}"
    if dev.md_level in STRIPED_MD:
        node.stripes = stack.md_raid_disks.get(dev.name, len(dev.slaves))
        node.stripe_size = dev.md_chunk_bytes or None


def _node(dev: BlockDevice, stack: HostStack) -> BlockNode:
    kind: NodeKind = {"partition": "partition", "md": "md", "loop": "loop", "nvme": "disk", "disk": "disk"}.get(
        dev.kind, "other")  # type: ignore[assignment]
    node = BlockNode(name=dev.name, kind=kind, size_bytes=dev.size_bytes, dm_name=dev.dm_name,
                     members=list(dev.slaves))
    if dev.kind == "dm":
        node.kind, node.stripes, node.stripe_size, node.stack_evidence = _dm_kind(dev, stack)
    elif dev.kind == "md":
        _md(dev, stack, node)
    elif dev.kind == "partition":
        node.members = [dev.disk] if dev.disk else []
    hw = stack.hardware.get(dev.name)
    if hw is not None:
        node.vendor, node.model, node.serial, node.transport = hw.vendor, hw.model, hw.serial, hw.transport
        node.scsi_address = hw.hctl
    node.by_id = [link.path for link in stack.links if link.device == dev.name and not link.asm]
    asm = [link.path for link in stack.links if link.device == dev.name and link.asm]
    node.asm_label = asm[0].rsplit("/", 1)[-1] if asm else None
    return node


def _queue_depths(stack: HostStack, nodes: dict[str, BlockNode]) -> None:
    depth = {s.session: s.queue_depth for s in stack.sessions}
    for dev in stack.devices.values():
        session = dev.queue.iscsi_session if dev.queue else None
        if session and dev.name in nodes:
            nodes[dev.name].iscsi_queue_depth = depth.get(session) or (dev.queue.device_queue_depth
                                                                        if dev.queue else None)


def build_nodes(stack: HostStack) -> list[BlockNode]:
    """One node per block device with a size (unbound loop devices and empty slots left out), identities on the
    whole disks and on multipath maps (the identity their paths share)."""
    nodes = {d.name: _node(d, stack) for d in stack.devices.values() if d.size_bytes > 0}
    shared = shared_azure_luns(stack)
    for name, node in nodes.items():
        if node.kind == "disk":
            node.identity = disk_identity(name, stack, shared)
    for node in nodes.values():
        if node.kind == "multipath":
            node.identity = next((nodes[m].identity for m in node.members if m in nodes and nodes[m].identity), None)
    _queue_depths(stack, nodes)
    return list(nodes.values())
