"""The inventory of one host: read its stack, name its volumes, match them to the provider files, write the layouts.

Nothing here reads the kernel itself (devices.blockstack does) nor guesses: a disk's figures come from a provider
file entry whose key is the very ID, LUN or name the disk shows; a provider entry no disk shows is listed in
`unmatched_volumes`, and a disk whose size differs from its entry's is warned about.
"""

from __future__ import annotations

from pathlib import Path

from blockfit.catalog import Catalog, load_catalog
from blockfit.devices.blockstack import HostStack, read_stack
from blockfit.errors import InputError, ValueProblem
from blockfit.inventory.identity import dmi_instance_type, host_cloud
from blockfit.inventory.layouts import describe, tops
from blockfit.inventory.provider_files import ProviderFiles, ProviderVolume, read_files
from blockfit.inventory.stack import build_nodes
from blockfit.model import normalize_volume
from blockfit.schema import Instance, Volume
from blockfit.schema.inventory import BlockNode, Inventory, InventoryLayout, MountedFilesystem
from blockfit.specs import parse_instance

GIB = 1024 ** 3


class InstanceProblem(ValueProblem):
    """The instance given cannot be read on this host (the CLI names it --instance)."""


class CloudProblem(ValueProblem):
    """The cloud given disagrees with what the host shows (the CLI names it --cloud)."""


def to_volume(pv: ProviderVolume, cat: Catalog, warnings: list[str]) -> Volume:
    """A provider entry as the schema's Volume on CAT, checked by the model's own rules (InputError if not).

    Providers report figures a type is not provisioned by (AWS gp2's baseline as Iops, Azure premium-v1's tier
    figures): where the model refuses them and takes the volume without, they are left out and a warning says so."""
    if pv.type is None or pv.size_gb is None:
        raise InputError(f"{pv.source}: {pv.label}: no volume type or size")
    key = cat.aliases.get(pv.type.lower(), pv.type.lower())
    if key not in cat.volume_types:
        raise InputError(f"{pv.source}: {pv.label}: volume type {pv.type!r} is not in the {cat.cloud} catalog "
                         f"({', '.join(cat.volume_types)})")
    vol = Volume(cloud=cat.cloud, type=key, size_gb=pv.size_gb, vpu_per_gb=pv.vpu_per_gb,
                 provisioned_iops=pv.iops, provisioned_throughput=pv.throughput)
    try:
        return normalize_volume(cat, vol)
    except InputError as exc:
        bare = vol.model_copy(update={"provisioned_iops": None, "provisioned_throughput": None})
        if bare == vol:
            raise InputError(f"{pv.source}: {pv.label}: {exc}") from None
        try:
            taken = normalize_volume(cat, bare)
        except InputError:
            raise InputError(f"{pv.source}: {pv.label}: {exc}") from None
        warnings.append(f"{pv.label}: {pv.source.removeprefix('--volumes ')} gives IOPS {pv.iops} / throughput "
                        f"{pv.throughput}, which {key} is not provisioned by ({exc}); the size sets them")
        return taken


def _match(nodes: list[BlockNode], files: ProviderFiles, catalogs: dict[str, Catalog], warnings: list[str]) \
        -> list[str]:
    """Give each identified disk its provider entry; the entries no disk took."""
    taken: set[int] = set()
    for node in nodes:
        ident = node.identity
        if ident is None or ident.volume_id is None:
            continue
        for i, pv in enumerate(files.volumes):
            if pv.cloud == ident.cloud and ident.volume_id in pv.keys:
                cat = catalogs.setdefault(pv.cloud, load_catalog(pv.cloud))
                node.volume = to_volume(pv, cat, warnings)
                taken.add(i)
                shown = node.size_bytes / GIB
                if abs(shown - node.volume.size_gb) > 0.5:
                    warnings.append(f"{node.name} ({ident.volume_id}) is {shown:,.1f} GiB on the host but "
                                    f"{pv.size_gb:g} GB in {pv.source}: resized and not yet rescanned?")
                break
    return [f"{pv.label} ({pv.cloud}, {pv.source.removeprefix('--volumes ')})"
            for i, pv in enumerate(files.volumes) if i not in taken]


