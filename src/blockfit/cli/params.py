"""Typer parameter callbacks: every numeric, size, duration and list option is checked here, once, by the shared
parsers in units.py, before a command does any work.

Each callback names its option in the error (``--target-iops nan: expected ...``; one line, exit 2). Numbers
follow one grammar (units.py): counts and targets take k/M/G suffixes ('150k'), shares take '%' and refuse a
bare fraction ('0.7'), digits are ASCII. Options declared ``parser=str`` reach their callback as text, and the
callback returns the parsed number (NUMBER below), so the command body gets an int or a float; text options
(sizes, durations, lists) are checked and returned unchanged, for the body to parse with the same parser.
The fuzz test (tests/cli/test_cli_fuzz.py) reads ``KIND`` off each option's callback to know which values are wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

import typer

from blockfit.errors import InputError
from blockfit.units import (
    GIB,
    parse_duration,
    parse_io_size,
    parse_list,
    parse_mbps,
    parse_number,
    parse_percent,
    parse_quantity,
    parse_volume_gb,
)

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)
MAX_COUNT = 1_000_000  # outstanding I/Os, queue depths, volume counts: beyond this a count is a typo
MAX_IO_SIZE = GIB
# typer.Option(**NUMBER, callback=...): click hands the text to the callback, which parses it with the grammar above
# (click's own int/float would refuse '150k' and take '٥٠٠').
NUMBER: dict[str, Any] = {"parser": str, "metavar": "NUMBER"}
PERCENT: dict[str, Any] = {"parser": str, "metavar": "PERCENT"}


def _name(param: typer.CallbackParam) -> str:
    return param.opts[0] if param.opts else str(param.name)


def _kind(kind: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    def mark(fn: Callable[..., T]) -> Callable[..., T]:
        fn.KIND = kind  # type: ignore[attr-defined]
        return fn
    return mark


def _each(value: Any, check: Callable[[Any], object]) -> None:
    """Check a value, or every value of a repeatable option."""
    if value is None:
        return
    for v in value if isinstance(value, (list, tuple)) else [value]:
        check(v)


def _map(value: Any, parse: Callable[[Any], T]) -> Any:
    """Parse a value, or every value of a repeatable option; None stays None."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [parse(v) for v in value]
    return parse(value)


@_kind("positive")
def positive(param: typer.CallbackParam, value: str | float | None) -> float | None:
    """A rate or target: finite and above 0 ('150000', '150k', '1.5M')."""
    return _map(value, lambda v: parse_quantity(v, _name(param)))


@_kind("positive")
def mbps(param: typer.CallbackParam, value: str | float | None) -> float | None:
    """A rate in MB/s: finite and above 0 ('1500', '1500MB/s', '1.5G' = 1.5 GB/s)."""
    return _map(value, lambda v: parse_mbps(v, _name(param)))


@_kind("growth")
def growth_pct(param: typer.CallbackParam, value: str | float | None) -> float | None:
    """Extra headroom in percent: 0 to 1000 ('30' or '30%'; '0.3' and '1.3' are refused as a fraction, a factor)."""
    return _map(value, lambda v: parse_percent(v, _name(param), maximum=1000, factor_like=True))


@_kind("count")
def count(param: typer.CallbackParam, value: str | int | None) -> int | None:
    """A count of things (I/Os, volumes): a whole number from 1 to MAX_COUNT ('32', '1k')."""
    return _map(value, lambda v: int(parse_quantity(v, _name(param), minimum=1, allow_minimum=True,
                                                    maximum=MAX_COUNT, integer=True)))


@_kind("index")
def index(param: typer.CallbackParam, value: str | int) -> int:
    """A position in a list: 0 to MAX_COUNT."""
    return _map(value, lambda v: int(parse_quantity(v, _name(param), allow_minimum=True, maximum=MAX_COUNT,
                                                    integer=True)))


@_kind("percent")
def percent(param: typer.CallbackParam, value: str | float | None) -> float | None:
    """A share in percent, 0 to 100 ('30', '30%'; a bare '0.3' is refused as a fraction)."""
    return _map(value, lambda v: parse_percent(v, _name(param)))


