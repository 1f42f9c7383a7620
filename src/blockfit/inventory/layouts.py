"""Each filesystem's (and each unmounted LV's or array's) layout in spec grammar, and what `model` predicts for it.

A layout is N identical cloud volumes under one volume manager: the top device is walked down (partition → disk,
LV → its PVs, md array → its members, multipath map → one volume over its paths), each volume's figures are what
the provider file said of it, and the spec is written and read back through the spec grammar (specs.parse_layout)
so that `model --inventory` and `model --layout SPEC` take the very same Layout. What stops a spec or a prediction
is said in `unknown`, one reason each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blockfit.catalog import Catalog, load_catalog
from blockfit.errors import BlockfitError
from blockfit.model import layout_spec, normalize_volume, predict
from blockfit.model.kinds.clouds import cloud_of
from blockfit.schema import Instance, Layout, Volume, Workload
from blockfit.schema.inventory import BlockNode, InventoryLayout, MountedFilesystem
from blockfit.schema.layout import Manager
from blockfit.specs import parse_layout

STACKED = ("lvm-striped", "dm-striped", "lvm-linear", "dm-linear", "md")


@dataclass
class Walk:
    """What lies under a top device: the volumes, how they are striped, and what cannot be modelled."""

    volumes: list[BlockNode] = field(default_factory=list)
    manager: Manager = "none"
    stripe_size: int | None = None
    redundancy: str = "none"
    problems: list[str] = field(default_factory=list)


def _volume_of(name: str, nodes: dict[str, BlockNode], walk: Walk) -> BlockNode | None:
    """The cloud volume a member is: a disk, a partition's disk, or a multipath map."""
    node = nodes.get(name)
    if node is not None and node.kind == "partition" and node.members:
        node = nodes.get(node.members[0])
    if node is None or node.kind not in ("disk", "multipath", "loop"):
        walk.problems.append(f"{name} is a {node.kind if node else 'missing'} device under another stacked device: "
                             "nested stacks are not modelled")
        return None
    return node


def walk(top: BlockNode, nodes: dict[str, BlockNode]) -> Walk:
    w = Walk()
    if top.kind in ("disk", "partition", "multipath", "loop"):
        vol = _volume_of(top.name, nodes, w)
        w.volumes = [vol] if vol else []
        return w
    if top.kind in ("lvm-striped", "dm-striped"):
        w.manager, w.stripe_size = "lvm", top.stripe_size
    elif top.kind in ("lvm-linear", "dm-linear"):
        w.manager = "lvm"
        if len(top.members) > 1:
            w.problems.append(f"{top.name} is a linear LV over {len(top.members)} volumes (concatenated, not "
                              "striped): the model assumes a stripe")
    elif top.kind == "md" and top.level in ("raid0", "raid10"):
        w.manager, w.stripe_size = "mdadm", top.stripe_size
        w.redundancy = "raid10" if top.level == "raid10" else "none"
    else:
        w.problems.append(f"{top.name} is {top.kind}{f' {top.level}' if top.level else ''}: not a layout the model "
                          "knows (a disk, an LVM linear or striped LV, md raid0 or raid10)")
        return w
    vols = [_volume_of(m, nodes, w) for m in top.members]
    w.volumes = [v for v in vols if v is not None]
    return w


def _volume(vols: list[BlockNode], problems: list[str]) -> Volume | None:
    """The one Volume every member is; a reason in PROBLEMS when some have none or they differ."""
    missing = [v.name for v in vols if v.volume is None]
    if missing:
        seen = [f"{v.name} ({v.identity.volume_id})" if v.identity and v.identity.volume_id else v.name
                for v in vols if v.volume is None]
        why = ("no cloud identity" if all(v.identity is None for v in vols if v.volume is None)
               else "no --volumes file names it")
        problems.append(f"volume type and provisioned figures of {', '.join(seen)}: {why}")
        return None
    figures = {v.volume.model_dump_json() for v in vols if v.volume}
    if len(figures) > 1:
        problems.append(f"{', '.join(v.name for v in vols)} are not identical volumes (type, size or provisioned "
                        "figures differ): a layout is N identical volumes")
        return None
    return vols[0].volume


