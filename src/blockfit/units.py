"""Parsing and formatting of sizes, I/O sizes, rates and durations.

Conventions (README "Units"):
- Volume sizes in specs (G, GB, GiB, T, TB, TiB) count the cloud's *billing gigabyte*. All four clouds
  bill and scale performance by a unit they call "GB" that is 2^30 bytes (see each catalog's
  ``size_unit``), so G = GB = GiB there and T = TB = TiB = 1024 of them.
- I/O sizes (8k, 1m, 256KiB) are binary: 8k = 8192 bytes, as fio and the kernel count them.
- MB/s is 10^6 bytes/s everywhere, as the clouds publish; MiB/s is labelled when used.
"""

from __future__ import annotations

import math
import re

from blockfit.errors import InputError

KIB = 1024
MIB = 1024**2
GIB = 1024**3
MB = 1_000_000

# re.ASCII: \d is 0-9 only; without it "٥٠٠G" (Arabic-Indic digits, which float() also takes) read as 500G.
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$", re.ASCII)
# A count or target: 150000, 150k, 1.5M, 2e5. k/K = 10^3, M = 10^6, G = 10^9 (a lower-case m would read as milli).
# a number as people write it: 150000, 1.5e5, or grouped by thousands with commas (40,000 was once refused)
_NUMBER = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
_QUANTITY_RE = re.compile(r"^\s*" + _NUMBER + r"\s*([kKMG]?)\s*$", re.ASCII)
# a rate in MB/s: a number, optionally MB/s or M, or GB/s or G (x 1,000): '1G' was read as 10^9 MB/s
_MBPS_RE = re.compile(r"^\s*" + _NUMBER + r"\s*(MB/s|GB/s|M|G)?\s*$", re.ASCII | re.IGNORECASE)
_QUANTITY_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
# A percentage: 70, 70%, 0.5%, 99.9 (no sign: every share here is at least 0).
_PERCENT_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$", re.ASCII)
_VOLUME_UNITS = {"g": 1.0, "gb": 1.0, "gib": 1.0, "t": 1024.0, "tb": 1024.0, "tib": 1024.0}
_IO_UNITS = {
    "": 1, "b": 1,
    "k": KIB, "kb": KIB, "kib": KIB,
    "m": MIB, "mb": MIB, "mib": MIB,
    "g": GIB, "gb": GIB, "gib": GIB,
}
MAX_DURATION_S = 7 * 24 * 3600.0
_DURATION_UNITS = {"": 1.0, "s": 1.0, "ms": 0.001, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_volume_gb(text: str, what: str = "size") -> float:
    """Parse a volume size like '500G', '3.5T', '1 TiB' into the cloud's billing GB (may be fractional)."""
    m = _SIZE_RE.match(text)
    if m and re.fullmatch(r"[GT]b", m.group(2)):
        raise InputError(f"{what} {text!r}: {m.group(2)} reads as bits; expected bytes: {m.group(1)}{m.group(2)[0]} "
                         f"(or {m.group(2)[0]}B, {m.group(2)[0]}iB)")
    if not m or m.group(2).lower() not in _VOLUME_UNITS or not m.group(2):
        raise InputError(f"{what} {text!r}: expected a number with a unit G, GB, GiB, T, TB or TiB (e.g. 500G, 3.5T)")
    value = float(m.group(1)) * _VOLUME_UNITS[m.group(2).lower()]
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{what} {text!r}: expected a positive size")
    return value


def parse_io_size(text: str, what: str = "I/O size", maximum: int | None = None) -> int:
    """Parse an I/O size like '8k', '1m', '256KiB', '4096' into bytes (binary multiples)."""
    m = _SIZE_RE.match(text)
    if not m or m.group(2).lower() not in _IO_UNITS:
        raise InputError(f"{what} {text!r}: expected bytes or a number with k, m or g (e.g. 8k, 1m)")
    value = float(m.group(1)) * _IO_UNITS[m.group(2).lower()]
    if not math.isfinite(value) or value < 512 or value != int(value):
        raise InputError(f"{what} {text!r}: expected a whole number of bytes, at least 512")
    if maximum is not None and value > maximum:
        raise InputError(f"{what} {text!r}: expected at most {fmt_io_size(maximum)}")
    return int(value)


def parse_duration(text: str, what: str = "duration") -> float:
    """Parse '90s', '1.5m', '250ms', '60' (seconds) into seconds."""
    m = _SIZE_RE.match(text)
    if not m or m.group(2).lower() not in _DURATION_UNITS:
        raise InputError(f"{what} {text!r}: expected a number with s, ms, m or h (e.g. 90s, 20ms)")
    value = float(m.group(1)) * _DURATION_UNITS[m.group(2).lower()]
    if not 0 < value <= MAX_DURATION_S:
        raise InputError(f"{what} {text!r}: expected a positive duration of at most a week")
    return value


def parse_number(value: str | float, what: str, *, minimum: float = 0.0, maximum: float = math.inf,
                 allow_minimum: bool = False, allow_maximum: bool = True, integer: bool = False,
                 shown: str | None = None) -> float:
    """A finite number between minimum and maximum (each end excluded unless allowed); NaN and ±inf never.

    The one check behind every numeric option: a float option's NaN/inf (which float() accepts), negatives, a
    zero where it means nothing, and values out of range all fail here with the option's name.
    """
    number = _as_float(value)
    if not (_is_number_of_kind(number, integer)
            and _in_range(number, minimum, maximum, allow_minimum, allow_maximum)):
        low = "at least" if allow_minimum else "more than"
        high = "at most" if allow_maximum else "less than"
        kind = "a whole number" if integer else "a finite number"
        expected = f"expected {kind} {low} {minimum:g}" + ("" if math.isinf(maximum) else f" and {high} {maximum:g}")
        text = repr(value) if shown is None else shown   # SHOWN: the text as the user typed it ('150k', not 150000.0)
        raise InputError(f"{what} {text}: {expected}")
    return number


def _as_float(value: str | float) -> float:
    """VALUE as a float, NaN where it is none (a non-ASCII text too: "٥" is 5 to float())."""
    if isinstance(value, str) and not value.isascii():
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _is_number_of_kind(number: float, integer: bool) -> bool:
    return math.isfinite(number) and (not integer or number == int(number))


def _in_range(number: float, minimum: float, maximum: float, allow_minimum: bool, allow_maximum: bool) -> bool:
    return (minimum < number < maximum or (number == minimum and allow_minimum)
            or (number == maximum and allow_maximum))


def parse_mbps(value: str | float, what: str) -> float:
    """A rate in MB/s (10^6 B/s): '1500', '1,500', '1500MB/s', '1.5GB/s' or '1.5G' (G = GB/s, 1,000 MB/s)."""
    if isinstance(value, str):
        m = _MBPS_RE.match(value)
        if not m:
            raise InputError(f"{what} {value!r}: expected MB/s (10^6 B/s) as a number, e.g. 1500, 1500MB/s or 1.5G "
                             "(G = GB/s)")
        factor = 1000.0 if (m.group(2) or "").lower().startswith("g") else 1.0
        return parse_number(float(m.group(1).replace(",", "")) * factor, what, shown=value.strip())
    return parse_number(value, what)


def parse_quantity(value: str | float, what: str, *, minimum: float = 0.0, maximum: float = math.inf,
                   allow_minimum: bool = False, integer: bool = False) -> float:
    """A count or target as people write it: '150000', '150k', '1.5M', '2e5' (k = 10^3, M = 10^6, G = 10^9).

    ASCII digits only; then the range checks of parse_number. A number (a default) is checked as it is.
    """
    if isinstance(value, str):
        m = _QUANTITY_RE.match(value)
        if not m:
            kind = "a whole number" if integer else "a number"
            raise InputError(f"{what} {value!r}: expected {kind}, optionally with k (thousand), M (million) or "
                             "G (billion), e.g. 150k")
        return parse_number(float(m.group(1).replace(",", "")) * _QUANTITY_UNITS[m.group(2)], what, minimum=minimum,
                            maximum=maximum, allow_minimum=allow_minimum, integer=integer, shown=value.strip())
    return parse_number(value, what, minimum=minimum, maximum=maximum, allow_minimum=allow_minimum, integer=integer)


def parse_percent(value: str | float, what: str, *, maximum: float = 100.0, allow_maximum: bool = True,
                  allow_zero: bool = True, factor_like: bool = False) -> float:
    """A percentage: '70', '70%', '0.5%'. A bare fraction ('0.7') is refused with the accepted forms: a share
    written as a fraction of 1 would otherwise plan for 0.7 %. With FACTOR_LIKE (headroom, growth) a
    bare 1.3 is refused too: it reads as a factor (+30 %), not +1.3 %.
    """
    if isinstance(value, str):
        m = _PERCENT_RE.match(value)
        if not m:
            raise InputError(f"{what} {value!r}: expected a percentage such as 30 or 30%")
        number, sign = float(m.group(1)), m.group(2)
        if not sign and 0 < number < 1:
            raise InputError(f"{what} {value!r}: a bare fraction is ambiguous; write {100 * number:g}% (or "
                             f"{number:g}% if you mean less than one percent)")
        if not sign and factor_like and 1 < number < 2 and not number.is_integer():
            raise InputError(f"{what} {value!r}: reads as a factor; write {100 * (number - 1):g}% for x{number:g} "
                             f"(or {number:g}% if you mean that)")
        return parse_number(number, what, allow_minimum=allow_zero, maximum=maximum, allow_maximum=allow_maximum,
                            shown=value.strip())
    return parse_number(value, what, allow_minimum=allow_zero, maximum=maximum, allow_maximum=allow_maximum)


def parse_list(text: str, what: str) -> list[str]:
    """A comma-separated list with no empty item: ',' or 'a,,b' is a mistake, not 'no filter'."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise InputError(f"{what} {text!r}: expected a comma-separated list without empty items")
    return items


def fmt_io_size(nbytes: int) -> str:
    """8192 → '8k', 1048576 → '1m', 4194304 → '4m' (fio's spelling)."""
    for unit, mult in (("g", GIB), ("m", MIB), ("k", KIB)):
        if nbytes % mult == 0:
            return f"{nbytes // mult}{unit}"
    return str(nbytes)


def fmt_random_mix(read_share: float) -> str:
    """1.0 → 'random reads', 0.7 → 'random I/O (70 % reads)', 0.0 → 'random writes'."""
    if read_share >= 1:
        return "random reads"
    if read_share <= 0:
        return "random writes"
    return f"random I/O ({100 * read_share:g} % reads)"


def fmt_gb(gb: float) -> str:
    """4608 → '4.5T', 500 → '500G' (the layout spec's spelling)."""
    if gb >= 1024 and (gb / 1024) * 4 == int((gb / 1024) * 4):
        return f"{gb / 1024:g}T"
    return f"{gb:g}G"


# ---- numbers for people: the one place tables, summaries and figure axes format figures ----------------------

def fmt_num(value: float | None, sig: int = 3) -> str:
    """A figure with thousands separators and `sig` significant digits, whole numbers kept whole.

    175781.25 → '175,781'; 1440.0 → '1,440'; 12.345 → '12.3'; 0.012345 → '0.0123'; None → '–'.
    """
    if value is None or not math.isfinite(value):
        return "–"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, sig - 1 - magnitude)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt_qty(value: float | None, unit: str, sig: int = 3) -> str:
    """A figure with its unit: fmt_qty(175781, 'IOPS') → '175,781 IOPS'."""
    return f"{fmt_num(value, sig)} {unit}" if value is not None else "–"


def fmt_money(value: float | None) -> str:
    """Dollars with cents: 195.84 → '$195.84', -29.92 → '−$29.92'; None → 'unknown' (a missing price is never
    guessed)."""
    if value is None:
        return "unknown"
    cents = round(value, 2)
    return f"−${-cents:,.2f}" if cents < 0 else f"${abs(cents):,.2f}"


def fmt_ms(value: float | None, sig: int = 3) -> str:
    return fmt_qty(value, "ms", sig)


def fmt_pct(fraction: float | None, signed: bool = False, sig: int = 2) -> str:
    """A fraction as percent: 0.074 → '7.4 %', signed → '+7.4 %'."""
    if fraction is None or not math.isfinite(fraction):
        return "–"
    text = fmt_num(fraction * 100, sig)
    if signed and fraction > 0:
        text = "+" + text
    return f"{text} %"


def fmt_times(ratio: float | None, sig: int = 2) -> str:
    """A ratio as a multiple: 7.43 → '7.4×' (``sig`` significant digits)."""
    return "–" if ratio is None else f"{fmt_num(ratio, sig)}×"


def fmt_compact(value: float, sig: int = 3, scale_of: float | None = None) -> str:
    """Axis ticks: 150000 → '150k', 2500000 → '2.5M', 1440 → '1,440' (short enough not to collide).

    scale_of: pick the suffix from this value instead (the axis's largest tick), so one axis uses one suffix.
    """
    ref = abs(value if scale_of is None else scale_of)
    for limit, scale, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e5, 1e3, "k")):
        if ref >= limit:
            return "0" if value == 0 else fmt_num(value / scale, sig) + suffix
    return fmt_num(value, sig)


