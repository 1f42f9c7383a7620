"""Option parsing shared by several commands (cloud + catalog version, I/O sizes, latency bounds)."""

from __future__ import annotations

import math

from blockfit.catalog import CLOUDS, Catalog, load_catalog, parse_catalog_date
from blockfit.errors import InputError
from blockfit.units import parse_duration, parse_io_size

CLOUD_HELP = f"cloud: {', '.join(CLOUDS)}"
CATALOG_HELP = "catalog version in force on this date (YYYY-MM-DD); default the newest"


def catalog_for(cloud: str, catalog_date: str | None, what: str = "--cloud") -> Catalog:
    if cloud not in CLOUDS:
        raise InputError(f"{what} {cloud!r}: expected one of {', '.join(CLOUDS)}")
    return load_catalog(cloud, parse_catalog_date(catalog_date))


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
    """'a,b' → ['a', 'b']; None stays None; a list with no item (',' or '') is an error, not 'no filter'."""
    if text is None:
        return None
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise InputError(f"{option} {text!r}: expected a comma-separated list with at least one item")
    return items


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
PATHS_HELP = "paths per volume that carry I/O (iSCSI sessions dm-multipath spreads over); default: the attachment's"
READ_PCT_HELP = "share of I/Os that are reads, 0-100 (the instance network caps each direction separately)"


def attachment(value: str | None) -> str | None:
    if value is not None and value not in ATTACHMENTS:
        raise InputError(f"--attachment {value!r}: expected {' or '.join(ATTACHMENTS)}")
    return value


def read_fraction(pct: float | None) -> float:
    """--read-pct 0-100 → the Workload's read_fraction (default: all reads)."""
    if pct is None:
        return 1.0
    if not 0 <= pct <= 100:
        raise InputError(f"--read-pct {pct:g}: expected a percentage from 0 to 100")
    return pct / 100
