"""The report's lab-bench section, without the guest: a LabBenchResult assembled the way `run_lab_bench` assembles it
(the model's sides, scales, layout caps and ratios from blockfit.lab.bench) around a real BenchResult
(docs/examples/bench.json, a two-layout `blockfit bench` run kept for the README), and the lab CLI's rule that a
report which cannot be written never loses the measured result.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

from blockfit.cli import main
from blockfit.lab import bench as lab_bench
from blockfit.lab.run import resolve
from blockfit.lab.scale import Scale, choose_scale, instance_throttle
from blockfit.schema.bench import BenchResult
from blockfit.schema.lab import LabBenchResult, LabStep
from blockfit.units import fmt_times
from support.lab import lab_request
from support.report import check_self_contained, cli, kinds_in_order, section_html

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "bench.json"
LAB_ARGS = ("lab", "--cloud", "oci", "--layout", "4x1000G@balanced", "--instance", "VM.Standard.E3.Flex:12",
            "--bench", "oltp,dss")


def lab_bench_result(balance: dict[str, float] | None = None) -> LabBenchResult:
    """The single 4,000 GB volume (A) against the 4 x 1000 GB LVM stripe (B) as `run_lab_bench` would report them,
    with the example bench's measurements (its layouts are labelled A and B, so the sides take those labels)."""
    bench = BenchResult.model_validate_json(EXAMPLE.read_text())
    req = lab_bench.LabBenchRequest(lab=lab_request(cloud="oci", layout="4x1000G@balanced",
                                                   instance="VM.Standard.E3.Flex:12"), workloads="oltp,dss")
    subject = resolve(req.lab)
    base, other = lab_bench.sides(req, subject)
    base, other = dataclasses.replace(base, label="A"), dataclasses.replace(other, label="B")
    scale = Scale(
        iops=choose_scale([base.iops, other.iops], [], lab_bench.BENCH_IOPS_BUDGET, lab_bench.BENCH_MBPS_BUDGET),
        mbps=choose_scale([], [base.mbps, other.mbps], lab_bench.BENCH_IOPS_BUDGET, lab_bench.BENCH_MBPS_BUDGET))
    instance = instance_throttle(subject.stripe, scale)
    unit = lab_bench.bench_stripe(lab_bench._member_cap(other, scale))
    b = lab_bench._layout_info(base, scale, instance, bench, unit)
    o = lab_bench._layout_info(other, scale, instance, bench, unit)
    if balance is not None:  # the example bench ran on one host device: no member counts to derive it from
        o = o.model_copy(update={"member_balance": balance})
    return LabBenchResult(
        scale=scale.iops, mbps_scale=scale.mbps, cloud=subject.cloud, instance=subject.instance.spec,
        versus="single", baseline=b, other=o, ratios=lab_bench.ratios(base, other, bench), bench=bench,
        cap_changes=["lift ok", "apply ok"],
        steps=[LabStep(name="build-A", ok=True), LabStep(name="build-B", ok=True)],
        kernel="6.1.0-28-amd64", guest_seconds=512.3)


def figures(html: str) -> list[tuple[str, str]]:
    """(data-name, svg) of every figure."""
    return re.findall(r'<figure class="chart" data-name="([^"]+)">\s*(<svg.*?</svg>)', html, flags=re.S)


def svg_size(svg: str) -> tuple[float, float]:
    m = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"[^>]*\bheight="([\d.]+)pt"', svg)
    assert m, svg[:300]
    return float(m.group(1)), float(m.group(2))


@pytest.fixture
def result_file(tmp_path: Path) -> tuple[LabBenchResult, Path]:
    r = lab_bench_result(balance={"oltp-select": 0.68, "oltp-tpcb": 0.91})
    path = tmp_path / "lab-bench.json"
    path.write_text(r.model_dump_json(indent=2))  # what `blockfit lab --bench --json` prints
    return r, path


