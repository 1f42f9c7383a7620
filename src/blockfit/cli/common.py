"""Option parsing shared by several commands (cloud + catalog version, I/O sizes, latency bounds)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

from blockfit.catalog import CATALOG_SPEC_HELP, Catalog, resolve_catalog
from blockfit.errors import InputError, ValueProblem
from blockfit.schema import Layout
from blockfit.schema.clouds import CLOUD_NAMES
from blockfit.units import parse_duration, parse_io_size, parse_list


@contextmanager
def supplied_by(option: str, only: type[ValueProblem] = ValueProblem) -> Iterator[None]:
    """Name OPTION in a library's ValueProblem raised inside: the CLI is the one place that knows which option
    carried the value. A problem already named (an inner `supplied_by`) and every other error pass unchanged.
    ONLY narrows it to one kind of problem, for a call that takes several values and is found out mid-run (a
    fleet's selector, an import's region)."""
    try:
        yield
    except only as exc:
        if exc.option is not None:
            raise
        raise ValueProblem(exc.bare, option) from None


CLOUD_HELP = f"cloud: {', '.join(CLOUD_NAMES)} (default oci, or the cloud of a --catalog file)"
CATALOG_HELP = CATALOG_SPEC_HELP


def catalog_for(cloud: str | None, catalog: str | None, what: str = "--cloud") -> Catalog:
    """The catalog a command works with: --catalog DATE (the shipped version in force) or --catalog PATH (a file
    `catalog import` wrote, whose cloud --cloud must match or leave out); cloud None = the file's, else oci."""
    cloud = cloud.strip().lower() if cloud is not None else None   # 'AWS' as 'R7I.4XLARGE' and 'GP3' are taken
    if cloud is not None and cloud not in CLOUD_NAMES:
        raise InputError(f"{what} {cloud!r}: expected one of {', '.join(CLOUD_NAMES)}")
    return resolve_catalog(cloud, catalog)


def io_size(text: str, option: str) -> int:
    return parse_io_size(text, what=option)


def latency_ms(text: str | None, option: str = "--max-latency") -> float | None:
    """'20ms', '20' (ms), '0.02s' → milliseconds."""
    if text is None:
        return None
    stripped = text.strip()
    if stripped.replace(".", "", 1).isdigit():
        value = float(stripped)
        if value <= 0:
            raise InputError(f"{option} {text!r}: expected a positive latency, e.g. 20ms")
        return value
    return parse_duration(text, what=option) * 1000


def positive_int(value: int | None, option: str) -> int | None:
    if value is not None and value < 1:
        raise InputError(f"{option} {value}: expected a whole number of at least 1")
    return value


def comma_list(text: str | None, option: str) -> list[str] | None:
    """'a,b' → ['a', 'b']; None stays None. One rule with the options' own check (units.parse_list): ',' or 'a,,b'
    is a mistake, not 'no filter'."""
    return None if text is None else parse_list(text, option)


