import pytest

from blockfit.errors import InputError
from blockfit.units import parse_io_size, parse_volume_gb


def test_volume_sizes_count_cloud_gb():
    assert parse_volume_gb("500G") == 500
    assert parse_volume_gb("3.5T") == 3584
    assert parse_volume_gb("1TiB") == 1024


def test_io_sizes_are_binary():
    assert parse_io_size("8k") == 8192
    assert parse_io_size("1m") == 1048576


@pytest.mark.parametrize("bad", ["", "G", "5X", "-1G", "0G"])
def test_bad_volume_size(bad):
    with pytest.raises(InputError):
        parse_volume_gb(bad)


def test_money_puts_the_minus_before_the_dollar() -> None:
    """A fleet's negative saving read "$-29.92"; a negative amount is "−$29.92", and one that rounds to zero "$0.00"."""
    from blockfit.units import fmt_money

    assert fmt_money(-29.92) == "−$29.92" and fmt_money(1234.5) == "$1,234.50"
    assert fmt_money(-0.001) == "$0.00" and fmt_money(-0.0) == "$0.00" and fmt_money(None) == "unknown"
