"""One regression test per defect of issue 26 (findings 1-8 and 11), each failing on the code before the fix.

The cases are the issue's own: the same command, the same kind of file. Most run the CLI in this process; the
signal cases hold a child at its rename (lifecycle.checkpoint) and send the signal there.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from blockfit.cli import main
from support.faults import (
    DEVICES,
    PART3,
    RECORDING,
    check_outcome,
    fill_up,
    held_child,
    interrupt_line,
    needs_root,
    read_only,
    run,
    signal_when_held,
    snapshot,
    tmpfs,
)

MODEL = ["model", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E4.Flex:4"]
BUILD = ["build", "--manager", "lvm", "--devices", DEVICES]


def _stdout_of(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*args, "--json"])
    return out.getvalue()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("results")
    (d / "plan.json").write_text(_stdout_of(*PART3))
    (d / "model.json").write_text(_stdout_of(*MODEL))
    return {"dir": d, "plan": json.loads((d / "plan.json").read_text()),
            "model": json.loads((d / "model.json").read_text())}


def _one_line(err: str, *needles: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and "Traceback" not in err and all(n in lines[0] for n in needles)


# ---------------------------------------------------------------- 1. an output can be an input

@pytest.mark.parametrize("case", ["report -o its input", "plan --out its --from", "plan --out its --report"])
def test_finding_1_an_output_that_is_an_input_is_refused(case: str, results: dict[str, Any], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(results["dir"] / "plan.json", tmp_path / "plan.json")
    (tmp_path / "hist.csv").write_text("timestamp,r,w,rm,wm\n1,100,50,1,1\n2,200,50,2,1\n")
    (tmp_path / "both.html").write_text("old\n")
    args = {"report -o its input": ["report", str(tmp_path / "plan.json"), "-o", str(tmp_path / "plan.json")],
            "plan --out its --from": ["plan", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8", "--from",
                                      str(tmp_path / "hist.csv"), "--out", str(tmp_path / "hist.csv")],
            "plan --out its --report": [*PART3, "--out", str(tmp_path / "both.html"), "--report",
                                        str(tmp_path / "both.html")]}[case]
    before = snapshot(tmp_path)
    result = run(capsys, *args)
    assert result.code == 2 and _one_line(result.err, "same file"), result.err
    check_outcome(before, snapshot(tmp_path), result)


# ---------------------------------------------------------------- 2. --json to a full disk

@needs_root
@pytest.mark.parametrize("free", [0, 4096], ids=["no-space", "4KiB-free"])
@pytest.mark.parametrize("command", ["plan", "model", "catalog show"])
def test_finding_2_json_to_a_full_disk_is_exit_4(command: str, free: int, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    args = {"plan": [*PART3, "--json"], "model": [*MODEL, "--json"],
            "catalog show": ["catalog", "show", "aws", "--json"]}[command]
    with tmpfs(tmp_path / "full", free=free) as full:
        stream = io.TextIOWrapper(io.FileIO(full / "p.json", "w"), encoding="utf-8", write_through=True)
        try:
            result = run(capsys, *args, stdout=stream)  # stdout as PYTHONUNBUFFERED makes it
        finally:
            with contextlib.suppress(OSError):
                stream.close()
    assert result.code == 4 and _one_line(result.err, "stdout", "No space left"), (result.code, result.err)


# ---------------------------------------------------------------- 3. SIGTERM leaves temp files

@pytest.mark.parametrize("writer", ["plan --out", "report -o --png", "build"])
def test_finding_3_sigterm_at_the_rename_leaves_no_temp_file(writer: str, results: dict[str, Any],
                                                             tmp_path: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "old.json").write_text("old\n")
    args = {"plan --out": [*PART3, "--out", str(d / "old.json")],
            "report -o --png": ["report", str(results["dir"] / "plan.json"), "-o", str(d / "r.html"), "--png",
                                str(d)],
            "build": [*BUILD, "--plan", str(results["dir"] / "plan.json"), "--out", str(d / "scripts")]}[writer]
    before = snapshot(d)
    marker = tmp_path / "held"
    result = signal_when_held(held_child(marker, "rename:1", *args), marker, signal.SIGTERM)
    assert marker.exists(), f"never held at the rename: exit {result.code} {result.err}"
    assert result.code == 130 and interrupt_line(result.err, signal.SIGTERM), (result.code, result.err)
    check_outcome(before, snapshot(d), result)


# ---------------------------------------------------------------- 4. build is not atomic

@needs_root
@pytest.mark.parametrize("fault", ["full disk", "read-only", "parent is a file", "README.md is a directory"])
def test_finding_4_build_fails_in_one_line_and_leaves_the_folder_as_it_was(fault: str, results: dict[str, Any],
                                                                           tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    plan = str(results["dir"] / "plan.json")
    where = tmp_path / "where"
    with contextlib.ExitStack() as stack:
        if fault == "full disk":
            stack.enter_context(tmpfs(where, free=0))
            out = where / "scripts"
        elif fault == "read-only":
            (tmp_path / "src").mkdir()
            stack.enter_context(read_only(tmp_path / "src", where))
            out = where / "scripts"
        elif fault == "parent is a file":
            where.write_text("a file\n")
            out = where / "scripts"
        else:
            out = where / "scripts"
            main([*BUILD, "--plan", plan, "--out", str(out), "--manager", "mdadm"])
            (out / "README.md").unlink()
            (out / "README.md").mkdir()
        before = snapshot(tmp_path)
        result = run(capsys, *BUILD, "--plan", plan, "--out", str(out), "--force")
        after = snapshot(tmp_path)
    assert result.code == 2 and _one_line(result.err, "--out"), result.err
    check_outcome(before, after, result)


def test_finding_4_concurrent_builds_into_one_new_folder_never_mix(results: dict[str, Any], tmp_path: Path) -> None:
    """lvm and mdadm builds into one new folder at once, five times: one succeeds, the other is refused, and the
    folder holds one build's scripts (20-lvm.sh or 20-mdadm.sh, never both)."""
    plan = str(results["dir"] / "plan.json")
    for attempt in range(5):
        out = tmp_path / f"scripts{attempt}"
        codes: dict[str, int] = {}

        def build(manager: str, out: Path = out, codes: dict[str, int] = codes) -> None:
            from blockfit.documents import read_plan
            from blockfit.emit import build as build_scripts
            try:
                build_scripts(read_plan(Path(plan)), manager=manager, devices=DEVICES.split(","), out_dir=out)
                codes[manager] = 0
            except Exception:  # the refusal of the second build
                codes[manager] = 2

        threads = [threading.Thread(target=build, args=(m,)) for m in ("lvm", "mdadm")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        scripts = {p.name for p in out.iterdir()} & {"20-lvm.sh", "20-mdadm.sh"}
        assert len(scripts) == 1 and sorted(codes.values()) == [0, 2], (attempt, scripts, codes)


# ---------------------------------------------------------------- 5. diagnose --record

@needs_root
@pytest.mark.parametrize("fault", ["read-only", "full disk"])
def test_finding_5_record_on_a_bad_target_fails_in_one_line_without_a_part_file(
        fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "where"
    with contextlib.ExitStack() as stack:
        if fault == "read-only":
            (tmp_path / "src").mkdir()
            stack.enter_context(read_only(tmp_path / "src", where))
        else:
            stack.enter_context(tmpfs(where, free=0))
        before = snapshot(tmp_path)
        result = run(capsys, "diagnose", "--duration", "1s", "--interval", "0.5s", "--record", str(where / "c.jsonl"))
        after = snapshot(tmp_path)
    assert result.code == 2 and _one_line(result.err, "--record"), result.err
    check_outcome(before, after, result)


# ---------------------------------------------------------------- 6. tracebacks on malformed input

DEEP = "[" * 100_000 + "]" * 100_000


def _iostat(disk: Any) -> str:
    return json.dumps({"sysstat": {"hosts": [{"statistics": [{"timestamp": f"12/01/26 00:00:0{k}", "disk": disk}
                                                             for k in range(3)]}]}})


HOSTILE: dict[str, tuple[str, str | bytes]] = {
    # case: (the command, by its input's role; the file's content)
    "report kind list": ("report", '{"kind": ["plan"]}'),
    "report kind object": ("report", '{"kind": {}}'),
    "report deep": ("report", DEEP),
    "plan --from deep": ("plan --from", "{" + '"a":{' * 50_000 + "}" * 50_001),
    "build --plan deep": ("build --plan", DEEP),
    "diagnose --replay deep": ("diagnose --replay", '{"type": "header", "x": ' + DEEP + "}"),
    "iostat disk object": ("plan --from", _iostat({"sda": 1})),
    "iostat disk string": ("plan --from", _iostat("sda")),
    "iostat disk null": ("plan --from", _iostat(None)),
    "iostat disk ints": ("plan --from", _iostat([1, 2, 3])),
    "csv field over 131072": ("plan --from", "timestamp,r,w,rm,wm\n1," + "9" * 140_000 + ",1,1,1\n"),
    "replay utf-16": ("diagnose --replay", RECORDING.read_text().encode("utf-16")),
    "replay binary": ("diagnose --replay", bytes(range(256)) * 40),
}


def _hostile_args(role: str, path: Path, tmp_path: Path) -> list[str]:
    return {"report": ["report", str(path), "-o", str(tmp_path / "r.html")],
            "plan --from": ["plan", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8", "--from", str(path)],
            "plan --from vdb": ["plan", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8", "--from", str(path),
                                "--devices", "vdb"],
            "build --plan": [*BUILD, "--plan", str(path), "--out", str(tmp_path / "scripts")],
            "diagnose --replay": ["diagnose", "--replay", str(path)]}[role]


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_finding_6_malformed_input_is_one_line_exit_2(case: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    role, content = HOSTILE[case]
    path = tmp_path / "input"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    before = snapshot(tmp_path)
    result = run(capsys, *_hostile_args(role, path, tmp_path))
    assert result.code == 2 and _one_line(result.err, str(path)), result.err
    check_outcome(before, snapshot(tmp_path), result)


@pytest.mark.parametrize("spec", ["layout", "ocpus"])
def test_finding_6_numbers_with_thousands_of_digits_are_one_line(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    digits = "9" * 5000
    args = (["model", "--layout", f"{digits}x1T@balanced", "--instance", "VM.Standard.E4.Flex:4"] if spec == "layout"
            else ["model", "--layout", "1x1T@balanced", "--instance", f"VM.Standard.E4.Flex:{digits}"])
    result = run(capsys, *args)
    assert result.code == 2 and _one_line(result.err), result.err


def test_finding_6_a_png_name_that_is_a_directory_changes_nothing(results: dict[str, Any], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pngs = tmp_path / "png"
    pngs.mkdir()
    (pngs / "01-plan-front.png").mkdir()  # the first figure's name
    (tmp_path / "r.html").write_text("old page\n")
    before = snapshot(tmp_path)
    result = run(capsys, "report", str(results["dir"] / "plan.json"), str(results["dir"] / "model.json"), "-o",
                 str(tmp_path / "r.html"), "--png", str(pngs))
    assert result.code == 2 and _one_line(result.err, "--png"), result.err
    check_outcome(before, snapshot(tmp_path), result)


# ---------------------------------------------------------------- 7. impossible results accepted

def _recording(times: list[str]) -> str:
    """The first three samples of a real recording, their times replaced by TIMES (JSON number text)."""
    lines = RECORDING.read_text().splitlines()
    samples = [json.dumps({**json.loads(line), "t": "@T@"}).replace('"@T@"', t) for line, t in
               zip(lines[1:4], times, strict=True)]
    return "\n".join([lines[0], *samples]) + "\n"


def _with(result: dict[str, Any], literal: str, **fields: Any) -> str:
    """RESULT with FIELDS set; a field set to '@' gets the JSON literal LITERAL (NaN, Infinity) as its value."""
    return json.dumps({**result, **fields}).replace('"@"', literal)


def _first_candidate(plan: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**plan, "candidates": [{**plan["candidates"][0], **fields}]}


def _candidate_total(plan: dict[str, Any], value: Any) -> dict[str, Any]:
    """The plan with its first candidate's total monthly cost set to VALUE."""
    pred = plan["candidates"][0]["prediction"]
    return _first_candidate(plan, prediction={**pred, "cost": {**pred["cost"], "total": value}})


IMPOSSIBLE: dict[str, tuple[str, Any]] = {
    "report NaN": ("report", lambda r: _with(r["model"], "NaN", max_iops="@")),
    "report Infinity": ("report", lambda r: _with(r["model"], "Infinity", max_iops="@")),
    "report negative IOPS": ("report", lambda r: _with(r["model"], "", max_iops=-5)),
    "report negative cost": ("report", lambda r: _with(_candidate_total(r["plan"], -5.0), "")),
    "report schema_version -5": ("report", lambda r: _with(r["model"], "", schema_version=-5)),
    "report schema_version true": ("report", lambda r: _with(r["model"], "", schema_version=True)),
    "build --plan NaN cost": ("build --plan", lambda r: _with(_candidate_total(r["plan"], "@"), "NaN")),
    "build --plan newer schema": ("build --plan", lambda r: _with(r["plan"], "", schema_version=99)),
    "replay time backwards": ("diagnose --replay", lambda r: _recording(["0.0", "2.0", "1.0"])),
    "replay time stands still": ("diagnose --replay", lambda r: _recording(["0.0", "1.0", "1.0"])),
    "replay NaN time": ("diagnose --replay", lambda r: _recording(["0.0", "NaN", "2.0"])),
    "report recording backwards": ("report", lambda r: _recording(["0.0", "2.0", "1.0"])),
    "plan --from recording backwards": ("plan --from vdb", lambda r: _recording(["0.0", "2.0", "1.0"])),
}


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_finding_7_impossible_figures_are_refused(case: str, results: dict[str, Any], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    role, make = IMPOSSIBLE[case]
    path = tmp_path / "input"
    path.write_text(make(results))
    before = snapshot(tmp_path)
    result = run(capsys, *_hostile_args(role, path, tmp_path))
    assert result.code == 2 and _one_line(result.err, str(path)), result.err
    check_outcome(before, snapshot(tmp_path), result)


# ---------------------------------------------------------------- 8. unclear messages

def _iostat_row(rs: float) -> dict[str, Any]:
    return {"disk_device": "sda", "r/s": rs, "w/s": 10.0, "rkB/s": 100.0, "wkB/s": 100.0}


def test_finding_8_huge_iostat_rates_name_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "io.json").write_text(_iostat([_iostat_row(1e308)]))
    result = run(capsys, *_hostile_args("plan --from", tmp_path / "io.json", tmp_path))
    assert result.code == 2 and _one_line(result.err, "r/s") and "--read-pct" not in result.err, result.err


def test_finding_8_iostat_json_with_a_byte_order_mark_is_read_as_json(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "io.json").write_text("\ufeff" + _iostat([_iostat_row(100.0)]), encoding="utf-8")
    result = run(capsys, *_hostile_args("plan --from", tmp_path / "io.json", tmp_path), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["requirements"]["history"]["sources"][0]["format"] == "iostat"


def test_finding_8_a_newer_recording_is_named_by_its_version(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    lines = RECORDING.read_text().splitlines()
    header = json.loads(lines[0])
    header["version"] = 2
    header["devices"] = "moved elsewhere in version 2"
    (tmp_path / "new.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    result = run(capsys, "diagnose", "--replay", str(tmp_path / "new.jsonl"))
    assert result.code == 2 and _one_line(result.err, "version 2", "newer"), result.err
    assert "validation error" not in result.err


def test_finding_8_a_json_array_is_not_read_as_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.json").write_text("[1, 2, 3]\n")
    result = run(capsys, *_hostile_args("plan --from", tmp_path / "a.json", tmp_path))
    assert result.code == 2 and _one_line(result.err, "JSON array") and "data row" not in result.err, result.err


@pytest.mark.parametrize("option", ["plan --out", "--report", "diagnose --record"])
def test_finding_8_a_parent_that_is_a_file_is_named(option: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x\n")
    target = str(tmp_path / "afile" / "out.html")
    args = {"plan --out": [*PART3, "--out", target], "--report": [*MODEL, "--report", target],
            "diagnose --record": ["diagnose", "--duration", "1s", "--interval", "0.5s", "--record", target]}[option]
    result = run(capsys, *args)
    assert result.code == 2 and _one_line(result.err, "is a file, not a directory"), result.err


# ---------------------------------------------------------------- 11. Ctrl-C is silent

def test_finding_11_ctrl_c_says_interrupted_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    import blockfit.cli.plan

    def pressed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(blockfit.cli.plan, "make_plan", pressed)
    result = run(capsys, *PART3)
    assert result.code == 130 and _one_line(result.err, "interrupted"), (result.code, result.err)


def test_finding_11_sigint_in_a_child_says_interrupted(tmp_path: Path) -> None:
    marker = tmp_path / "held"
    result = signal_when_held(held_child(marker, "start", *PART3, "--out", str(tmp_path / "p.json")), marker,
                              signal.SIGINT)
    assert result.code == 130 and interrupt_line(result.err, signal.SIGINT), (result.code, result.err)
    assert os.listdir(tmp_path) == ["held"]


def test_finding_helpers_fill_a_tmpfs(tmp_path: Path) -> None:
    """The full-disk cases rest on fill_up leaving what it says (checked here, not assumed)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    with tmpfs(tmp_path / "t") as t:
        fill_up(t, 4096)
        st = os.statvfs(t)
        assert st.f_bavail * st.f_frsize == 4096
