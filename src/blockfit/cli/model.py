"""`blockfit model`: what can this layout deliver on this instance, which limit binds, what does it cost."""

# Annotations here are objects, not strings (no `from __future__ import annotations`): typer reads the command's
# signature several times a run and would evaluate all 20 option annotations again each time (2% of `model`).
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blockfit.catalog import Catalog
from blockfit.cli import app, params
from blockfit.cli.common import (
    ATTACHMENT_HELP,
    CATALOG_HELP,
    CLOUD_HELP,
    HOST_CACHING_HELP,
    MEMORY_HELP,
    PATHS_HELP,
    QUEUE_DEPTH_HELP,
    READ_PCT_HELP,
    REDUNDANCY_HELP,
    attachment,
    catalog_for,
    check_attachment_options,
    host_caching,
    io_size,
    latency_ms,
    memory_gb,
    positive_int,
    redundancy_option,
    supplied_by,
)
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.files import check_distinct
from blockfit.model import predict
from blockfit.schema import Instance, Layout, Workload
from blockfit.specs import (
    INSTANCE_OPTION_HELP,
    LAYOUT_HELP,
    parse_instance,
    parse_layout,
    with_instance_options,
)
from blockfit.units import parse_io_size

if TYPE_CHECKING:
    from blockfit.inventory.inventory_file import LayoutOptions


