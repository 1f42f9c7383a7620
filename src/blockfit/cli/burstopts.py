"""`--cloud`, `--layout`, `--instance` for the commands that measure (calibrate, bench): the cloud layout a
measurement ran on, so the result can say whether its windows fell inside that layout's burst. One place, so
both commands take and check the trio the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from blockfit.errors import InputError

if TYPE_CHECKING:
    from blockfit.schema import Prediction

CloudOption = Annotated[str | None, typer.Option("--cloud", help="with --layout and --instance: the cloud layout "
                                                 "measured, to say whether the windows fell inside its burst")]
LayoutOption = Annotated[str | None, typer.Option("--layout", help="the layout measured (spec grammar)")]
InstanceOption = Annotated[str | None, typer.Option("--instance", help="the instance it is attached to, "
                                                         "SHAPE[:COUNT][/OPTION]")]


def given(cloud: str | None, layout: str | None, instance: str | None) -> bool:
    """All three given (True) or none (False); one of them alone is an input error."""
    trio = {"--cloud": cloud, "--layout": layout, "--instance": instance}
    for name, value in trio.items():
        if value is not None and not value.strip():
            raise InputError(f"{name} {value!r}: expected a value, e.g. --cloud aws --layout 1x400G@gp3 "
                             "--instance m6a.xlarge")
    missing = [k for k, v in trio.items() if v is None]
    if len(missing) == len(trio):
        return False
    if missing:
        raise InputError(f"{', '.join(missing)}: expected --cloud, --layout and --instance together")
    return True


def measured_layout(cloud: str | None, layout: str | None, instance: str | None) -> Prediction | None:
    """The prediction whose burst a measurement is judged against; None when the trio is not given."""
    if not given(cloud, layout, instance):
        return None
    assert cloud and layout and instance
    from blockfit.cli.common import catalog_for
    from blockfit.model import predict
    from blockfit.specs import parse_instance, parse_layout

    cat = catalog_for(cloud, None)
    return predict(parse_layout(layout, cat.cloud, cat), parse_instance(instance, cat.cloud, cat), catalog=cat,
                   with_curve=False)
