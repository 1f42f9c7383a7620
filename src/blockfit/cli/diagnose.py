"""`blockfit diagnose`: sample the block devices, then say where the latency comes from and what to change."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from blockfit import model, specs
from blockfit.cli import app, params
from blockfit.cli.common import catalog_for, supplied_by
from blockfit.cli.output import ReportOption, console, print_json, save_report
from blockfit.devices import capture as captures
from blockfit.devices import diskstats, iostat
from blockfit.diagnose import live, rules, sampler
from blockfit.errors import InputError
from blockfit.files import check_distinct, check_target
from blockfit.schema import Diagnosis, Prediction, Workload
from blockfit.terminal import cell
from blockfit.units import parse_duration


def _prediction(layout: str | None, cloud: str | None, instance: str | None) -> Prediction | None:
    """The catalog's caps for the named layout; checked before sampling so bad input fails at once."""
    if cloud is not None:
        catalog_for(cloud, None)  # a misspelt cloud is an error even without --layout
    if layout is None and instance is None:
        return None
    if cloud is None:
        raise InputError("--cloud: required with --layout/--instance (expected oci, aws, azure or gcp)")
    if layout is None or instance is None:
        raise InputError("--layout and --instance: give both to compare against the catalog")
    return model.predict(specs.parse_layout(layout, cloud), specs.parse_instance(instance, cloud), Workload())


def _expectation(pred: Prediction | None, label: str, members: list[str]) -> rules.Expectation | None:
    if pred is None:
        return None
    return rules.Expectation(source=label, member_iops=pred.member_iops, member_mbps=pred.member_mbps,
                             instance_iops=pred.instance_iops_cap, instance_mbps=pred.instance_mbps_cap,
                             members=members)


def _inventory_expectation(path: Path) -> rules.Expectation:
    """diagnose --inventory: each disk the inventory names as a cloud volume (with the provider file's figures)
    gets that volume's own caps, and the volumes together the instance's caps where the instance is known."""
    from blockfit.catalog import load_catalog
    from blockfit.documents import read_inventory
    from blockfit.model.instance import instance_caps
    from blockfit.model.limits import member_perf
    from blockfit.model.resolve import layout_spec, volume_type
    from blockfit.schema import Layout

    inv = read_inventory(path)
    caps: dict[str, rules.DeviceCaps] = {}
    inst_caps: tuple[float | None, float | None] = (None, None)
    for node in inv.devices:
        if node.volume is None:
            continue
        cat = load_catalog(node.volume.cloud)
        with _option(f"--inventory {path}: {node.name}:"):
            vt = volume_type(cat, node.volume)
            perf = member_perf(cat, vt, node.volume, 1)
        spec = layout_spec(cat, Layout(members=1, volume=node.volume))
        caps[node.name] = rules.DeviceCaps(iops=perf.iops, mbps=perf.mbps, what=f"{spec} volume (inventory)")
        if inv.instance is not None and inst_caps == (None, None):
            with _option(f"--inventory {path}: instance:"):
                ic = instance_caps(cat, inv.instance, node.volume.type)
            inst_caps = (ic.iops, ic.mbps)
    if not caps:
        raise InputError(f"--inventory {path}: names no device as a cloud volume with its figures (run "
                         "'blockfit inspect --volumes' with the provider's file); nothing to compare")
    instance = inv.instance.spec if inv.instance is not None else "instance unknown"
    return rules.Expectation(source=f"inventory: {instance}", instance_iops=inst_caps[0], instance_mbps=inst_caps[1],
                             members=sorted(caps), device_caps=caps)


@contextmanager
def _option(flag: str) -> Iterator[None]:
    """Name the option whose value the library refused (the library names only the value)."""
    try:
        yield
    except InputError as exc:
        raise InputError(f"{flag} {exc}") from None


