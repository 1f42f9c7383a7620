"""/proc/swaps: the path of each swap area, unescaped like mountinfo."""

from __future__ import annotations

from blockfit.devices import swaps


def test_paths_after_the_header() -> None:
    text = ("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
            "/dev/dm-1                               partition\t8388604\t\t0\t\t-2\n"
            "/swap\\040file                          file\t\t1048572\t\t0\t\t-3\n\n")
    assert swaps.parse(text) == ["/dev/dm-1", "/swap file"]


def test_no_swap_is_an_empty_list() -> None:
    assert swaps.parse("Filename\tType\tSize\tUsed\tPriority\n") == []
    assert isinstance(swaps.read(), list)  # this host's own file reads
