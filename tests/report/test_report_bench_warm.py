"""The bench section shows what issue 28 added: each layout's warm-up by evidence and drift, the precision the
ratio reached, and the model's ratio beside the measured one; a bench.json from before it still reads."""

from __future__ import annotations

import json
from pathlib import Path

from blockfit.schema.bench import BenchResult, Drift, Warmup, WarmupWindow
from blockfit.units import fmt_num
from support.report import check_self_contained, cli, section_html

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "bench.json"


def test_a_bench_json_from_before_warm_up_by_evidence_still_reads() -> None:
    raw = json.loads(EXAMPLE.read_text())
    assert any(m.get("warmup") for lay in raw["layouts"] for m in lay["measures"])  # one fixed warm-up run each
    r = BenchResult.model_validate(raw)
    assert all(m.warmup is None for lay in r.layouts for m in lay.measures)


def _with_evidence() -> BenchResult:
    r = BenchResult.model_validate_json(EXAMPLE.read_text())
    for i, lay in enumerate(r.layouts):
        for m in lay.measures:
            windows = [WarmupWindow(seconds=6, work=1200 - 100 * k, throughput=200 + k, device_ios=2000,
                                    ios_per_unit=1.9 - 0.2 * k) for k in range(4)]
            m.warmup = Warmup(unit="transaction", windows=windows, outcome="steady" if i == 0 else "budget",
                              steady_windows=3, steady_pct=5, budget_s=150, seconds=24, work=4200,
                              text="steady after 4 windows" if i == 0 else "not steady when its 150 s budget ran out")
            m.drift = Drift(change_pct=12.5 if i == 0 else 0.4, first_last_pct=14.0, t=5.1, drifts=i == 0)
    c = r.comparisons[0]
    c.model_ratio, c.model_basis, c.precision_pct, c.half_width_pct, c.stopped = 4.0, "iops", 10, 7.5, "precision"
    return r


def test_report_shows_warm_up_drift_precision_and_the_models_ratio(tmp_path: Path) -> None:
    r = _with_evidence()
    src = tmp_path / "bench.json"
    src.write_text(r.model_dump_json())
    out = tmp_path / "bench.html"
    proc = cli("report", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    check_self_contained(html)
    s = section_html(html, "bench")
    assert "Warm-up by evidence" in s and ">steady<" in s and ">budget<" in s
    assert "+12.5 %" in s and ">yes<" in s  # the drifting layout's trend, flagged
    assert "±7.5 %" in s and "±10 %" in s and ">precision<" in s
    assert "model&#39;s ratio from the known iops caps: 4×" in s or "model's ratio from the known iops caps: 4×" in s
    assert "Warm-up not steady within its budget" in s and fmt_num(4.0) in s
