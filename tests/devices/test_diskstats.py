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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([14, 18, 20]), st.lists(st.integers(0, 2**64), min_size=17, max_size=17),
                          st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True)), max_size=6))
def test_fast_path_agrees_with_the_full_parse(devices: list[tuple[int, list[int], str]]) -> None:
    lines = [" ".join(["259", "3", name] + [str(v) for v in values[: n - 3]]) for n, values, name in devices]
    full = {s.name: s for s in diskstats.parse("\n".join(lines))}  # a name seen twice: the last line wins in both
    fast = diskstats.counters(lines)
    assert fast == {n: (s.reads, s.writes, s.sectors_read, s.sectors_written, s.weighted_ms) for n, s in full.items()}


def test_fast_path_on_real_lines_and_this_host() -> None:
    fast = diskstats.counters([LINE_14, LINE_18, LINE_20])
    assert fast["sda"] == (25354637, 28444756, 1003346126, 505697032, 82621804)
    assert fast["vda"] == (468220, 309403, 21149580, 15425762, 150075)
    # one text, both paths: the same figures (two reads would differ when other tests add loop devices)
    raw = diskstats.read_raw()
    parsed = {s.name: s for s in diskstats.parse(raw)}
    fast = diskstats.counters(raw.splitlines())
    assert fast.keys() == parsed.keys()
    for name, (reads, _, _, written, _) in fast.items():
        assert (reads, written) == (parsed[name].reads, parsed[name].sectors_written)
    # the reader of the live file: counters only grow from the earlier read, for the devices both reads saw
    later = diskstats.read_counters()
    common = later.keys() & parsed.keys()
    assert common
    for name in common:
        assert later[name][0] >= parsed[name].reads and later[name][3] >= parsed[name].sectors_written


def test_fast_path_refuses_a_shape_no_kernel_writes() -> None:
    with pytest.raises(diskstats.FieldCount, match="of 7 fields") as exc:
        diskstats.counters([LINE_14, "8 1 sda1 1 2 3 4"])
    assert exc.value.fields == 7
    with pytest.raises(ValueError):
        diskstats.counters([LINE_14.replace("25354637", "x")])


def test_lines_of_keeps_only_the_named_devices() -> None:
    names = {s.name for s in diskstats.parse(diskstats.read_raw())}
    one = sorted(names)[0]
    lines = diskstats.lines_of({one})
    assert [diskstats.parse_line(line).name for line in lines] == [one]
    assert diskstats.lines_of({"no-such-device"}) == []