@_kind("percent")
def whole_percent(param: typer.CallbackParam, value: str | int) -> int:
    """A share in whole percent, 0 to 100 (fio's rwmixwrite takes no fraction)."""
    def parse(v: str | int) -> int:
        number = parse_percent(v, _name(param))
        if not number.is_integer():
            raise InputError(f"{_name(param)} {v!r}: expected a whole percentage from 0 to 100")
        return int(number)
    return _map(value, parse)


@_kind("percentile")
def percentile(param: typer.CallbackParam, value: str) -> str:
    """A latency percentile strictly between 0 and 100 ('95', '99.9', '99.9%'; a bare '0.95' is refused)."""
    _each(value, lambda v: parse_percent(v, _name(param), allow_zero=False, allow_maximum=False))
    return value


@_kind("history_percentile")
def history_percentile(param: typer.CallbackParam, value: str | None) -> float | None:
    """A percentile of history intervals as DBAs name it: peak (100), p99.9, p99, p95, median, or 0 < p <= 100;
    parsed here, once, into the number the command uses."""
    from blockfit.cli.common import supplied_by
    from blockfit.history.targets import parse_percentile
    with supplied_by(_name(param)):
        return _map(value, parse_percentile)


@_kind("peak_factor")
def peak_factor(param: typer.CallbackParam, value: str | float | None) -> float | None:
    """The busiest minute over an interval's average: 1 to 100."""
    return _map(value, lambda v: parse_quantity(v, _name(param), minimum=1, allow_minimum=True, maximum=100))


@_kind("percentile")
def open_percent(param: typer.CallbackParam, value: str | None) -> str | None:
    """A target in percent strictly between 0 and 100 ('10', '10%'), e.g. a precision."""
    _each(value, lambda v: parse_percent(v, _name(param), allow_zero=False, allow_maximum=False))
    return value


@_kind("io_size")
def io_size(param: typer.CallbackParam, value: str | None) -> str | None:
    """An I/O or stripe size: 512 bytes to 1 GiB ('8k', '1m')."""
    _each(value, lambda v: parse_io_size(v, _name(param), maximum=MAX_IO_SIZE))
    return value


def _text(kind: str, parse: Callable[[str, str], object], doc: str) -> Callable[..., str | None]:
    """A callback checking a text option (or each of a repeated one) with ``parse(text, option name)``."""
    def callback(param: typer.CallbackParam, value: str | None) -> str | None:
        _each(value, lambda v: parse(v, _name(param)))
        return value
    callback.__doc__ = doc
    return _kind(kind)(callback)


byte_size = _text("byte_size", parse_io_size, "A file size in bytes with binary units ('4G').")
volume_size = _text("volume_size", parse_volume_gb, "A capacity in the cloud's billing GB ('4.5T', '800G').")
duration = _text("duration", parse_duration, "A duration ('60s', '1.5m', '250ms'); a bare number is seconds.")


@_kind("latency")
def latency(param: typer.CallbackParam, value: str | None) -> str | None:
    """A latency bound ('20ms', '0.02s'); a bare number is milliseconds."""
    def check(v: str) -> None:
        bare = v.strip().replace(".", "", 1).isdigit()
        if bare:
            parse_number(v, _name(param))
        else:
            parse_duration(v, _name(param))
    _each(value, check)
    return value


@_kind("list")
def comma_list(param: typer.CallbackParam, value: Any) -> Any:
    """A comma-separated list (or a repeatable option of them) with no empty item."""
    _each(value, lambda v: parse_list(v, _name(param)))
    return value


def choice(kind: type[E]) -> Callable[[typer.CallbackParam, str | None], E | None]:
    """A callback reading one of `kind`'s spellings into its member; the error names the option and what it takes
    (``--manager 'zfs': expected one of lvm, mdadm, asm, none``)."""
    @_kind("choice")
    def callback(param: typer.CallbackParam, value: str | None) -> E | None:
        if value is None:
            return None
        try:
            return kind(value)
        except ValueError:
            names = [m.value for m in kind]
            what = " or ".join(names) if len(names) == 2 else "one of " + ", ".join(names)
            raise InputError(f"{_name(param)} {value!r}: expected {what}") from None
    return callback