def _instance(stack: HostStack, spec: str | None, cloud: str | None, files: ProviderFiles,
              warnings: list[str]) -> tuple[Instance | None, str | None]:
    """--instance, else the type DMI names (AWS Nitro), else the one a provider file names (az vm show, gcloud
    compute instances describe); None when none says."""
    if spec:
        if cloud is None:
            raise InstanceProblem(f"{spec!r}: the host shows no cloud; give --cloud too")
        return parse_instance(spec, cloud), "--instance"
    name, why = dmi_instance_type(stack.dmi), "DMI product_name"
    if name is None and files.instance is not None and files.instance[0] == cloud:
        name, why = files.instance[1], f"{files.instance[2].removeprefix('--volumes ')} names"
    if name is None or cloud is None:
        return None, None
    try:
        return parse_instance(name, cloud, require_count=False), f"{why} {name!r}"
    except InputError as exc:
        warnings.append(f"{why} {name!r}: {exc}")
        return None, None


def _filesystems(stack: HostStack) -> list[MountedFilesystem]:
    return [MountedFilesystem(mount_point=f.mount_point, device=f.device, fstype=f.fstype,
                              options=list(dict.fromkeys(f.options)), barrier=f.barrier, noatime=f.noatime,
                              xfs_sunit_bytes=f.xfs_sunit_bytes, xfs_swidth_bytes=f.xfs_swidth_bytes,
                              size_bytes=f.size_bytes, used_bytes=f.used_bytes) for f in stack.filesystems]


def _cloud(nodes: list[BlockNode], stack: HostStack, given: str | None) -> tuple[str | None, list[str]]:
    """The host's cloud: what its disks and DMI say; --cloud only where they say nothing (never against them)."""
    seen = {n.identity.cloud for n in nodes if n.identity}
    dmi, why = host_cloud(stack.dmi)
    if dmi:
        seen.add(dmi)
    if len(seen) > 1:
        return None, [f"the disks and DMI name several clouds ({', '.join(sorted(seen))}); no cloud assumed"]
    shown = seen.pop() if seen else None
    if given and shown and given != shown:
        raise CloudProblem(f"{given}: the host shows {shown} ({why or 'its disks'})")
    return shown or given, []


def alignment_warnings(layouts: list[InventoryLayout], filesystems: list[MountedFilesystem]) -> list[str]:
    """An XFS whose stripe unit or width is not the stripe under it: its allocations straddle members."""
    by_mount = {f.mount_point: f for f in filesystems}
    out = []
    for lay in layouts:
        fs = by_mount.get(lay.mount_point or "")
        stripe = lay.layout.stripe_size if lay.layout else None
        if fs is None or lay.layout is None or stripe is None or lay.layout.members < 2 or fs.fstype != "xfs":
            continue
        width = stripe * lay.layout.members
        if (fs.xfs_sunit_bytes, fs.xfs_swidth_bytes) != (stripe, width):
            out.append(f"{fs.mount_point}: XFS sunit/swidth {fs.xfs_sunit_bytes}/{fs.xfs_swidth_bytes} bytes, the "
                       f"stripe under it {stripe}/{width} (su x {lay.layout.members}): mkfs.xfs -d su=,sw= did not "
                       "match it")
    return out


def inspect_host(root: Path, volume_files: list[Path], instance: str | None = None,
                 cloud: str | None = None) -> Inventory:
    """The Inventory of the host under ROOT ("/": this one) with what VOLUME_FILES say of its volumes."""
    files = read_files(volume_files)          # bad input fails before the host is read
    stack = read_stack(root)
    nodes = build_nodes(stack)
    host, warnings = _cloud(nodes, stack, cloud)
    catalogs: dict[str, Catalog] = {}
    unmatched = _match(nodes, files, catalogs, warnings)
    inst, inst_why = _instance(stack, instance, host, files, warnings)
    filesystems = _filesystems(stack)
    by_name = {n.name: n for n in nodes}
    layouts = [describe(top, fs, by_name, inst, catalogs) for top, fs in tops(nodes, filesystems)]
    warnings += alignment_warnings(layouts, filesystems)
    cat = catalogs.get(host) if host else None
    return Inventory(hostname=stack.hostname, cloud=host, instance=inst, instance_evidence=inst_why,
                     catalog_version=cat.version.isoformat() if cat else None, devices=nodes,
                     filesystems=filesystems, layouts=layouts, unmatched_volumes=unmatched,
                     source_files=[s.removeprefix("--volumes ") for s in files.sources], warnings=warnings)
