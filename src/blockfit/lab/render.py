"""The one jinja2 environment over lab/templates/: the guest's init (initramfs.py) and the scripts it runs (run.py,
bench.py). fio's job files are not templated here: measure.fio_job writes every fio job."""

from __future__ import annotations

import jinja2

TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("blockfit.lab", "templates"), keep_trailing_newline=True,
                               undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render(template: str, **values: object) -> str:
    return TEMPLATES.get_template(template).render(**values)
