"""The plan report's history figure and provenance (issue 23): drawn from plan.json's requirements.history."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from blockfit.cli import main
from support.awr_layout import awr_spool


def test_plan_report_draws_the_history_with_percentile_target_and_peak_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "io.csv").write_text(awr_spool("PROD", 42, 2, 73, datetime(2025, 1, 6)))
    main(["plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8", "--from",
          str(tmp_path / "io.csv"), "--percentile", "p99", "--headroom", "25%", "--out", str(tmp_path / "p.json"),
          "--json"])
    hist = json.loads(capsys.readouterr().out)["requirements"]["history"]
    assert hist["samples"] == 72 and len(hist["series"]) == 72 and hist["percentile_name"] == "p99"
    main(["report", str(tmp_path / "p.json"), "-o", str(tmp_path / "r.html"), "--png", str(tmp_path)])
    page = (tmp_path / "r.html").read_text()
    assert page.count("<svg") == 2 and (tmp_path / "02-plan-history.png").stat().st_size > 10_000
    assert "p99" in page and "peak window" in page and "target (+25 %)" in page
    assert "Where the targets came from" in page and "oracle-spool" in page
    assert "instance 1, instance 2" in page
    assert f"{hist['target_iops']:,.0f}" in page