IO_SIZES_HELP = "the small random and the large I/O size, SMALL,LARGE, e.g. 16k,512k (default 8k,1m)"


def parse_io_sizes(text: str, option: str = "--io-sizes") -> tuple[int, int]:
    """'16k,512k' -> (16384, 524288): the small and the large I/O size, both given, each 512 bytes to 1 GiB."""
    parts = parse_list(text, option)
    if len(parts) != 2:
        raise InputError(f"{option} {text!r}: expected SMALL,LARGE, e.g. 8k,1m")
    small = parse_io_size(parts[0], option, maximum=MAX_IO_SIZE)
    large = parse_io_size(parts[1], option, maximum=MAX_IO_SIZE)
    if small > large:
        raise InputError(f"{option} {text!r}: the small size {parts[0].strip()} is larger than the large size "
                         f"{parts[1].strip()}; expected SMALL,LARGE, e.g. {parts[1].strip()},{parts[0].strip()}")
    return small, large


@_kind("io_sizes")
def io_sizes(param: typer.CallbackParam, value: str | None) -> str | None:
    """The small and the large I/O size, 'SMALL,LARGE' ('8k,1m')."""
    _each(value, lambda v: parse_io_sizes(v, _name(param)))
    return value


@_kind("capacity")
def capacity(param: typer.CallbackParam, value: str | None) -> str | None:
    """A capacity in the cloud's billing GB with optional growth headroom ('4.5T', '4.5T+20%')."""
    from blockfit.cli.common import capacity_growth
    _each(value, lambda v: capacity_growth(v, _name(param)))
    return value


@_kind("cpus")
def cpus(param: typer.CallbackParam, value: str | None) -> str | None:
    """A compute floor or range: 'N' or 'MIN-MAX' ('16', '8-24', '8-')."""
    from blockfit.cli.common import cpu_floor_or_range
    _each(value, lambda v: cpu_floor_or_range(v, _name(param)))
    return value


def deprecated(old: str, use: str, plural: bool = False) -> None:
    """The one line on stderr an old spelling prints: what it was, what to write instead."""
    import sys
    print(f"blockfit: warning: {old} {'are' if plural else 'is'} deprecated; use {use}", file=sys.stderr)


class Renamed:
    """The old spellings of merged options (hidden, still taken) a command was given. `pick` takes the new
    option's value or the old one's, refusing both; `warn` prints one line naming the new spellings, after every
    option has been parsed (a refused command prints its error alone)."""

    def __init__(self) -> None:
        self.old: list[str] = []
        self.new: list[str] = []

    def pick(self, new: str, new_value: Any, old: str, old_value: Any, use: str) -> Any:
        """NEW's value, or OLD's (noted, to be warned about as USE); both given: an input error."""
        if old_value is None:
            return new_value
        if new_value is not None:
            raise InputError(f"{old}: the old spelling of {new}; give {new} alone")
        self.old.append(old)
        self.new.append(use)
        return old_value

    def warn(self) -> None:
        if self.old:
            deprecated(", ".join(self.old), ", ".join(dict.fromkeys(self.new)), plural=len(self.old) > 1)

    def io_sizes(self, io_sizes: str | None, small_io: str | None, large_io: str | None) -> tuple[str, str]:
        """(small, large) from --io-sizes, or from the old --small-io / --large-io (defaults 8k and 1m)."""
        if io_sizes is not None:
            small, large = (part.strip() for part in io_sizes.split(","))
        else:
            small, large = small_io or "8k", large_io or "1m"
        for old, value in (("--small-io", small_io), ("--large-io", large_io)):
            self.pick("--io-sizes", io_sizes, old, value, f"--io-sizes {small},{large}")
        return small, large

    @staticmethod
    def io_size_options(io_sizes: str | None) -> tuple[str, str]:
        """The options that gave the small and the large I/O size, as errors about them name them."""
        return ("--io-sizes", "--io-sizes") if io_sizes is not None else ("--small-io", "--large-io")
