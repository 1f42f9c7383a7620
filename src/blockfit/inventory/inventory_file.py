"""An inventory file (`blockfit inspect --json` or `--out`) read back by the commands that take `--inventory`, and
the one layout of it a command works on.

The file is untrusted like any user file: read through inputs (capped, depth-bounded, `kind: inventory` checked,
validated by the schema). Its layout is never taken as written: a command reads the entry's spec and instance
spec through the spec grammar again (`layout_options`), exactly as if they had been typed.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from blockfit import documents
from blockfit.errors import InputError
from blockfit.schema.inventory import Inventory, InventoryLayout

EXPECTED = "the --json output of blockfit inspect"


def read_inventory(path: Path, what: str = "--inventory") -> Inventory:
    """The Inventory in PATH; any problem is one InputError naming WHAT and the file."""
    return documents.read_inventory(path, f"{what} {path}")


def _named(lay: InventoryLayout) -> str:
    return lay.mount_point or f"{lay.device} (not mounted)"


def layout_at(inv: Inventory, mount: str | None, where: str = "--inventory", option: str = "--mount") \
        -> InventoryLayout:
    """The layout under mount point MOUNT (or on device MOUNT); without MOUNT, the only layout with a spec."""
    found = _only_with_spec(inv, where, option) if mount is None else _layout_under(inv, mount, where, option)
    if found.spec is None or found.layout is None:
        why = "; ".join(found.unknown) or "no spec"
        raise InputError(f"{where}: the layout under {_named(found)} has no spec ({why})")
    return found


def _layout_under(inv: Inventory, mount: str, where: str, option: str) -> InventoryLayout:
    """The layout whose mount point or device is MOUNT; refused with the names the inventory has."""
    found = next((lay for lay in inv.layouts if mount in (lay.mount_point, lay.device)), None)
    if found is None:
        names = ", ".join(_named(lay) for lay in inv.layouts) or "none"
        raise InputError(f"{option} {mount!r}: {where} has no layout there; it has: {names}")
    return found


def _only_with_spec(inv: Inventory, where: str, option: str) -> InventoryLayout:
    """Without a mount point, the inventory's one layout with a spec; none or several is refused, saying why none
    has one or which to name."""
    with_spec = [lay for lay in inv.layouts if lay.spec is not None]
    if len(with_spec) == 1:
        return with_spec[0]
    if not with_spec:
        why = "; ".join(f"{_named(lay)}: {', '.join(lay.unknown) or 'no spec'}" for lay in inv.layouts)
        raise InputError(f"{where}: no layout has a spec ({why or 'it lists none'})")
    names = ", ".join(_named(lay) for lay in with_spec) or "none"
    raise InputError(f"{where}: {len(with_spec)} layouts have a spec ({names}); give {option} MOUNT_POINT")


class LayoutOptions(BaseModel):
    """An inventory layout as the options `model --layout` takes: what was found, spelled as if typed."""

    cloud: str
    layout: str
    instance: str | None
    stripe_size: int | None
    attachment: str | None
    paths: int | None
    redundancy: str
    queue_depth: int | None


def layout_options(inv: Inventory, lay: InventoryLayout, where: str = "--inventory") -> LayoutOptions:
    """LAY as options, its spec and instance read through the spec grammar here, so a file's bad spec is named as
    the file's (one line), not as an option the user never typed."""
    from blockfit.specs import parse_instance, parse_layout

    assert lay.layout is not None and lay.spec is not None
    inst = lay.instance or inv.instance
    spec = None
    if inst is not None:
        spec = inst.spec + "".join(f"/{o}" for o in (inst.interface, inst.ebs_weighting) if o)
    cloud = lay.layout.volume.cloud
    try:
        parse_layout(lay.spec, cloud)
        if spec is not None:
            parse_instance(spec, cloud)
    except InputError as exc:
        raise InputError(f"{where}: the layout under {_named(lay)}: {exc}") from None
    return LayoutOptions(cloud=cloud, layout=lay.spec, instance=spec,
                         stripe_size=lay.layout.stripe_size, attachment=lay.layout.attachment,
                         paths=lay.layout.paths, redundancy=lay.layout.redundancy, queue_depth=lay.host_queue_depth)
