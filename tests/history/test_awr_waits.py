"""The I/Os an Oracle instance kept in flight, from the wait events of real AWR and Statspack reports (the public
samples in ../shared/samples/awr): Little's law, N = requests per second x the mean I/O wait. The expected figures
are worked out here from the rows each report prints, not read back from the reader."""

from __future__ import annotations

import pytest

from blockfit.history import awr_waits, derive_targets
from support.awr_samples import SAMPLES, needs_samples
from support.inproc import run

pytestmark = needs_samples

# awr122_bpsc_2668_2669.txt, Foreground and Background Wait Events: every I/O event's Waits and Avg wait as printed
# (ms); the other rows are CPU, network, latches, enqueues, 'log file sync', 'db file async I/O submit', idle waits
AWR122_IO_ROWS = [
    (360_121, 0.10972), (17_546, 0.10991), (1_025, 0.39114), (262, 0.19831), (90, 0.39674), (22, 0.98),   # fg
    (103_636, 0.38673), (44_559, 0.36717), (10_170, 0.11547), (2_082, 0.45264), (362, 2.21), (3_188, 0.15925),
    (79, 0.32567), (55, 0.22349), (6, 0.75283), (12, 0.30508), (6, 0.42650),                               # bg
]
# its Instance Activity Stats: physical read / write total IO requests, over 'Elapsed: 60.25 (mins)'
AWR122_IOPS = (395_292 + 154_813) / (60.25 * 60)


def test_a_12c_text_report_gives_requests_times_the_mean_io_wait() -> None:
    """152.2 requests/s x 0.188 ms = 0.029 I/Os in flight: a quiet instance."""
    waits = sum(w for w, _ in AWR122_IO_ROWS)
    mean_ms = sum(w * ms for w, ms in AWR122_IO_ROWS) / waits
    path = SAMPLES / "awr122_bpsc_2668_2669.txt"
    got = awr_waits.in_flight(path.read_text(encoding="utf-8"), AWR122_IOPS)
    assert got is not None
    assert got.waits == waits
    assert got.mean_wait_ms == pytest.approx(mean_ms, rel=1e-6)
    assert got.outstanding == pytest.approx(AWR122_IOPS * mean_ms / 1000, rel=1e-6)
    t = derive_targets(path, percentile=100)
    assert t.outstanding == pytest.approx(AWR122_IOPS * mean_ms / 1000, abs=0.005)   # rounded to 0.01
    assert t.outstanding_from is not None and "Little's law" in t.outstanding_from
    assert any("I/Os in flight by Little's law = 152.2 requests/s x 0.188 ms" in n for n in t.notes)


def test_a_19c_html_report_of_a_busy_instance() -> None:
    """5,219.5 requests/s (Instance Activity Stats: 4,434,141 + 4,967,162 over 1,801.2 s); the four I/O events
    that carry 99 % of the waits, as the HTML tables print them (waits, Total Wait Time (s)): db file sequential
    read 3,309,946 / 3,493, log file parallel write 1,280,055 / 1,389, db file parallel write 259,162 / 257, db file
    parallel read 149,414 / 235: their mean, 1.08 ms, is within 2 % of all the I/O events'. About 5.7 I/Os in
    flight: more than the 3 I/O waits in progress on average, since one 'log file parallel write' or 'db file
    parallel write' waits for several requests at once."""
    iops = (4_434_141 + 4_967_162) / (30.02 * 60)
    top = [(3_309_946, 3_493), (1_280_055, 1_389), (259_162, 257), (149_414, 235)]
    mean_ms = sum(s for _, s in top) / sum(w for w, _ in top) * 1000
    t = derive_targets(SAMPLES / "awr19c_rmgtibp_72337_72338.html", percentile=100)
    assert t.iops == pytest.approx(iops, rel=1e-3)
    assert t.outstanding == pytest.approx(iops * mean_ms / 1000, rel=0.02)
    waiting = sum(s for _, s in top) / (30.02 * 60)   # sessions in these waits at a time, on average
    assert waiting < 3.1 < t.outstanding


