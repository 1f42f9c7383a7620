"""The shared bash preamble every device-touching script starts with, and the jinja environment.

The preamble (templates/preamble.sh.j2) gives each script: `set -euo pipefail`; --dry-run (print every
command that would change something, change nothing); --force-device DEV; a timestamped step log;
check_device (exists, block device, neither it nor a partition mounted, swap or held — i.e. not an active
PV / md member / multipath path — and no signature by `blkid -p` and `wipefs --no-act`; read from /proc and /sys
by bash itself, so a device costs three processes: under the lab's emulator each costs a quarter second);
markers for completed steps; and DM_DISABLE_UDEV=1 / MDADM_NO_UDEV=1 when udevd is not running. Globs are
refused; devices are always named one by one.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2

from blockfit import __version__
from blockfit.emit.escape import FILTERS, shell_word
from blockfit.errors import InputError
from blockfit.schema import BuildStep

# What every device-touching script checks (the preamble's check_device, run and write_file), in plain words
# for the BuildResult and the report; each emitter adds the checks of its own step (BuildContext.checks).
COMMON_CHECKS = [
    "Every device is named one by one (no patterns) and must exist and be a block device.",
    "A device that is mounted or used as swap (or a partition of it is), or is held by LVM, md, multipath or "
    "another device-mapper device is refused, even with --force-device.",
    "A device that carries a filesystem, an LVM, md RAID or ASM label or a partition table is refused unless "
    "--force-device names it; only such a forced device is wiped, right before it is used.",
    "With --dry-run every command that would change something is printed and nothing is changed.",
    "Every system file a script changes is first copied beside itself with a timestamp, then replaced in one step.",
    "A step that is already done is verified and left as it is: rerunning a script changes nothing.",
]

_DEVICE_RE = re.compile(r"/dev/[A-Za-z0-9._/+:-]+", re.ASCII)

_env = jinja2.Environment(
    loader=jinja2.PackageLoader("blockfit.emit", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
    # bash uses ${#array[@]}: move jinja comments out of its way
    comment_start_string="<#--",
    comment_end_string="--#>",
)
_env.filters.update(FILTERS)
shell_quote = shell_word  # the name other modules knew


def check_device_path(dev: str, what: str = "--devices") -> str:
    """A device path as the scripts accept it: absolute under /dev, no glob, no spaces or commas."""
    if any(c in dev for c in "*?[]"):
        raise InputError(f"{what} {dev!r}: globs are not accepted; name every device (e.g. /dev/sdc,/dev/sdd)")
    if not _DEVICE_RE.fullmatch(dev) or "/../" in dev or dev.endswith("/.."):
        raise InputError(f"{what} {dev!r}: expected an absolute device path under /dev (e.g. /dev/sdc)")
    return dev


def render_template(name: str, **context: Any) -> str:
    return _env.get_template(name).render(version=__version__, **context)


def render_script(body_template: str, step: BuildStep, source: str,
                  env_doc: list[tuple[str, str]] | None = None, **context: Any) -> str:
    """Preamble (safety functions, flags, logging) followed by the step's own body."""
    head = render_template("preamble.sh.j2", step=step, source=source, env_doc=env_doc or [])
    body = render_template(body_template, step=step, source=source, **context)
    return head + "\n# ---------------------------------------------------------------- step\n" + body
