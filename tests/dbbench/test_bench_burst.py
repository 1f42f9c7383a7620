"""`bench --cloud --layout --instance`: the trio's errors (shared with calibrate), the judgement on given durations,
and each layout's burst_check with its one warning line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.dbbench.burst import inside_burst, measured_span_s
from blockfit.schema.bench import BenchResult, BenchRun, LayoutInfo, MeasureResult, Warmup

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "bench.json"
AWS = ["--cloud", "aws", "--layout", "1x400G@gp3:16000:1000", "--instance", "m6a.xlarge"]  # bursts 30 min
OCI = ["--cloud", "oci", "--layout", "2x500G@balanced", "--instance", "VM.Standard.E3.Flex:12"]  # never bursts


@pytest.mark.parametrize(("command", "args", "needle"), [
    ("bench", ["--cloud", "aws"], "--layout, --instance: expected --cloud, --layout and --instance together"),
    ("bench", ["--layout", "1x400G@gp3"], "--cloud, --instance: expected --cloud, --layout and --instance together"),
    ("bench", AWS[:4], "--instance: expected --cloud, --layout and --instance together"),
    ("bench", [*AWS[:3], "1x400G@nope", *AWS[4:]], "'nope'"),
    ("bench", ["--cloud", "mars", *AWS[2:]], "--cloud 'mars'"),
    ("calibrate", ["--cloud", "aws"], "--layout, --instance: expected --cloud, --layout and --instance together"),
    ("calibrate", ["--sustained"], "--sustained: expected --cloud, --layout and --instance"),
])
def test_a_bad_trio_is_one_line_exit_2_before_any_work(inproc_cli: Any, tmp_path: Path, command: str,
                                                       args: list[str], needle: str) -> None:
    target = tmp_path / "target"
    target.mkdir()
    where = ["--dir", str(target)] if command == "bench" else [str(target)]
    out = inproc_cli(command, *where, *args)
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr and out.stdout == ""
    assert list(target.iterdir()) == []  # no cluster directory, no test file


@pytest.mark.parametrize(("duration", "elapsed", "inside"), [
    (1800.0, 1799.0, True), (1800.0, 1800.0, True), (1800.0, 1801.0, False), (2.0, 272.0, False),
    (None, 10.0, None), (None, 1e6, None),
])
def test_the_judgement_on_given_durations(duration: float | None, elapsed: float, inside: bool | None) -> None:
    assert inside_burst(duration, elapsed) is inside


@given(st.floats(0, 1e7), st.floats(0, 1e7))
def test_inside_exactly_when_the_windows_end_before_the_burst_does(duration: float, elapsed: float) -> None:
    assert inside_burst(duration, elapsed) == (elapsed <= duration)


def _measure(name: str, warm: tuple[float, float] | None, runs: list[tuple[float, float]]) -> MeasureResult:
    warmup = None if warm is None else Warmup(unit="transaction", outcome="steady", steady_windows=2, steady_pct=5,
                                              budget_s=60, started_s=warm[0], seconds=warm[1], work=1, text="")
    return MeasureResult(measure=name, unit="TPS", higher_is_better=True, warmup=warmup,  # type: ignore[arg-type]
                         runs=[BenchRun(index=i + 1, started_s=s, seconds=d, score=1) for i, (s, d) in enumerate(runs)])


def _layout(*measures: MeasureResult) -> LayoutInfo:
    return LayoutInfo(label="A", dir="/x", mount_point="/x", fstype="xfs", source="/dev/x", devices=[],
                      measures=list(measures))


def test_the_span_runs_from_the_first_warm_up_to_the_last_runs_end() -> None:
    """Warm-up at 10 s for 30 s, runs to 120 s; a second measure's warm-up at 200 s, its last run ends at 225 s."""
    info = _layout(_measure("oltp-select", (10, 30), [(50, 20), (100, 20)]),
                   _measure("dss", (200, 10), [(220, 5)]))
    assert measured_span_s(info) == pytest.approx(225 - 10)
    # without a recorded warm-up start (a result from before it was kept): first run to last run
    assert measured_span_s(_layout(_measure("dss", None, [(50, 20), (300, 40)]))) == pytest.approx(290)
    assert measured_span_s(_layout(_measure("dss", (5, 3), []))) == pytest.approx(3)
    assert measured_span_s(_layout()) is None


def _example(shift_last_b: float = 0.0) -> BenchResult:
    """The documented example bench (layouts A and B), B's last run moved later by shift_last_b seconds."""
    r = BenchResult.model_validate_json(EXAMPLE.read_text())
    r.warnings = []
    last = r.layouts[1].measures[-1].runs[-1]
    last.started_s += shift_last_b
    return r


def _prediction(args: list[str]) -> Any:
    from blockfit.cli.burstopts import measured_layout

    return measured_layout(args[1], args[3], args[5])


def test_each_layout_says_whether_its_windows_fell_inside_the_burst() -> None:
    """m6a.xlarge bursts 30 min from full credits: A's ~4.5 min fall inside, B's pushed past 30 min do not."""
    from blockfit.cli.bench import _burst

    r = _example(shift_last_b=2000)
    _burst(r, _prediction(AWS))
    a, b = (lay.burst_check for lay in r.layouts)
    assert a is not None and b is not None
    assert a.duration_s == b.duration_s == pytest.approx(1800)
    assert (a.inside, b.inside) == (True, False)
    assert a.elapsed_s < 1800 < b.elapsed_s
    assert (a.layout, a.instance) == ("1x400G@gp3:16000:1000", "m6a.xlarge")
    assert len(r.warnings) == 1 and "\n" not in r.warnings[0]
    assert "A's windows" in r.warnings[0] and "fell inside it" in r.warnings[0]
    assert "B's windows" in r.warnings[0] and "outlasted it" in r.warnings[0] and "30 min" in r.warnings[0]
    # the field survives the JSON round trip --out and --json write
    again = BenchResult.model_validate_json(r.model_dump_json())
    assert again.layouts[1].burst_check == b


def test_a_layout_that_never_bursts_says_its_figures_are_sustained() -> None:
    from blockfit.cli.bench import _burst

    r = _example()
    _burst(r, _prediction(OCI))
    assert all(lay.burst_check is not None and lay.burst_check.duration_s is None and lay.burst_check.inside is None
               for lay in r.layouts)
    assert len(r.warnings) == 1 and "does not burst" in r.warnings[0]


@pytest.mark.slow
@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0 or not list(Path("/usr/lib/postgresql").glob("*/bin/pgbench")),
                    reason="needs root and PostgreSQL with pgbench")
def test_a_real_bench_spans_its_warm_up_and_runs() -> None:
    """The cheapest real bench (load, one round: seconds): the span starts at the warm-up, not at the first run."""
    base = Path(tempfile.mkdtemp(prefix="blockfit-bench-burst-", dir="/var/tmp"))
    try:
        base.chmod(0o755)
        (base / "a").mkdir(mode=0o755)
        out = subprocess.run([sys.executable, "-m", "blockfit", "bench", "--dir", str(base / "a"), "--workload",
                              "load", "--repeat", "1", "--json", *AWS], capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        lay = BenchResult.model_validate_json(out.stdout).layouts[0]
        check, mr = lay.burst_check, lay.measures[0]
        assert check is not None and mr.warmup is not None and mr.warmup.started_s is not None
        assert check.elapsed_s >= mr.warmup.seconds + sum(r.seconds for r in mr.runs) - 1e-6
        assert check.inside is True and check.duration_s == pytest.approx(1800)
    finally:
        shutil.rmtree(base)