@app.command("model")
def model_command(
    ctx: typer.Context,
    cloud: Annotated[str | None, typer.Option(help=CLOUD_HELP)] = None,
    layout: Annotated[str, typer.Option(help=f"layout spec: {LAYOUT_HELP}")] = "1x1T@balanced",
    instance: Annotated[str, typer.Option(help="SHAPE[:COUNT][/OPTION] (COUNT: OCPUs on OCI, else vCPUs), e.g. "
                                               "VM.Standard.E3.Flex:12, m5.12xlarge or "
                                               f"Standard_E8s_v5/nvme; {INSTANCE_OPTION_HELP}")] = "",
    io_sizes: Annotated[str | None, typer.Option(help=f"{params.IO_SIZES_HELP}: max IOPS at SMALL, max MB/s at LARGE",
                                                 callback=params.io_sizes)] = None,
    queue_depth: Annotated[int | None, typer.Option(
        help=f"{QUEUE_DEPTH_HELP}; on other attachments the per-volume host queue depth (default: none)",
        **params.NUMBER, callback=params.count)] = None,
    outstanding: Annotated[int | None, typer.Option(help="total outstanding I/Os the workload keeps in flight",
                                                         **params.NUMBER, callback=params.count)] = None,
    max_latency: Annotated[str | None, typer.Option(help="also answer: max IOPS at mean latency <= this (e.g. 2ms)",
                                                           callback=params.latency)]
    = None,
    stripe_size: Annotated[str | None, typer.Option(help="stripe size (LVM -I), e.g. 4m; for warnings only",
                                                           callback=params.io_size)] = None,
    attach: Annotated[str | None, typer.Option("--attachment", help=ATTACHMENT_HELP)] = None,
    paths: Annotated[int | None, typer.Option(help=PATHS_HELP, **params.NUMBER, callback=params.count)] = None,
    read_pct: Annotated[float | None, typer.Option(help=READ_PCT_HELP, **params.PERCENT,
                                                   callback=params.percent)] = None,
    redundancy: Annotated[str, typer.Option(help=REDUNDANCY_HELP)] = "none",
    caching: Annotated[str | None, typer.Option("--host-caching", help=HOST_CACHING_HELP)] = None,
    memory: Annotated[str | None, typer.Option(help=MEMORY_HELP, callback=params.volume_size)] = None,
    catalog: Annotated[str | None, typer.Option(help=CATALOG_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the Prediction as JSON")] = False,
    report: ReportOption = None,
    inventory: Annotated[Path | None, typer.Option(
        "--inventory", metavar="FILE", help="model what an inventory (blockfit inspect --json) says is attached, in "
                                            "place of --layout and --instance")] = None,
    mount: Annotated[str | None, typer.Option("--mount", metavar="MOUNT_POINT",
                                              help="with --inventory: the layout under this mount point (or on this "
                                                   "device); needed when the inventory has several")] = None,
    # the old spellings, still taken (hidden), each saying its new spelling once
    small_io: Annotated[str | None, typer.Option(hidden=True, callback=params.io_size)] = None,
    large_io: Annotated[str | None, typer.Option(hidden=True, callback=params.io_size)] = None,
    interface: Annotated[str | None, typer.Option(hidden=True)] = None,
    ebs_weighting: Annotated[str | None, typer.Option(hidden=True)] = None,
) -> None:
    """Predict max IOPS and MB/s of a layout on an instance, name the binding limit, price it."""
    check_distinct([("--report", report)], [("--inventory", inventory)])
    if inventory is not None:
        given = _given_options(ctx)
        found = from_inventory(inventory, mount, given)
        cloud, layout, instance = found.cloud, found.layout, instance or found.instance or ""
        stripe_size, attach, paths, redundancy, queue_depth = _with_inventory_defaults(
            found, given, stripe_size, attach, paths, redundancy, queue_depth)
    elif mount is not None:
        from blockfit.errors import InputError
        raise InputError("--mount: only with --inventory (the mount point of the layout it names)")
    renamed = params.Renamed()
    small, large = renamed.io_sizes(io_sizes, small_io, large_io)
    interface = renamed.pick("--instance SHAPE/OPTION", None, "--interface", interface, f"--instance SHAPE/{interface}")
    ebs_weighting = renamed.pick("--instance SHAPE/OPTION", None, "--ebs-weighting", ebs_weighting,
                                 f"--instance SHAPE/{ebs_weighting}")
    cat = catalog_for(cloud, catalog)
    cloud = cat.cloud
    if not instance:
        from blockfit.errors import InputError
        from blockfit.specs import instance_expected
        raise InputError(f"--instance: {instance_expected(cat.cloud)}")
    stripe = parse_io_size(stripe_size, "--stripe-size") if stripe_size else None
    lay = parse_layout(layout, cloud, cat, stripe_size=stripe)
    mirror, manager = redundancy_option(redundancy, None)   # normal/high: ASM, raid10: mdadm
    lay = lay.model_copy(update={"attachment": attachment(attach), "paths": positive_int(paths, "--paths"),
                                 "redundancy": mirror, "manager": manager if mirror != "none" else lay.manager,
                                 "host_caching": host_caching(caching)})
    inst = with_instance_options(parse_instance(instance, cloud, cat), interface, ebs_weighting)
    named = renamed.io_size_options(io_sizes)
    wl = Workload(small_io=io_size(small, named[0]), large_io=io_size(large, named[1]),
                  host_queue_depth=positive_int(queue_depth, "--queue-depth"),
                  outstanding=positive_int(outstanding, "--outstanding"),
                  read_pct=100.0 if read_pct is None else read_pct)
    memory_given = memory_gb(memory)
    check_model_options(cat, lay, inst, memory_given)
    pred = predict(lay, inst, wl, cat, latency_bound_ms=latency_ms(max_latency), memory_gb=memory_given)
    renamed.warn()
    save_report(pred, report)
    if json_out:
        print_json(pred)
    else:
        from blockfit.views.model import render_prediction  # only for people: --json never imports rich's tables

        render_prediction(pred, console)


def _given_options(ctx: typer.Context) -> dict[str, bool]:
    """Which of the options an inventory also says were typed (not left at their default): a typed one is refused
    or wins over the inventory's, per option."""
    return {name: getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"   # typer's own click
            for name in ("layout", "instance", "cloud", "stripe_size", "attach", "paths", "redundancy")}


def _with_inventory_defaults(found: "LayoutOptions", given: dict[str, bool], stripe_size: str | None,
                             attach: str | None, paths: int | None, redundancy: str, queue_depth: int | None) \
        -> tuple[str | None, str | None, int | None, str, int | None]:
    """--stripe-size, --attachment, --paths, --redundancy and --queue-depth: each as typed, else as the inventory's
    layout has it."""
    return (stripe_size if given["stripe_size"] else (str(found.stripe_size) if found.stripe_size else None),
            attach if given["attach"] else found.attachment,
            paths if given["paths"] else found.paths,
            redundancy if given["redundancy"] else found.redundancy,
            queue_depth if queue_depth is not None else found.queue_depth)


def from_inventory(path: Path, mount: str | None, given: dict[str, bool]) -> "LayoutOptions":
    """The --layout, --instance and attachment options an inventory's layout amounts to; --layout or --cloud beside
    --inventory is refused (the inventory says them), --instance only where the inventory names no instance."""
    from blockfit.errors import InputError
    from blockfit.inputs import user_path
    from blockfit.inventory.inventory_file import layout_at, layout_options, read_inventory

    for name in ("layout", "cloud"):
        if given[name]:
            raise InputError(f"--{name}: not with --inventory (the inventory's layout says it)")
    inv = read_inventory(user_path(str(path), "--inventory"))
    found = layout_options(inv, layout_at(inv, mount), f"--inventory {path}")
    if given["instance"] and found.instance is not None:
        raise InputError(f"--instance: the inventory names the instance ({found.instance}); drop --instance")
    if found.instance is None and not given["instance"]:
        raise InputError("--inventory: it names no instance (the host's DMI did not); give --instance SHAPE")
    return found


def check_model_options(cat: Catalog, lay: Layout, inst: Instance, memory: float | None) -> None:
    """The model's checks of values the prediction takes from options, each named by its option."""
    from blockfit.model.compute import check_memory_option
    from blockfit.model.host_cache import check_host_caching
    from blockfit.model.instance import check_instance_options, find_shape
    from blockfit.model.resolve import volume_type

    shape = find_shape(cat, inst.shape)
    if shape.kind == "fixed":   # the options a fixed shape's caps depend on
        with supplied_by("--instance"):
            check_instance_options(shape, inst.interface, inst.ebs_weighting)
    check_attachment_options(cat, lay)
    with supplied_by("--host-caching"):
        check_host_caching(cat, volume_type(cat, lay.volume), lay)
    with supplied_by("--memory"):
        check_memory_option(cat, inst.shape, inst.count, memory)
