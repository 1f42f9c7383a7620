"""The /proc/diskstats reader: real lines of each layout, the counters fast path, and fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.devices import diskstats
from support.diskstats_lines import LINE_14, LINE_18, LINE_20


def test_real_lines_of_each_layout() -> None:
    a, b, c = (diskstats.parse_line(line) for line in (LINE_14, LINE_18, LINE_20))
    assert (a.fields, b.fields, c.fields) == (14, 18, 20)
    assert (a.name, a.reads, a.weighted_ms, a.discards, a.flushes) == ("sda", 25354637, 82621804, None, None)
    assert (b.name, b.major, b.discards, b.sectors_discarded, b.discard_ms, b.flushes) == (
        "nvme0n1", 259, 13669, 1758032920, 52066, None)
    assert (c.name, c.in_flight, c.io_ms, c.flushes, c.flush_ms) == ("vda", 0, 34596, 37022, 988)


def test_this_hosts_diskstats_parse() -> None:
    stats = diskstats.parse(diskstats.read_raw())
    assert stats and all(s.fields in diskstats.LAYOUTS for s in stats)


def test_error_names_the_line() -> None:
    text = LINE_20 + "\n" + LINE_14 + "\n   8 1 sda1 12 x 3 4 5 6 7 8 9 10 11\n"
    with pytest.raises(diskstats.DiskstatsError, match=r"line 3: field 'reads_merged'"):
        diskstats.parse(text, "test")
    with pytest.raises(diskstats.DiskstatsError, match=r"line 1: expected 14, 18 or 20 .* got 7"):
        diskstats.parse("8 1 sda1 1 2 3 4")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_any_text_parses_or_names_the_line(text: str) -> None:
    try:
        diskstats.parse(text, "fuzz")
    except diskstats.DiskstatsError as exc:
        assert "fuzz line " in str(exc)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([14, 18, 20]), st.lists(st.integers(0, 2**64), min_size=17, max_size=17),
       st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True), st.data())
def test_fuzz_mutated_real_layouts(n: int, counters: list[int], name: str, data: st.DataObject) -> None:
    parts = ["8", "16", name] + [str(c) for c in counters[: n - 3]]
    line = " ".join(parts)
    stat = diskstats.parse_line(line)
    assert stat.fields == n and stat.name == name and stat.reads == counters[0]
    victim = data.draw(st.integers(0, n - 1))
    junk = data.draw(st.sampled_from(["-1", "1.5", "x", "", "٣", "0x10"]))
    parts[victim] = junk
    bad = "\t".join(parts)
    try:
        diskstats.parse(bad + "\n", "mut")
    except diskstats.DiskstatsError as exc:
        assert "mut line 1" in str(exc)