def percent(text: str, option: str, *, lo: float = 0.0, hi: float = math.inf) -> float:
    """'30%' or '30' → 30.0, finite and within [lo, hi]."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise InputError(f"{option} {text!r}: expected a percentage such as 30%") from None
    if not math.isfinite(value) or not lo <= value <= hi:
        bound = f"from {lo:g} to {hi:g}" if math.isfinite(hi) else f"of at least {lo:g}"
        raise InputError(f"{option} {text!r}: expected a percentage {bound}")
    return value


ATTACHMENTS = ("iscsi", "paravirtualized")
ATTACHMENT_HELP = "volume attachment type (OCI): iscsi or paravirtualized; default: the catalog's default"
PATHS_HELP = ("paths per volume that carry I/O (iSCSI sessions dm-multipath spreads over); default: as many as the "
              "volume's caps need where the shape gets multipath-enabled attachments, else 1 (what build sets up)")
QUEUE_DEPTH_HELP = ("iSCSI node.session.queue_depth (I/Os one session runs at once); default: 128, what blockfit build "
                    "sets (the kernel default 32's figure is shown in a note)")
READ_PCT_HELP = "share of I/Os that are reads, 0-100 (the instance network caps each direction separately)"


# the option that carries each field the model's attachment checks are about
ATTACHMENT_OPTION_OF = {"attachment,paths": "--attachment/--paths", "attachment": "--attachment", "paths": "--paths"}


def check_attachment_options(cat: Catalog, layout: Layout) -> None:
    """The model's checks of the attachment and paths a layout names, each under the option that gave the value,
    before a prediction (which runs them again, unnamed)."""
    from blockfit.model.attachment import attachment_checks
    from blockfit.model.resolve import volume_type

    vt = volume_type(cat, layout.volume)
    for fields, check in attachment_checks(cat, vt, layout.attachment, layout.paths).items():
        with supplied_by(ATTACHMENT_OPTION_OF[fields]):
            check()


def attachment(value: str | None) -> str | None:
    if value is not None and value not in ATTACHMENTS:
        raise InputError(f"--attachment {value!r}: expected {' or '.join(ATTACHMENTS)}")
    return value


HOST_CACHING = ("readonly", "none")
HOST_CACHING_HELP = ("Azure host caching of the layout's disks: readonly (Premium SSD under 4 TiB; every read taken as "
                     "a cache hit, against the VM's cached limits) or none (default)")


def host_caching(value: str | None) -> str | None:
    if value is not None and value not in HOST_CACHING:
        raise InputError(f"--host-caching {value!r}: expected {' or '.join(HOST_CACHING)}")
    return value


# ---- plan cost options; small on purpose: the `hardening` branch centralises numeric parsing ----
REDUNDANCY_HELP = ("mirroring: none, normal or high (ASM: writes x2/x3, capacity /2 or /3) or raid10 (mdadm: "
                   "writes x2, capacity /2)")
MEMORY_HELP = "memory to price the compute at, e.g. 64G; default: the shape's minimum (OCI: 1 GB per OCPU)"
REDUNDANCY_MANAGER = {"normal": "asm", "high": "asm", "raid10": "mdadm"}


def positive_target(value: float | None, option: str) -> float | None:
    """A target figure: finite and above zero (NaN, inf, 0 and negatives are refused)."""
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise InputError(f"{option} {value:g}: expected a positive finite number")
    return value


def redundancy_option(value: str, manager: str | None) -> tuple[str, str]:
    """(redundancy, manager): normal/high need ASM, raid10 mdadm; the manager follows when not given."""
    if value not in ("none", "normal", "high", "raid10"):
        raise InputError(f"--redundancy {value!r}: expected none, normal, high (ASM) or raid10 (mdadm)")
    needed = REDUNDANCY_MANAGER.get(value)
    if needed is None:
        return value, manager or "lvm"
    if manager is not None and manager != needed:
        raise InputError(f"--redundancy {value}: needs --manager {needed} (got {manager})")
    return value, needed


def memory_gb(text: str | None, option: str = "--memory") -> float | None:
    from blockfit.units import parse_volume_gb
    return None if text is None else parse_volume_gb(text, option)


def ocpu_range(text: str | None, option: str = "--ocpus") -> tuple[float | None, float | None]:
    """'8-24' → (8, 24); '8-' or '-24' leave one side open; whole counts, min <= max."""
    if text is None:
        return None, None
    lo_text, sep, hi_text = text.strip().partition("-")
    lo, hi = _open_or_count(lo_text), _open_or_count(hi_text)
    if not sep or (lo is None and hi is None) or any(v is not None and math.isnan(v) for v in (lo, hi)):
        raise InputError(f"{option} {text!r}: expected MIN-MAX whole OCPU counts of at least 1, e.g. 8-24")
    if lo is not None and hi is not None and lo > hi:
        raise InputError(f"{option} {text!r}: expected MIN <= MAX")
    return lo, hi


def _open_or_count(text: str) -> float | None:
    """One side of MIN-MAX: None where it is left open, NaN where it is no whole count of at least 1."""
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value if math.isfinite(value) and value >= 1 and value.is_integer() else math.nan


# ---- merged options (one vocabulary across commands); their old spellings are hidden, see params ----
CAPACITY_HELP = "usable capacity needed, e.g. 4.5T or 800G, with growth headroom after a +, e.g. 4.5T+20%"
CPUS_HELP = ("compute to search, in the unit the cloud sells (OCI: OCPUs, 1 OCPU = 2 vCPUs on x86 and 1 on Arm A1; "
             "elsewhere vCPUs): N (at least N; licence-bound cores) or MIN-MAX, e.g. 8-24 (with a search or SHAPE "
             "without :COUNT)")
FLEET_CPUS_HELP = ("compute to search for every host, in the unit the cloud sells (OCI: OCPUs, elsewhere vCPUs): N (at "
                   "least N) or MIN-MAX, e.g. 8-24")
PLAN_MEMORY_HELP = ("memory the database needs, e.g. 256G: a flexible shape's compute is priced with it (default the "
                    "shape's minimum, OCI: 1 GB per OCPU); a search keeps machines with at least that much")


def capacity_growth(text: str, option: str = "--capacity") -> tuple[str, float | None]:
    """'4.5T+20%' -> ('4.5T', 20.0); '4.5T' -> ('4.5T', None): the capacity and its growth headroom (0 to 1000 %)."""
    from blockfit.units import parse_percent, parse_volume_gb

    size, plus, growth = text.partition("+")
    parse_volume_gb(size, option)
    if not plus:
        return size, None
    if not growth.strip():
        raise InputError(f"{option} {text!r}: expected SIZE+GROWTH, e.g. 4.5T+20%")
    return size, parse_percent(growth, option, maximum=1000, factor_like=True)


def cpu_floor_or_range(text: str, option: str = "--cpus") -> tuple[int | None, str | None]:
    """'16' -> (16, None), a floor; '8-24', '8-', '-24' -> (None, '8-24'), a range (ocpu_range's grammar)."""
    stripped = text.strip()
    if "-" in stripped:
        ocpu_range(stripped, option)
        return None, stripped
    if not stripped.isascii() or not stripped.isdigit() or len(stripped) > 7 or int(stripped) < 1:
        raise InputError(f"{option} {text!r}: expected N or MIN-MAX whole counts of at least 1, e.g. 16 or 8-24")
    return int(stripped), None
