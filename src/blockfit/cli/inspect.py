"""`blockfit inspect`: read this host's block stack and say which cloud volume each disk is."""

# Annotations here are objects, not strings: typer reads the command's signature (see cli/model.py).
from pathlib import Path
from typing import Annotated

import typer

from blockfit.cli import app
from blockfit.cli.output import console, print_json
from blockfit.errors import InputError

ROOT_HELP = "read a copy of another host's /sys, /proc and /dev instead of this host's (a directory holding them)"
VOLUMES_HELP = ("the provider CLI's JSON of the volumes (repeatable): aws ec2 describe-volumes, az vm show and az disk "
                "list, gcloud compute disks list and instances describe (--format=json), oci bv volume list and oci "
                "compute volume-attachment list")


@app.command("inspect")
def inspect_command(
    volumes: Annotated[list[Path] | None, typer.Option("--volumes", metavar="FILE", help=VOLUMES_HELP)] = None,
    instance: Annotated[str | None, typer.Option(help="the instance, SHAPE[:COUNT][/OPTION], where DMI does not "
                                                      "name it (only AWS Nitro does)")] = None,
    cloud: Annotated[str | None, typer.Option(help="the cloud (oci, aws, azure or gcp), only where the host shows "
                                                   "none; refused when it shows another")] = None,
    root: Annotated[Path, typer.Option(help=ROOT_HELP, metavar="DIR")] = Path("/"),
    json_out: Annotated[bool, typer.Option("--json", help="print the Inventory as JSON")] = False,
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE", help="also write the Inventory (JSON) to "
                                                                           "this file")] = None,
) -> None:
    """Read this host's block stack and say which cloud volume each disk is, with each layout's figures."""
    from blockfit.cli.common import supplied_by
    from blockfit.files import check_distinct, check_target, write_atomically
    from blockfit.inputs import user_path
    from blockfit.inventory.inspect import CloudProblem, InstanceProblem, inspect_host

    if cloud is not None:
        from blockfit.cli.common import catalog_for
        cloud = catalog_for(cloud, None).cloud
    given = [user_path(str(v), "--volumes") for v in volumes or []]
    try:
        is_dir = root.is_dir()
    except (OSError, ValueError):   # a name too long for the filesystem, a NUL
        is_dir = False
    if not is_dir:
        raise InputError(f"--root {str(root)!r}: expected a directory holding a copy of a host's sys, proc and dev")
    if out is not None:
        check_target(out, "--out")
    check_distinct([("--out", out)], [("--volumes", v) for v in given])
    with supplied_by("--instance", only=InstanceProblem), supplied_by("--cloud", only=CloudProblem):
        inv = inspect_host(root, given, instance, cloud)
    if out is not None:
        write_atomically(out, inv.model_dump_json(indent=2) + "\n", what="--out")
    if json_out:
        print_json(inv)
    else:
        from blockfit.views.inventory import render_inventory
        render_inventory(inv, console)