def test_report_on_lab_bench_json_draws_ratios_balance_and_the_bench(result_file: tuple[LabBenchResult, Path],
                                                                     tmp_path: Path) -> None:
    r, path = result_file
    out = tmp_path / "r.html"
    proc = cli("report", str(path), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    check_self_contained(html)
    assert kinds_in_order(html) == ["lab-bench"]
    s = section_html(html, "lab-bench")
    summary = re.search(r'<p class="summary">(.*?)</p>', s, flags=re.S)
    assert summary is not None
    text = summary.group(1)
    x = next(x for x in r.ratios if x.measure == "oltp-select")
    assert x.predicted_ratio == pytest.approx(4.0, rel=0.01)  # 4 members at the per-volume cap against one
    for needle in ("oltp-select", fmt_times(x.predicted_ratio), fmt_times(x.measured_ratio), "no winner called",
                   "scaled by", "Member balance", "B oltp-select 0.68"):
        assert needle in text, (needle, text)
    names = [name for name, _ in figures(s)]
    assert names[0].endswith("lab-bench-ratios") and names[1].endswith("lab-bench-balance")
    assert len(names) == 2 + len(r.bench.measures)  # the inner bench's A/B bars, one per measure, drawn too
    for name, svg in figures(s):
        w, h = svg_size(svg)
        assert w > 0 and h > 0 and svg.count("<path") > 3, name
    assert "Device evidence under each verdict" in s  # the bench's evidence table, from report/bench.py
    assert "Layouts as built in the guest" in s and "/mnt/blockfit-B" in s
    assert "4-way lvm stripe of 256k units" in text  # the bench's unit, scaled with its data (not the plan's 4m)


def test_without_member_balance_there_is_no_balance_figure() -> None:
    from blockfit.report.figures import FigureSink
    from blockfit.report.lab_bench import section

    r = lab_bench_result()
    assert r.other.member_balance == {}
    s = section(r, "x.json", FigureSink())
    assert [f.name.split("-", 1)[1] for f in s.figures][:1] == ["lab-bench-ratios"]
    assert not any("balance" in f.name for f in s.figures)
    assert "Member balance" not in s.summary


def test_lab_bench_json_with_other_results_in_one_report(result_file: tuple[LabBenchResult, Path],
                                                         tmp_path: Path) -> None:
    _, path = result_file
    out = tmp_path / "r.html"
    proc = cli("report", str(EXAMPLE), str(path), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    check_self_contained(html)  # SVG ids stay unique across the two sections' figures
    assert kinds_in_order(html) == ["bench", "lab-bench"]


def _run_lab(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`blockfit lab --bench ARGS` in process, with a tripwire where the guest run would start (the real run, --report
    included, is tests/lab/test_lab_bench.py's slow guest test)."""
    def tripwire(_req: object, _say: object) -> LabBenchResult:
        raise AssertionError("the guest run started")

    monkeypatch.setattr("blockfit.cli.lab.run_lab_bench", tripwire)
    code = 0
    try:
        main([*LAB_ARGS, *args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_unwritable_report_directory_fails_before_the_run(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    where = tmp_path / "ro"
    where.mkdir()
    real = os.access  # root writes anywhere whatever the mode bits: refuse this one directory instead
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != where and real(p, mode, **kw))
    code, out, err = _run_lab(monkeypatch, capsys, "--report", str(where / "lab.html"))
    assert code == 2 and out == ""
    assert "not writable" in err and len(err.strip().splitlines()) == 1, err


def test_summary_gives_the_members_cap_use_beside_their_rate() -> None:
    """The lab bench's sentence walks from the model's ratio to the measured one: the members' rate, then how much
    of their caps that was (issue 28's 3-way case: 94 % against the single volume's 100 %); without cap use (no
    caps known) it stops at the rate."""
    from blockfit.report.lab_bench import summary

    r = lab_bench_result()
    x = r.ratios[0].model_copy(update={"device_ratio": 2.8, "baseline_cap_use": 1.0, "other_cap_use": 0.937})
    text = summary(r.model_copy(update={"ratios": [x]}))
    assert f"its members delivered 2.8× the {'IOPS' if x.basis == 'iops' else 'MB/s'} of A's (94 % of their " \
           "caps, A's 100 %)" in text, text
    bare = summary(r.model_copy(update={"ratios": [x.model_copy(update={"other_cap_use": None})]}))
    assert "of A's;" in bare and "of their caps" not in bare, bare
