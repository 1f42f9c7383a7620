"""blockfit report from real results made here (model, plan, build, a diagnose recording): the page parses as
HTML5, references nothing outside itself, has a section per input with summaries taken from the results, and
bad inputs fail with one line and exit 2 leaving nothing at -o. The browser checks are in test_report_browser.py.
"""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path
from typing import Any

import pytest

from blockfit.cli import main
from blockfit.units import fmt_money, fmt_num, fmt_pct
from support.report import check_self_contained, cli, cli_json, kinds_in_order, section_html

RECORDING = Path(__file__).parents[1] / "data" / "diagnose" / "lab_stripe_slow_member.jsonl"
MODEL = ("model", "--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12",
         "--max-latency", "2ms")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("results")
    model = cli_json(d / "model.json", *MODEL)
    plan = cli_json(d / "plan.json", "plan", "--example", "part3", "--out", str(d / "plan-out.json"))
    members = plan["candidates"][0]["prediction"]["layout_detail"]["members"]
    devices = ",".join(f"/dev/oracleoci/oraclevd{chr(ord('b') + i)}" for i in range(members))
    build = cli_json(d / "build.json", "build", "--plan", str(d / "plan-out.json"), "--manager", "lvm",
                     "--devices", devices, "--mount", "/u01", "--out", str(d / "build"))
    return {"dir": d, "model": model, "plan": plan, "build": build}


def test_fmt_num_separators_and_significant_digits() -> None:
    assert fmt_num(175781.25) == "175,781"
    assert fmt_num(1440.0) == "1,440"
    assert fmt_num(12.345) == "12.3"
    assert fmt_num(0.012345) == "0.0123"
    assert fmt_num(0) == "0" and fmt_num(None) == "–"
    assert fmt_money(195.84) == "$195.84" and fmt_money(None) == "unknown"
    assert fmt_pct(0.074, signed=True) == "+7.4 %"


def test_model_plan_build_report_is_self_contained_with_a_section_each(results: dict[str, Any]) -> None:
    d: Path = results["dir"]
    out = d / "report.html"
    proc = cli("report", str(d / "model.json"), str(d / "plan.json"), str(d / "build.json"), "-o", str(out),
               "--title", "Part 3 on OCI")
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    check_self_contained(html)
    assert kinds_in_order(html) == ["model", "plan", "build"]
    assert "<title>Part 3 on OCI</title>" in html
    model, plan, build = results["model"], results["plan"], results["build"]
    m = section_html(html, "model")
    # the summary is made from the result's own figures
    summary = re.search(r'<p class="summary">(.*?)</p>', m, re.S)
    assert summary is not None
    assert fmt_num(model["max_iops"]) in summary.group(1) and fmt_money(model["cost"]["total"]) in summary.group(1)
    assert m.count("<svg") == 2  # limits bars + queueing curve
    # header + limits; header + line items + storage, compute and total
    assert m.count("<tr") == len(model["limits"]) + 1 + len(model["cost"]["items"]) + 4
    p = section_html(html, "plan")
    best = plan["candidates"][0]
    assert best["layout"] in p and fmt_num(best["prediction"]["max_iops"]) in p and p.count("<svg") == 1
    b = section_html(html, "build")
    assert b.count("<details>") == len(build["steps"])
    assert "<svg" not in b
    # the safety checks listed are the build's own, in plain words (never shell text scraped from the scripts)
    listed = b.split("What the scripts check before they change anything", 1)[1].split("</ul>", 1)[0]
    checks = [html_module.unescape(c) for c in re.findall(r"<li>(.*?)</li>", listed, re.S)]
    assert len(checks) >= 5 and checks == build["safety_checks"]
    assert not any(ch in c for c in checks for ch in "$`{}")