@app.command()
def diagnose(
    interval: Annotated[str, typer.Option(help="sampling interval (e.g. 1s, 500ms)", callback=params.duration)] = "1s",
    duration: Annotated[str, typer.Option(help="how long to sample (e.g. 60s, 5m)", callback=params.duration)] = "60s",
    record: Annotated[Path | None, typer.Option(help="write the capture (JSONL) to this file")] = None,
    replay: Annotated[Path | None, typer.Option(help="diagnose a recorded capture instead of sampling")] = None,
    devices: Annotated[list[str] | None, typer.Option(
        help="kernel device names to sample (repeat or comma-separate); their stack is added",
        callback=params.comma_list)] = None,
    layout: Annotated[str | None, typer.Option(help="the layout in spec grammar, to compare with the catalog")] = None,
    cloud: Annotated[str | None, typer.Option(help="oci | aws | azure | gcp")] = None,
    instance: Annotated[str | None, typer.Option(help="instance spec SHAPE[:OCPUS][/OPTION]")] = None,
    members: Annotated[list[str] | None, typer.Option(
        help="devices the --layout caps apply to (default: members of striped devices, else top devices)",
        callback=params.comma_list)] = None,
    inventory: Annotated[Path | None, typer.Option(
        "--inventory", help="an inventory ('blockfit inspect --json'): compare each device it names as a cloud "
                            "volume with that volume's own caps, and their sum with the instance's")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the Diagnosis (findings) as JSON")] = False,
    report: ReportOption = None,
) -> None:
    """Sample /proc/diskstats, sysfs and the mount table; report flush storms, queue-depth limits and caps."""
    step = parse_duration(interval, "--interval")
    span = parse_duration(duration, "--duration")
    if step > span:
        raise InputError(f"--interval {interval}: expected no longer than --duration {duration}")
    _check_capture_options(record, replay, report)
    wanted = [d for item in devices or [] for d in item.split(",") if d]
    _check_expectation_options(layout, cloud, instance, members, inventory)
    pred = _prediction(layout, cloud, instance)
    by_inventory = None if inventory is None else _inventory_expectation(inventory)
    if replay is not None:
        capture, source = _replayed(replay, wanted), f"replay:{replay}"
    else:
        capture, source = _sampled(wanted, step, span, record, json_out), "live"
    member_names = _member_names(members, capture.header)
    expectation = by_inventory or _expectation(pred, f"catalog: {cloud} {layout} on {instance}", member_names)
    result = rules.diagnose(capture, expectation, source)
    save_report(result, report, iostat.series(capture))
    if json_out:
        print_json(result)
    else:
        _print_findings(result)


def _check_capture_options(record: Path | None, replay: Path | None, report: Path | None) -> None:
    """--record and --replay exclude each other, and no output file may be an input: refused before sampling."""
    if replay is not None and record is not None:
        raise InputError("--record: cannot be combined with --replay (the capture already exists)")
    if record is not None:
        check_target(record, "--record")
    check_distinct([("--record", record), ("--report", report)], [("--replay", replay)])


def _check_expectation_options(layout: str | None, cloud: str | None, instance: str | None,
                               members: list[str] | None, inventory: Path | None) -> None:
    """What the samples are compared with comes from --layout (with --members) or from --inventory, not both."""
    if members and layout is None:
        raise InputError("--members: only with --layout (the devices its caps apply to)")
    if inventory is not None:
        given = [n for n, v in (("--layout", layout), ("--instance", instance), ("--cloud", cloud),
                                ("--members", members)) if v]
        if given:
            raise InputError(f"{given[0]}: the inventory says what each device is (--inventory); give one or the "
                             "other")


def _replayed(replay: Path, wanted: list[str]) -> captures.Capture:
    """--replay FILE: the recorded capture, kept to the --devices asked for (and their stack)."""
    with _option("--replay"):
        capture = captures.load(replay)
    if wanted:
        with _option("--devices"):
            capture = captures.restrict(capture, wanted)
    return capture


def _sampled(wanted: list[str], step: float, span: float, record: Path | None, json_out: bool) -> captures.Capture:
    """A live capture of this host's devices (recorded to --record as it goes), shown as it runs unless --json;
    fewer than two samples (Ctrl-C at once) leave nothing to diagnose."""
    with _option("--devices"):
        captures.select_devices(wanted or None, diskstats.read_raw())
    view = None if json_out else live.LiveView(console)
    if view is not None:
        console.print(f"sampling every {step:g}s for {span:g}s (Ctrl-C stops early)")
    with supplied_by("--duration"):   # more samples than a recording holds
        capture = sampler.run_live(wanted or None, step, span, record, view)
    if len(capture.samples) < 2:
        raise InputError("--duration: stopped before two samples were taken; nothing to diagnose")
    return capture


def _member_names(members: list[str] | None, hdr: captures.CaptureHeader) -> list[str]:
    """The devices --layout's caps apply to: --members, else the members of striped devices, else the top devices
    (no holder, not a partition)."""
    names = members or [s for d in hdr.devices.values() if len(d.slaves) >= 2 for s in d.slaves] or [
        d.name for d in hdr.devices.values() if not d.holders and d.kind != "partition"]
    return [m for item in names for m in item.split(",")]


def _print_findings(result: Diagnosis) -> None:
    """The findings as a table, or one line saying there are none."""
    if not result.findings:
        console.print("No findings: nothing in these samples points at a flush storm, a queue-depth limit or a cap.")
    else:
        table = live.findings_table(result)
        table.title = cell(table.title)   # it names the --replay path: shown as written, never as markup
        console.print(table, markup=False)  # the cells are names and words from the capture