def test_whole_ms_and_seconds_keep_the_more_precise_figure() -> None:
    """Statspack (and 11g text) print the average wait in whole ms: 'direct path read 160,620 waits, 34 s, 0 ms'
    took 34 s, not 160,620 x 0 ms; 'log file parallel write 5,226, 31 s, 6 ms' 31 s (1.6 % rounding) rather than
    31.4 s (8 %). An average with its unit (12c on) has two decimals: the finer figure, unless the total
    is large."""
    assert awr_waits.seconds_waited(160_620, "34", "0") == 34
    assert awr_waits.seconds_waited(5_226, "31", "6") == 31
    assert awr_waits.seconds_waited(360_121, "40", "109.72us") == pytest.approx(360_121 * 109.72e-6)
    assert awr_waits.seconds_waited(3_309_946, "3,493", "1.06ms") == 3_493   # 19c: 0.01 % against 0.5 %
    text = (SAMPLES / "sp121_clinprd1_70371_70372.txt").read_text(encoding="utf-8")
    rows = {(r.name, r.waits): r.seconds for r in awr_waits.text_waits(text)}
    assert rows[("direct path read", 160_620)] == 34      # Foreground Wait Events
    assert rows[("log file parallel write", 5_226)] == 31  # Background Wait Events
    assert ("log file sync", 4_491) not in rows            # the commit wait is not an I/O


def test_a_statspack_report_reads_its_foreground_and_background_sections() -> None:
    """sp121: 85.5 requests/s (286,861 + 21,193 over 60.02 min); its I/O waits, largest first: direct path read
    160,620 / 34 s, log file parallel write 5,226 / 31 s, control file parallel write 114 + 1,422 / 1 + 7 s, db file
    sequential read 1,110 + 3,120 / 1 + 3 s, control file sequential read 108,970 + 11,802 / 2 + 0 s: their mean
    of 79 s over 291,364 waits is 0.27 ms; the smaller rows bring it to within 5 %."""
    iops = (286_861 + 21_193) / (60.02 * 60)
    top = [(160_620, 34), (5_226, 31), (114 + 1_422, 1 + 7), (1_110 + 3_120, 1 + 3), (108_970 + 11_802, 2)]
    mean_s = sum(s for _, s in top) / sum(w for w, _ in top)
    t = derive_targets(SAMPLES / "sp121_clinprd1_70371_70372.txt", percentile=100)
    assert t.outstanding == pytest.approx(round(iops * mean_s, 2), abs=0.01 + 0.05 * iops * mean_s)
    assert t.outstanding_from is not None and t.outstanding_from.startswith("Statspack wait events")


def test_rac_instances_in_flight_add_up() -> None:
    """Two instances' reports of the same snapshots: the database keeps the sum of both instances' I/Os in flight.
    11g text cuts long names ('control file sequential re') and goes on under the heading on the next page."""
    one, two = (SAMPLES / f"awr11204_orcl{i}_rac_2_3.txt" for i in (1, 2))
    a = awr_waits.in_flight(one.read_text(encoding="utf-8"), 1.0)
    b = awr_waits.in_flight(two.read_text(encoding="utf-8"), 1.0)
    assert a is not None and b is not None
    assert "control file sequential read" in a.events   # from 'control file sequential re'
    both = derive_targets([one, two], percentile=100)
    first = derive_targets(one, percentile=100)
    second = derive_targets(two, percentile=100)
    assert first.outstanding is not None and second.outstanding is not None and both.outstanding is not None
    assert both.outstanding == pytest.approx(first.outstanding + second.outstanding, abs=0.011)


def test_plan_from_an_awr_report_plans_at_its_depth_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """The 19c report's 5.7 I/Os in flight: plan --from it plans at 6 outstanding I/Os and names where that came
    from; --outstanding overrides it."""
    args = ["plan", "--cloud", "aws", "--capacity", "2T", "--instance", "r7i.4xlarge", "--levels", "gp3",
            "--from", str(SAMPLES / "awr19c_rmgtibp_72337_72338.html")]
    code, out, err = run(args, capsys)
    assert code == 0, err
    said = " ".join(out.split())
    assert "6 outstanding I/Os (the history's: 5.69 in flight" in said
    assert "AWR wait events by Little's law" in said
    code, out, err = run([*args, "--outstanding", "64", "--json"], capsys)
    assert code == 0, err
    assert '"outstanding": 64' in out and '"outstanding_from": "option"' in out