def test_png_option_writes_every_figure(results: dict[str, Any], tmp_path: Path) -> None:
    d: Path = results["dir"]
    proc = cli("report", str(d / "model.json"), str(d / "plan.json"), "-o", str(tmp_path / "r.html"),
               "--png", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    pngs = [Path(p) for p in json.loads(proc.stdout)["png"]]
    assert len(pngs) == (tmp_path / "r.html").read_text().count("<svg") == 3
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_a_page_that_cannot_be_written_leaves_no_png_behind(results: dict[str, Any], tmp_path: Path) -> None:
    """-o in /proc passes the up-front checks as root (the directory is "writable") and fails only at write time:
    the PNGs must not outlive the page they belong to, nor their staging files."""
    d: Path = results["dir"]
    pngs = tmp_path / "png"
    pngs.mkdir()
    proc = cli("report", str(d / "model.json"), "-o", "/proc/blockfit-report.html", "--png", str(pngs))
    assert proc.returncode == 2, proc.stderr
    assert "-o" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert list(pngs.iterdir()) == []


def test_diagnose_recording_is_replayed_to_a_timeline_per_device(tmp_path: Path) -> None:
    out = tmp_path / "d.html"
    proc = cli("report", str(RECORDING), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    check_self_contained(html)
    replayed = json.loads(cli("diagnose", "--replay", str(RECORDING), "--json").stdout)
    busy = [dev["device"] for dev in replayed["devices"] if dev["active_intervals"] > 0]
    figures = re.findall(r'<figure class="chart" data-name="\d+-diagnose-([^"]+)">(.*?)</figure>', html, re.S)
    assert sorted(name for name, _ in figures) == sorted(busy)
    flagged = {f["device"]: f["kind"].replace("_", " ") for f in replayed["findings"]}
    assert flagged, "the recording has a slow stripe member"
    for name, body in figures:  # each finding is marked on its own device's timeline, and only there
        assert (flagged.get(name, "\0") in body) == (name in flagged)


def test_live_diagnosis_json_without_samples_gets_device_bars(tmp_path: Path) -> None:
    diag = cli_json(tmp_path / "diag.json", "diagnose", "--replay", str(RECORDING))
    assert cli("report", str(tmp_path / "diag.json"), "-o", str(tmp_path / "d.html")).returncode == 0
    html = (tmp_path / "d.html").read_text()
    assert html.count("<svg") == 1 and "diagnose-devices" in html
    assert all(f["summary"].split(":")[0] in html for f in diag["findings"])


def test_report_shortcut_on_model(tmp_path: Path) -> None:
    out = tmp_path / "m.html"
    proc = cli(*MODEL, "--json", "--report", str(out))
    assert proc.returncode == 0, proc.stderr
    pred = json.loads(proc.stdout)  # stdout is still only the JSON
    html = out.read_text()
    check_self_contained(html)
    assert kinds_in_order(html) == ["model"] and fmt_num(pred["max_iops"]) in html


def test_report_shortcut_bad_path_fails_before_work(tmp_path: Path) -> None:
    proc = cli(*MODEL, "--report", str(tmp_path / "missing" / "m.html"))
    assert proc.returncode == 2 and "--report" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def _bad_inputs(model_text: str) -> dict[str, str]:
    model = json.loads(model_text)
    return {
        "malformed": "{this is not json",
        "truncated": model_text[: len(model_text) // 2],
        "foreign": json.dumps({"name": "some other tool", "iops": 5}),
        "a list": "[1, 2, 3]",
        "unknown kind": json.dumps({**model, "kind": "teleport"}),
        "newer schema": json.dumps({**model, "schema_version": 99}),
        "wrong fields": json.dumps({**model, "max_iops": "lots"}),
        "empty": "",
    }


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The CLI's entry point in this process (the many bad-input cases need no process each): exit code, stderr."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    return int(exited.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize("case", ["malformed", "truncated", "foreign", "a list", "unknown kind", "newer schema",
                                  "wrong fields", "empty"])
def test_bad_input_one_line_exit_2_nothing_written(results: dict[str, Any], tmp_path: Path, case: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / f"{case.replace(' ', '_')}.json"
    bad.write_text(_bad_inputs((results["dir"] / "model.json").read_text())[case])
    out = tmp_path / "report.html"
    code, err = _main(capsys, "report", str(results["dir"] / "model.json"), str(bad), "-o", str(out))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and str(bad) in lines[0], err
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]
    out.write_text("previous report")  # an existing report is left as it was
    assert _main(capsys, "report", str(bad), "-o", str(out))[0] == 2
    assert out.read_text() == "previous report"


def test_bad_input_from_a_real_process(tmp_path: Path) -> None:
    bad = tmp_path / "truncated.json"
    bad.write_text('{"kind": "model", "schema_version": 1, "cloud": "oc')
    proc = cli("report", str(bad), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and str(bad) in proc.stderr
    assert "Traceback" not in proc.stderr and list(tmp_path.iterdir()) == [bad]


def test_missing_file_and_bad_output_path(results: dict[str, Any], tmp_path: Path) -> None:
    proc = cli("report", str(tmp_path / "nope.json"), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and "nope.json" in proc.stderr and "not found" in proc.stderr
    proc = cli("report", str(results["dir"] / "model.json"), "-o", str(tmp_path / "no" / "r.html"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    # a device node is refused, not read: /dev/zero would be read until memory runs out
    proc = cli("report", "/dev/zero", "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and "/dev/zero: is a device" in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["plan --out", "--report"])
def test_unwritable_output_directory_is_refused_before_any_work(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                option: str) -> None:
    """The shared target check (files.check_target) refuses a directory that takes no new file, for every output."""
    import os

    where = tmp_path / "ro"
    where.mkdir()
    real = os.access  # root writes anywhere whatever the mode bits: refuse this one directory instead
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != where and real(p, mode, **kw))
    target = str(where / ("plan.json" if option == "plan --out" else "plan.html"))
    code = 0
    try:
        main(["plan", "--example", "part3", "--out" if option == "plan --out" else "--report", target])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    assert code == 2 and "not writable" in out.err and len(out.err.strip().splitlines()) == 1, out.err
    assert list(where.iterdir()) == []


def test_kept_examples_render(tmp_path: Path) -> None:
    """docs/examples (real calibrate and bench results, the bench and README screenshot's inputs) still render."""
    examples = Path(__file__).parents[2] / "docs" / "examples"
    cal = json.loads((examples / "calibrate.json").read_text())
    bench = json.loads((examples / "bench.json").read_text())
    out = tmp_path / "e.html"
    proc = cli("report", str(examples / "calibrate.json"), str(examples / "bench.json"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    check_self_contained(html)
    assert kinds_in_order(html) == ["calibrate", "bench"]
    c = section_html(html, "calibrate")
    assert len(cal["targets"]) > 1 and "calibrate-shares" in c  # a simulated stripe shows each member's share
    assert fmt_num(cal["max_iops"]) in c
    assert section_html(html, "bench").count('<figure class="chart"') == len(bench["measures"])
