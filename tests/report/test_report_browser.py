"""Issue 13 acceptance: a report of real results made in this test run — model, plan, build, calibrate on a capped
loop device, diagnose (a short live run with fio loading a loop device, its recording, and a recorded capture from
tests/data) — opened in Debian's chromium: no console errors, every section there, every figure drawn with a
non-zero size, a screenshot that is not blank, and the page prints. The lab guest run is the last test.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from test_report_bench_width import wrapped_cells

from blockfit.testbed.loopdev import BLKIO_ROOT, ThrottledLoops, throttled_loops
from blockfit.units import fmt_num
from support import diagnose_testbed as tb
from support.browser import CHROMIUM, open_report, pixel_variance
from support.lab import assert_nothing_left
from support.report import check_self_contained, cli, cli_json, kinds_in_order

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")]

RECORDING = Path(__file__).parents[1] / "data" / "diagnose" / "lab_stripe_slow_member.jsonl"
IOPS_CAP = 3000  # one gp3 volume's baseline, so `blockfit model` of 1x100G@gp3 describes the capped loop device
BPS_CAP = 60_000_000


def _assert_drawn(html: Path, shot: Path, kinds: list[str]) -> None:
    check_self_contained(html.read_text())
    seen = open_report(html, shot)
    assert seen.console == [], seen.console
    assert seen.sections == kinds
    assert seen.figures and all(w > 100 and h > 50 for _, w, h in seen.figures), seen.figures
    assert len(seen.figures) == html.read_text().count('<figure class="chart"')
    assert pixel_variance(shot) > 200, "the screenshot looks blank"
    assert seen.printed_pdf_bytes > 10_000


@pytest.fixture(scope="module")
def capped() -> Any:
    tb_reason = tb.skip_reason()
    if tb_reason or not (BLKIO_ROOT / "cgroup.procs").exists():
        pytest.skip(tb_reason or "needs cgroup-v1 blkio")
    with throttled_loops(1, 1024**3, read_iops=IOPS_CAP, read_bps=BPS_CAP, name="report-test") as tl:
        yield tl


@pytest.mark.root
def test_every_result_kind_in_one_report_opens_in_chromium(capped: ThrottledLoops, tmp_path: Path) -> None:
    files: list[Path] = []

    def keep(name: str, *args: str) -> dict[str, Any]:
        files.append(tmp_path / name)
        return cli_json(files[-1], *args)

    keep("model.json", "model", "--cloud", "oci", "--layout", "9x500G@balanced", "--instance",
         "VM.Standard.E3.Flex:12", "--max-latency", "2ms")
    plan = keep("plan.json", "plan", "--example", "part3", "--out", str(tmp_path / "plan-out.json"))
    members = plan["candidates"][0]["prediction"]["layout_detail"]["members"]
    keep("build.json", "build", "--plan", str(tmp_path / "plan-out.json"), "--manager", "mdadm",
         "--devices", ",".join(f"/dev/sd{chr(ord('b') + i)}" for i in range(members)), "--out", str(tmp_path / "build"))
    gp3 = keep("gp3.json", "model", "--cloud", "aws", "--layout", "1x100G@gp3", "--instance", "m5.12xlarge")
    assert gp3["max_iops"] == IOPS_CAP
    # calibrate on the capped loop device, with the --report shortcut
    cal_html = tmp_path / "calibrate.html"
    proc = subprocess.run(capped.cgroup.wrap([*tb.BLOCKFIT, "calibrate", capped.paths[0], "--duration", "8s",
                                              "--io-sizes", "8k,512k", "--json", "--report", str(cal_html)]),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "calibrate.json").write_text(proc.stdout)
    files.append(tmp_path / "calibrate.json")
    _assert_drawn(cal_html, tmp_path / "calibrate.png", ["calibrate"])
    # a short live diagnose while fio reads a loop device, recorded, with the --report shortcut
    diag_html, capture = tmp_path / "diagnose.html", tmp_path / "capture.jsonl"
    with tb.workdir() as work, tb.loop_device(work) as dev:
        diagnosis, _ = tb.diagnose_during([f"--filename=/dev/{dev}", "--name=r", "--rw=randread", "--bs=4k",
                                           "--direct=1", "--iodepth=4", "--ioengine=libaio"], [dev], 3,
                                          record=capture, extra=["--report", str(diag_html)])
    (tmp_path / "diagnose.json").write_text(json.dumps(diagnosis))
    files += [tmp_path / "diagnose.json", capture, RECORDING]
    _assert_drawn(diag_html, tmp_path / "diagnose.png", ["diagnose"])
    # everything together, in the order given
    out = tmp_path / "all.html"
    proc = cli("report", *map(str, files), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    kinds = ["model", "plan", "build", "model", "calibrate", "diagnose", "diagnose", "diagnose"]
    assert kinds_in_order(out.read_text()) == kinds
    _assert_drawn(out, tmp_path / "all.png", kinds)
    # the model of the same cap is drawn over the measured curve; the 9-volume one is not
    assert "model: 1x100G@gp3" in out.read_text() and "model: 9x500G@balanced" not in out.read_text()


@pytest.mark.lab
def test_lab_result_report_opens_in_chromium(small_lab: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    """The page `lab --report` wrote for a real guest run (the suite's shared small run: mdadm + ext4)."""
    result, runs, html = small_lab
    assert_nothing_left(runs)
    _assert_drawn(html, tmp_path / "lab.png", ["lab"])
    text = html.read_text()
    assert fmt_num(result["measured_iops"]) in text and result["layout"] in text


@pytest.mark.root
def test_bench_result_report_opens_in_chromium(tmp_path: Path) -> None:
    """A real two-layout `blockfit bench` (DSS only, two runs each), drawn from its --report shortcut."""
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        pytest.skip("needs PostgreSQL")
    html = tmp_path / "bench.html"
    with tempfile.TemporaryDirectory(prefix="blockfit-report-bench-") as tmp:  # pytest's tmp is 0700: not for postgres
        Path(tmp).chmod(0o755)
        dirs = [Path(tmp) / "a", Path(tmp) / "b"]
        for d in dirs:
            d.mkdir(mode=0o755)
        proc = cli("bench", "--dir", f"{dirs[0]}=A", "--dir", f"{dirs[1]}=B", "--workload", "dss", "--repeat", "2",
                   "--json", "--report", str(html), timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert [p.name for d in dirs for p in d.iterdir()] == []  # the bench removed its clusters
    result = json.loads(proc.stdout)
    _assert_drawn(html, tmp_path / "bench.png", ["bench"])
    text = html.read_text()
    assert text.count('<figure class="chart"') == len(result["measures"])
    for c in result["comparisons"]:  # each verdict, in the result's own words, is on the page
        assert c["text"].replace("'", "&#39;") in text
    assert wrapped_cells(html) == []   # at 1,280 px no cell of its tables is a word to a line
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
