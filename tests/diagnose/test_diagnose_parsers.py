"""Parsers for /proc/diskstats, mountinfo, lvs JSON and capture files: real lines, and fuzzing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.diagnose import diskstats, geometry, mounts, sampler
from blockfit.diagnose.metrics import interval
from blockfit.errors import InputError
from support.diagnose_testbed import BLOCKFIT

# Real lines from three kernel generations:
# 14 fields (before 4.18): node_exporter's diskstats fixture, a real sda.
LINE_14 = "8 0 sda 25354637 34367663 1003346126 18492372 28444756 11134226 505697032 63877960 0 9653880 82621804"
# 18 fields (4.18 - 5.4, discard counters): an NVMe disk on Debian 10 (kernel 4.19), from its sysfs stat.
LINE_18 = ("259       0 nvme0n1 350368 10216 94989840 133099 1327012 165678 367383712 342754 0 167516 497168 "
           "13669 0 1758032920 52066")
# 20 fields (5.5+, flush counters): this project's build host (kernel 6.18), virtio disk.
LINE_20 = ("254       0 vda 468220 13934 21149580 105710 309403 123761 15425762 39238 0 34596 150075 10592 20 "
           "9904512 4137 37022 988")


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


def test_interval_figures_from_two_real_samples() -> None:
    a = diskstats.parse_line(LINE_20)
    fields = LINE_20.split()
    # one second later: +1000 reads of 8 sectors taking 500 ms, +10 flushes taking 30 ms, weighted +700 ms
    bumped = fields[:3] + [str(int(v) + d) for v, d in zip(fields[3:], [1000, 0, 8000, 500, 0, 0, 0, 0, 0, 900, 700,
                                                                         0, 0, 0, 0, 10, 30], strict=True)]
    iv = interval(a, diskstats.parse_line(" ".join(bumped)), 1.0, 1.0)
    assert iv is not None
    assert iv.r_iops == 1000 and iv.avg_rq_kb == 4.0 and iv.r_await_ms == 0.5
    assert iv.aqu_sz == pytest.approx(0.7) and iv.util_pct == pytest.approx(90)
    assert iv.flushes_per_s == 10 and iv.flush_await_ms == 3.0
    assert iv.service_ms == pytest.approx(0.9) and iv.queue_ms == 0.0
    assert interval(diskstats.parse_line(" ".join(bumped)), a, 1.0, 1.0) is None  # counters went backwards


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


MOUNTINFO = """27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
42 27 7:0 / /tmp/a\\040b rw,noatime - ext4 /dev/loop0 rw,nobarrier
43 27 7:1 / /data rw,relatime shared:5 - ext4 /dev/loop1 rw,data=writeback
44 27 253:2 / /u01 rw,noatime - xfs /dev/mapper/vg-lv rw,attr2,inode64,sunit=1024,swidth=4096
"""


def test_mountinfo_options() -> None:
    ms = mounts.parse(MOUNTINFO)
    assert [m.barriers for m in ms] == [True, False, True, True]
    assert ms[1].mount_point == "/tmp/a b" and ms[1].atime == "noatime"
    assert ms[2].data_mode == "writeback" and ms[2].atime == "relatime"
    assert ms[3].option("sunit") == "1024"
    assert mounts.read()  # this host's own table parses


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_mountinfo(text: str) -> None:
    try:
        mounts.parse(text, "fuzz")
    except mounts.MountError as exc:
        assert "fuzz line " in str(exc)


def test_lvs_segments_json() -> None:
    report = {"report": [{"seg": [
        {"vg_name": "oldvg", "lv_name": "oldlv", "lv_kernel_major": "-1", "lv_kernel_minor": "-1",
         "segtype": "mirror", "stripes": "2", "stripe_size": "0", "devices": "oldlv_mimage_0(0),oldlv_mimage_1(0)"},
        {"vg_name": "vgdata", "lv_name": "lvdata", "lv_kernel_major": "253", "lv_kernel_minor": "3",
         "segtype": "striped", "stripes": "4", "stripe_size": "1048576",
         "devices": "/dev/sdb(0),/dev/sdc(0),/dev/sdd(0),/dev/sde(0)"}]}]}
    geo = geometry.parse_lvs_json(json.dumps(report))
    assert geo[0].device == "dm-3" and geo[0].stripes == 4 and geo[0].stripe_bytes == 1048576
    assert geo[0].members == ["sdb", "sdc", "sdd", "sde"]
    assert geometry.parse_lvs_json("not json") == []


def test_replay_of_a_malformed_capture_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n')
    proc = subprocess.run(BLOCKFIT + ["diagnose", "--replay", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "line 1" in proc.stderr and "Traceback" not in proc.stderr
    assert not proc.stdout


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=80), min_size=0, max_size=4))
def test_fuzz_capture_loader(lines: list[str]) -> None:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write("\n".join(lines))
    try:
        sampler.load(Path(fh.name))
    except InputError as exc:
        assert "--replay" in str(exc)
    finally:
        Path(fh.name).unlink()


def test_capture_with_a_bad_diskstats_line_names_sample_and_line(tmp_path: Path) -> None:
    header = sampler.snapshot(["vda"] if Path("/sys/class/block/vda").exists() else None, 1.0)
    path = tmp_path / "c.jsonl"
    samples = [sampler.Sample(t=0.0, lines=[LINE_20]), sampler.Sample(t=1.0, lines=[LINE_20, "254 0 vda 1 2"])]
    path.write_text("\n".join(m.model_dump_json() for m in [header, *samples]) + "\n")
    with pytest.raises(InputError, match=r"sample 2 line 2"):
        sampler.load(path)


@pytest.mark.parametrize("args", [
    ["--layout", "1x50G@balanced"],
    ["--layout", "1x50G@nosuchlevel", "--cloud", "oci", "--instance", "VM.Standard.E4.Flex:1"],
    ["--interval", "5s", "--duration", "2s"],
    ["--devices", "no-such-disk"],
])
def test_bad_input_fails_before_sampling(args: list[str]) -> None:
    proc = subprocess.run(BLOCKFIT + ["diagnose", "--duration", "60s"] + args, capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 2 and proc.stderr.startswith("blockfit: error: ") and proc.stderr.count("\n") == 1
    assert not proc.stdout  # nothing sampled, nothing printed
