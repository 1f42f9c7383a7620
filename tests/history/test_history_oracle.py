"""Oracle history (issue 23): the six public AWR/Statspack samples worked by hand, reports we write in the real
layouts for what the samples lack (23ai, the RAC global report, text and HTML of the same snapshots), the spool
of `blockfit sql oracle`, and bad input.

Each sample's figure is worked here from the report's own Instance Activity Stats lines (quoted, with their line
number, and checked to be in the file), divided by the report's "Elapsed" minutes x 60.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from blockfit.cli import main
from blockfit.errors import InputError
from blockfit.history import derive_targets
from support.awr_layout import Inst, awr_spool, global_html_report, global_text_report, html_report, text_report

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "awr"
if not SAMPLES.is_dir():
    SAMPLES = Path("/work/shared/samples/awr")
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="the public AWR samples (../shared/samples/awr)")

PLAN = ["plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8", "--json"]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def blockfit(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """The CLI in this process (one import for every call: the CLI's start-up dominates a subprocess)."""
    def run(*args: str) -> Run:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out = capsys.readouterr()
        return Run(code, out.out, out.err)
    return run


# file -> (elapsed line, elapsed minutes, [(line number, statistic line as in the report)] for the four statistics)
HAND: dict[str, tuple[str, float, list[tuple[int, str, int]]]] = {
    "awr122_bpsc_2668_2669.txt": ("   Elapsed:               60.25 (mins)", 60.25, [
        (1969, "physical read total IO requests             395,292", 395_292),
        (1981, "physical write total IO requests            154,813", 154_813),
        (1970, "physical read total bytes             4,531,975,168", 4_531_975_168),
        (1982, "physical write total bytes            2,298,483,712", 2_298_483_712)]),
    "awr11204_orcl1_rac_2_3.txt": ("   Elapsed:               60.22 (mins)", 60.22, [
        (2024, "physical read total IO requests               9,031", 9_031),
        (2034, "physical write total IO requests              3,435", 3_435),
        (2025, "physical read total bytes               147,390,464", 147_390_464),
        (2035, "physical write total bytes               62,302,208", 62_302_208)]),
    "awr11204_orcl2_rac_2_3.txt": ("   Elapsed:               60.22 (mins)", 60.22, [
        (2225, "physical read total IO requests              10,839", 10_839),
        (2235, "physical write total IO requests              4,249", 4_249),
        (2226, "physical read total bytes               193,806,336", 193_806_336),
        (2236, "physical write total bytes               67,198,976", 67_198_976)]),
    "sp121_clinprd1_70371_70372.txt": ("   Elapsed:      60.02 (mins) Av Act Sess:       0.3", 60.02, [
        (1672, "physical read total IO requests              286,861", 286_861),
        (1684, "physical write total IO requests              21,193", 21_193),
        (1673, "physical read total bytes            178,075,907,584", 178_075_907_584),
        (1685, "physical write total bytes             1,362,963,968", 1_362_963_968)]),
    # HTML: one table row per statistic; "line" is the row's position in the file's text, found below
    "awr19c_rmgtibp_72337_72338.html": ("<td align=\"center\" class='awrnc'>              30.02 (mins)</td>", 30.02, [
        (0, "<td scope=\"row\" class='awrnc'>physical read total IO requests</td><td align=\"right\" "
            "class='awrnc'>4,434,141</td>", 4_434_141),
        (0, "<td scope=\"row\" class='awrnc'>physical write total IO requests</td><td align=\"right\" "
            "class='awrnc'>4,967,162</td>", 4_967_162),
        (0, "<td scope=\"row\" class='awrc'>physical read total bytes</td><td align=\"right\" "
            "class='awrc'>137,839,154,688</td>", 137_839_154_688),
        (0, "<td scope=\"row\" class='awrc'>physical write total bytes</td><td align=\"right\" "
            "class='awrc'>213,251,095,552</td>", 213_251_095_552)]),
    "awr18c_prdg1_rac_237812_237837.html": (
        "<td align=\"center\" class='awrnc'>             499.99 (mins)</td>", 499.99, [
        (0, "<td scope=\"row\" class='awrc'>physical read total IO requests</td><td align=\"right\" "
            "class='awrc'>4,789,921</td>", 4_789_921),
        (0, "<td scope=\"row\" class='awrnc'>physical write total IO requests</td><td align=\"right\" "
            "class='awrnc'>486,576</td>", 486_576),
        (0, "<td scope=\"row\" class='awrnc'>physical read total bytes</td><td align=\"right\" "
            "class='awrnc'>277,894,678,016</td>", 277_894_678_016),
        (0, "<td scope=\"row\" class='awrc'>physical write total bytes</td><td align=\"right\" "
            "class='awrc'>16,001,040,896</td>", 16_001_040_896)]),
}


def by_hand(name: str) -> tuple[float, float]:
    """(IOPS, MB/s) from the report's own lines, after checking every quoted line is in the file."""
    elapsed_line, minutes, rows = HAND[name]
    text = (SAMPLES / name).read_text(encoding="utf-8")
    lines = text.split("\n")  # as grep -n counts (splitlines would also split at the reports' form feeds)
    assert elapsed_line in text
    for number, quoted, _value in rows:
        if number:
            assert lines[number - 1].startswith(quoted), (name, number, lines[number - 1])
        else:
            assert quoted in text, (name, quoted)
    seconds = minutes * 60
    reads, writes, rbytes, wbytes = (v for _n, _q, v in rows)
    return (reads + writes) / seconds, (rbytes + wbytes) / seconds / 1e6


@needs_samples
@pytest.mark.parametrize("name", sorted(HAND))
def test_each_sample_plans_within_2_percent_of_its_instance_activity_stats(name: str,
                                                                           blockfit: Callable[..., Run]) -> None:
    iops, mbps = by_hand(name)
    out = blockfit(*PLAN, "--from", str(SAMPLES / name), "--percentile", "100", "--headroom", "0%",
                   "--peak-factor", "1")
    assert out.returncode == 0, out.stderr
    req = json.loads(out.stdout)["requirements"]
    assert req["target_iops"] == pytest.approx(iops, rel=0.02)
    assert req["target_mbps"] == pytest.approx(mbps, rel=0.02)
    hist = req["history"]
    assert hist["percentile_name"] == "peak" and hist["peak_factor"] == 1 and hist["samples"] == 1
    assert hist["sources"][0]["format"] == ("statspack" if name.startswith("sp") else "awr")
    assert hist["sources"][0]["interval_s"] == pytest.approx(HAND[name][1] * 60)


@needs_samples
def test_the_rac_instances_reports_are_summed_and_one_alone_warns() -> None:
    one = derive_targets(SAMPLES / "awr11204_orcl1_rac_2_3.txt", percentile=100)
    both = derive_targets([SAMPLES / "awr11204_orcl1_rac_2_3.txt", SAMPLES / "awr11204_orcl2_rac_2_3.txt"],
                          percentile=100)
    i1, m1 = by_hand("awr11204_orcl1_rac_2_3.txt")
    i2, m2 = by_hand("awr11204_orcl2_rac_2_3.txt")
    assert both.iops == pytest.approx(i1 + i2, rel=0.001) and both.mbps == pytest.approx(m1 + m2, rel=0.001)
    assert both.sources[0].members == ["orcl1"] and both.sources[1].members == ["orcl2"]
    assert any("summed the 2 RAC instances" in n for n in both.notes)
    assert not any("RAC database of 2 instances" in w for w in both.warnings)
    assert any("RAC database of 2 instances" in w and "orcl1" in w for w in one.warnings)
    exa = derive_targets(SAMPLES / "awr18c_prdg1_rac_237812_237837.html", percentile=100)
    assert any("RAC database of 2 instances" in w for w in exa.warnings)
    assert any("Optimized Requests" in n for n in exa.notes)  # Exadata flash served 99 %: said, and counted


@needs_samples
def test_io_profile_and_iostat_are_reconciled_in_the_notes() -> None:
    t = derive_targets(SAMPLES / "awr122_bpsc_2668_2669.txt", percentile=100)
    assert any("IO Profile 'Total Requests' 152.2 requests/s agrees" in n for n in t.notes)
    assert any("IOStat by Function TOTAL 152.1 requests/s agrees" in n for n in t.notes)


def test_23ai_text_and_html_of_the_same_snapshots_give_the_same_targets(tmp_path: Path) -> None:
    inst = Inst("free1", 1, "db23", (1_234_567, 456_789, 98_765_432_100, 12_345_678_901))
    args = ("23.0.0.0.0", "FREE", 1_407_811_255, inst, 501, 502, datetime(2025, 3, 4, 9, 0, 12), 60.13)
    (tmp_path / "awr23.txt").write_text(text_report(*args))
    (tmp_path / "awr23.html").write_text(html_report(*args))
    txt = derive_targets(tmp_path / "awr23.txt", percentile=100)
    htm = derive_targets(tmp_path / "awr23.html", percentile=100)
    seconds = 60.13 * 60
    assert txt.iops == pytest.approx((1_234_567 + 456_789) / seconds, rel=1e-9)
    assert txt.mbps == pytest.approx((98_765_432_100 + 12_345_678_901) / seconds / 1e6, rel=1e-9)
    assert (htm.iops, htm.mbps, htm.read_pct) == pytest.approx((txt.iops, txt.mbps, txt.read_pct), rel=1e-9)
    assert txt.sources[0].database == htm.sources[0].database == "FREE (DBID 1407811255)"
    assert txt.peak_iops_window is not None and txt.peak_iops_window.label == "snapshots 501-502"
    assert txt.sources[0].start == htm.sources[0].start == "2025-03-04T09:00:12Z"
    assert any("23.0.0.0.0" in n for n in txt.notes)


@pytest.mark.parametrize("render", [global_text_report, global_html_report])
def test_a_rac_global_report_gives_the_sum_of_its_instances_reports(tmp_path: Path, render: object) -> None:
    insts = [Inst("prod1", 1, "node1", (600_000, 200_000, 40_000_000_000, 9_000_000_000)),
             Inst("prod2", 2, "node2", (300_000, 150_000, 20_000_000_000, 6_000_000_000))]
    begin = datetime(2025, 5, 6, 10, 0, 0)
    for i in insts:
        (tmp_path / f"awr_{i.name}.txt").write_text(text_report("19.0.0.0.0", "PROD", 42, i, 88, 89, begin, 60.0,
                                                                rac=True, instances=2))
    ext = "txt" if render is global_text_report else "html"
    (tmp_path / f"awrg.{ext}").write_text(render("19.0.0.0.0", "PROD", 42, insts, 88, 89, begin, 60.0))  # type: ignore[operator]
    glob = derive_targets(tmp_path / f"awrg.{ext}", percentile=100)
    summed = derive_targets([tmp_path / "awr_prod1.txt", tmp_path / "awr_prod2.txt"], percentile=100)
    assert glob.sources[0].format == "awr-global"
    assert glob.sources[0].members == ["all instances (prod1, prod2)"]
    assert (glob.iops, glob.mbps, glob.read_pct) == pytest.approx((summed.iops, summed.mbps, summed.read_pct))
    assert glob.iops == pytest.approx((900_000 + 350_000) / 3600)
    assert not any("RAC" in w for w in glob.warnings + summed.warnings)
    with pytest.raises(InputError, match="already sums every instance"):
        derive_targets([tmp_path / f"awrg.{ext}", tmp_path / "awr_prod1.txt"], percentile=100)
    with pytest.raises(InputError, match="instance prod1 is in"):
        (tmp_path / "copy.txt").write_text((tmp_path / "awr_prod1.txt").read_text())
        derive_targets([tmp_path / "awr_prod1.txt", tmp_path / "copy.txt"])


def test_reports_of_different_snapshots_or_databases_are_not_summed(tmp_path: Path) -> None:
    a = Inst("prod1", 1, "node1", (600_000, 200_000, 4_000_000_000, 900_000_000))
    b = Inst("prod2", 2, "node2", (300_000, 150_000, 2_000_000_000, 600_000_000))
    (tmp_path / "a.txt").write_text(text_report("19.0.0.0.0", "PROD", 42, a, 88, 89, datetime(2025, 5, 6, 10), 60,
                                                rac=True, instances=2))
    (tmp_path / "b.txt").write_text(text_report("19.0.0.0.0", "PROD", 42, b, 90, 91, datetime(2025, 5, 6, 12), 60,
                                                rac=True, instances=2))
    (tmp_path / "c.txt").write_text(text_report("19.0.0.0.0", "TEST", 43, b, 88, 89, datetime(2025, 5, 6, 10), 60))
    with pytest.raises(InputError, match="share no interval"):
        derive_targets([tmp_path / "a.txt", tmp_path / "b.txt"])
    with pytest.raises(InputError, match="different databases"):
        derive_targets([tmp_path / "a.txt", tmp_path / "c.txt"])


@needs_samples
def test_bad_oracle_input_is_one_line_and_exit_2(tmp_path: Path, blockfit: Callable[..., Run]) -> None:
    text = (SAMPLES / "awr122_bpsc_2668_2669.txt").read_text()
    (tmp_path / "cut.txt").write_text(text[: len(text) * 2 // 3])
    html = (SAMPLES / "awr19c_rmgtibp_72337_72338.html").read_text()
    (tmp_path / "cut.html").write_text(html[: len(html) // 2])
    cases = [
        (["--from", str(tmp_path / "cut.txt")], "truncated"),
        (["--from", str(tmp_path / "cut.html")], "truncated"),
        (["--from", str(SAMPLES / "sp121_clinprd1_70371_70372.txt"), "--from-format", "awr"],
         "a Statspack report, not an AWR report"),
        (["--from", str(tmp_path / "spool.csv")], "went down"),
        (["--from", str(SAMPLES / "awr122_bpsc_2668_2669.txt"), "--from-format", "awr-xyz"], "--from-format"),
        (["--percentile", "peak"], "--percentile: goes with --from"),
        (["--headroom", "10%"], "--headroom: goes with --from"),
        (["--peak-factor", "2"], "--peak-factor: goes with --from"),
        (["--from", str(SAMPLES / "awr122_bpsc_2668_2669.txt"), "--peak-factor", "0.5"], "--peak-factor"),
        (["--from", str(SAMPLES / "awr122_bpsc_2668_2669.txt"), "--percentile", "p0"], "--percentile"),
    ]
    (tmp_path / "spool.csv").write_text(awr_spool("PROD", 42, 1, 10, datetime(2025, 1, 1), backwards_at=5))
    for args, needle in cases:
        out = blockfit(*PLAN, *args, "--out", str(tmp_path / "p.json"))
        assert out.returncode == 2, (args, out.stderr)
        assert needle in out.stderr, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "p.json").exists()
    # detection is preferred: the Statspack report undeclared is read as what it is
    t = derive_targets(SAMPLES / "sp121_clinprd1_70371_70372.txt")
    assert t.sources[0].format == "statspack"


def test_the_awr_spool_gives_per_snapshot_rates_maxima_restarts_and_rac_sums(tmp_path: Path) -> None:
    path = tmp_path / "io_history.csv"
    path.write_text(awr_spool("PROD", 42, 2, 49, datetime(2025, 1, 6), restart_at=30))
    t = derive_targets(path, percentile=100)
    # 48 intervals per instance, one lost to instance 1's restart and instance 2's (both restart at k=30)
    assert t.samples == 47
    assert t.sources[0].format == "oracle-spool" and t.sources[0].members == ["instance 1", "instance 2"]
    assert any("restart" in s for s in t.skipped)
    # the busy hours (09-17) do 3x: instance 1 3,000 + 750 w, instance 2 half; MAXVAL is 3x that in each interval
    busy_avg = 3000 * 1.25 * 1.5
    assert t.peak_factor == 1 and "finer maximum" in t.peak_factor_source
    assert t.iops == pytest.approx(3 * busy_avg)  # the busiest minute, read + write maxima added
    avg = derive_targets(path, percentile=100, peak_factor=1)
    assert avg.iops == pytest.approx(busy_avg)
    assert avg.read_pct == pytest.approx(80.0)
    med = derive_targets(path, percentile=50, peak_factor=1)
    assert med.percentile_name == "median" and med.iops == pytest.approx(1000 * 1.25 * 1.5)
    assert t.peak_iops_window is not None and t.peak_iops_window.label.startswith("snapshots 10")
    path.write_text(awr_spool("PROD", 42, 1, 10, datetime(2025, 1, 1), backwards_at=5))
    with pytest.raises(InputError, match="went down .* no restart marker"):
        derive_targets(path)


def test_statspack_spool_has_no_maxima_and_warns_about_averages(tmp_path: Path) -> None:
    text = awr_spool("PROD", 42, 1, 25, datetime(2025, 1, 6), with_max=False).replace(",awr,", ",statspack,")
    (tmp_path / "sp.csv").write_text(text)
    t = derive_targets(tmp_path / "sp.csv", percentile=100)
    assert t.sources[0].format == "statspack-spool" and t.peak_factor == 1
    assert any("60-minute averages" in w and "rmoff" in w for w in t.warnings)
    assert derive_targets(tmp_path / "sp.csv", percentile=100, peak_factor=2).iops == pytest.approx(2 * t.iops)


def test_sql_command_prints_the_scripts_with_the_licence_question(blockfit: Callable[..., Run]) -> None:
    ora = blockfit("sql", "oracle")
    assert ora.returncode == 0
    assert "Diagnostics Pack" in ora.stdout and "accept diag_pack_licensed" in ora.stdout
    assert "DBA_HIST_SYSMETRIC_SUMMARY" in ora.stdout.upper() and "BFIO-HEADER,1,awr" in ora.stdout
    sp = blockfit("sql", "oracle", "--statspack")
    assert sp.returncode == 0 and "stats$sysstat" in sp.stdout and "no Diagnostics Pack licence" in sp.stdout
    assert blockfit("sql", "statspack").stdout == sp.stdout
    ss = blockfit("sql", "sqlserver", "--json")
    assert ss.returncode == 0 and "dm_io_virtual_file_stats" in json.loads(ss.stdout)["script"]
    bad = blockfit("sql", "db2")
    assert bad.returncode == 2 and "expected oracle, statspack or sqlserver" in bad.stderr


@needs_samples
@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.*") if p.suffix in (".txt", ".html"))
                         if SAMPLES.is_dir() else [])
def test_the_iops_note_divides_by_the_seconds_it_shows(name: str) -> None:
    """The note's arithmetic is checkable by hand: (reads + writes) / the seconds shown = the IOPS shown, to its
    last digit (it printed "/ 1,801 s = 5,219.5" and divided by 1,801.2 s; issue 37, item 8)."""
    note = next(n for n in derive_targets(SAMPLES / name, percentile=100).notes if "IOPS = (" in n)
    m = re.search(r"requests ([\d,]+) \+ physical write total IO requests ([\d,]+)\) / ([\d,.]+) s = ([\d,.]+);",
                  note)
    assert m, note
    reads, writes, secs, iops = (float(g.replace(",", "")) for g in m.groups())
    assert round((reads + writes) / secs, 1) == iops, note