def _attachment(cat: Catalog, vols: list[BlockNode], nodes: dict[str, BlockNode]) -> tuple[str | None, int | None]:
    """OCI: iSCSI where the disks sit on iSCSI sessions (paths: a multipath map's paths), else paravirtualized."""
    if not cloud_of(cat.cloud).iscsi_attachments:
        return None, None
    def paths(v: BlockNode) -> list[BlockNode]:
        return [nodes[m] for m in v.members if m in nodes] if v.kind == "multipath" else [v]
    if all(p.transport == "iscsi" for v in vols for p in paths(v)):
        counts = {len(paths(v)) for v in vols}
        return "iscsi", counts.pop() if len(counts) == 1 else None
    return "paravirtualized", None


def layout_of(vol: Volume, members: int, w: Walk, cat: Catalog, attachment: tuple[str | None, int | None]) \
        -> tuple[str, Layout]:
    """The spec of MEMBERS x VOL and the Layout the spec grammar reads back from it (what `model --layout` takes)."""
    spec = layout_spec(cat, Layout(members=members, volume=normalize_volume(cat, vol)))
    layout = parse_layout(spec, cat.cloud, cat, stripe_size=w.stripe_size,
                          manager="lvm" if w.manager == "none" else w.manager)
    return spec, layout.model_copy(update={"redundancy": w.redundancy, "attachment": attachment[0],
                                           "paths": attachment[1]})


def _queue_depth(vols: list[BlockNode], nodes: dict[str, BlockNode]) -> int | None:
    depths = {p.iscsi_queue_depth for v in vols for p in ([nodes[m] for m in v.members if m in nodes]
                                                          if v.kind == "multipath" else [v])}
    return depths.pop() if len(depths) == 1 else None


def describe(top: BlockNode, fs: MountedFilesystem | None, nodes: dict[str, BlockNode],
             instance: Instance | None, catalogs: dict[str, Catalog]) -> InventoryLayout:
    """The InventoryLayout of TOP: its spec and the model's prediction, or what is unknown and why."""
    out = InventoryLayout(mount_point=fs.mount_point if fs else None, device=top.name, spec=None,
                          used_bytes=fs.used_bytes if fs else None, instance=instance)
    w = walk(top, nodes)
    out.volumes = [v.name for v in w.volumes]
    out.unknown = list(w.problems)
    if w.problems or not w.volumes:
        return out
    vol = _volume(w.volumes, out.unknown)
    if vol is None:
        return out
    cat = catalogs.setdefault(vol.cloud, load_catalog(vol.cloud))
    try:
        out.spec, out.layout = layout_of(vol, len(w.volumes), w, cat, _attachment(cat, w.volumes, nodes))
    except BlockfitError as exc:
        out.unknown.append(f"spec: {exc}")
        return out
    out.host_queue_depth = _queue_depth(w.volumes, nodes)
    if instance is None:
        out.unknown.append("instance: the host's DMI does not name it; give --instance SHAPE")
        return out
    if instance.cloud != vol.cloud:
        out.unknown.append(f"instance {instance.spec} is on {instance.cloud}, the volumes on {vol.cloud}")
        return out
    try:
        out.prediction = predict(out.layout, instance, Workload(host_queue_depth=out.host_queue_depth), cat)
    except BlockfitError as exc:
        out.unknown.append(f"prediction: {exc}")
    return out


Top = tuple[BlockNode, MountedFilesystem | None]


def tops(nodes: list[BlockNode], filesystems: list[MountedFilesystem]) -> list[Top]:
    """Each mounted filesystem's device, then each unmounted LV or array no other device is built on."""
    by_name = {n.name: n for n in nodes}
    found: list[Top] = [(by_name[fs.device], fs) for fs in filesystems if fs.device in by_name]
    mounted = {fs.device for fs in filesystems}
    below = {m for n in nodes for m in n.members}
    found += [(n, None) for n in nodes if n.kind in STACKED and n.name not in mounted and n.name not in below]
    return found