def fmt_compute(vcpus: float | None, ocpus: float | None) -> str:
    """A compute count in vCPUs, with OCI's OCPUs first where a result carries them: '8 OCPUs = 16 vCPUs',
    '16 vCPUs'; '' when neither is known (a fixed size)."""
    if ocpus is not None:
        return f"{fmt_num(ocpus)} OCPUs" + ("" if vcpus is None else f" = {fmt_num(vcpus)} vCPUs")
    return "" if vcpus is None else f"{fmt_num(vcpus)} vCPUs"


def fmt_hours(seconds: float) -> str:
    """A long duration as a DBA says it: '2 h 50 min', '45 min', '30 s'."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    h, m = divmod(round(seconds / 60), 60)
    return f"{h} h {m} min" if h else f"{m} min"


def fmt_count(n: int, noun: str) -> str:
    """1 → '1 layout', 3 → '3 layouts' (a plain -s plural, enough for the report's nouns)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def env_seconds(name: str, default: float, maximum: float) -> float:
    """A deadline in seconds from environment variable NAME (DEFAULT when unset or blank), 0.1 to MAXIMUM; a value
    that is not one is one line naming the variable (its text shown with controls escaped, at most 40 characters)."""
    import os

    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0.1 <= value <= maximum:   # NaN fails too
        raise InputError(f"{name}={raw[:40]!r}: expected seconds, a number from 0.1 to {maximum:g}")
    return value

