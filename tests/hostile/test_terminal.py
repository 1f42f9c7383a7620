"""Text from files reaches the terminal escaped (issue 36 part 7): an AWR instance name, a catalog's shape names,
title, notes and source URLs, a diagnose replay's path, an error quoting a value. ESC, BEL, C1's CSI and bidi
overrides are shown as `\\x1b`, `\\x07`, `\\x9b`, `\\u202e`, never obeyed; rich markup in a value is printed as
written, never rendered or parsed (`a[/]b` crashed `catalog show`, and `diagnose` on a replay path holding it).
`--json` stays JSON, with those characters as \\u escapes.

Every command runs in this process (the CLI's start-up dominates a subprocess) on files edited in a temp dir."""

from __future__ import annotations

import copy
import json
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.catalog.toml_out import dumps
from blockfit.cli import main
from blockfit.terminal import UNSAFE, is_safe, json_safe, safe

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "awr"
if not SAMPLES.is_dir():
    SAMPLES = Path("/work/shared/samples/awr")
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="the public AWR samples (../shared/samples/awr)")

TITLE_SET = "\x1b]0;pwned\x07"          # sets the terminal's title
CLEAR = "\x1b[2J"                       # clears the screen
HOSTILE = f"{TITLE_SET}{CLEAR}\x9b2J\u202e"
LINK = "[link=https://example.invalid]x[/link]"
CLOSER = "a[/]b"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")  # none of these may reach the terminal as such

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def blockfit(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


def assert_nothing_raw(*texts: str) -> None:
    for text in texts:
        found = [repr(c) for c in RAW if c in text]
        assert not found, (found, text[-800:])
        assert "Traceback" not in text, text[-800:]


@pytest.fixture
def hostile_catalog(tmp_path: Path) -> Path:
    """The shipped OCI catalog with shapes named in markup and escapes, a hostile title, note and source URL."""
    shipped = resources.files("blockfit.catalog") / "data" / "oci" / "2026-11-25.toml"
    raw = tomllib.loads(shipped.read_text(encoding="utf-8"))
    for name in (LINK, CLOSER, f"VM.e{HOSTILE}vil"):
        entry = copy.deepcopy(raw["shapes"]["VM.Standard.E4.Flex"])
        entry["name"] = name
        raw["shapes"][name] = entry
    raw["catalog"]["title"] = f"[bold]t[/] {CLEAR}title"
    raw["catalog"]["notes"] = [*raw["catalog"].get("notes", []), f"a note {CLOSER} {TITLE_SET}"]
    raw["sources"]["OCI-PERF"]["url"] += "\x1b]8;;https://example.invalid\x07"   # an OSC 8 hyperlink
    path = tmp_path / "hostile.toml"
    path.write_text(dumps(raw, "hostile"), encoding="utf-8")
    return path


def test_catalog_show_prints_markup_and_escapes_literally(blockfit: Run, hostile_catalog: Path) -> None:
    code, out, err = blockfit("catalog", "show", "--catalog", str(hostile_catalog))
    assert code == 0, err
    assert_nothing_raw(out, err)
    assert LINK in out and CLOSER in out and safe(f"VM.e{HOSTILE}vil") in out   # the unpriced shapes' line
    assert f"[bold]t[/] {safe(CLEAR)}title" in out
    assert f"a note {CLOSER} {safe(TITLE_SET)}" in out


def test_catalog_list_escapes_the_title(blockfit: Run, hostile_catalog: Path) -> None:
    code, out, err = blockfit("catalog", "list", "--catalog", str(hostile_catalog))
    assert code == 0, err
    assert_nothing_raw(out, err)
    assert "[bold]t[/]" in out and "\\x1b[2Jtitle" in out


def test_catalog_show_json_stays_json_with_escapes(blockfit: Run, hostile_catalog: Path) -> None:
    code, out, err = blockfit("catalog", "show", "--catalog", str(hostile_catalog), "--json")
    assert code == 0, err
    assert_nothing_raw(out, err)
    shapes = json.loads(out)["shapes"]
    assert {LINK, CLOSER, f"VM.e{HOSTILE}vil"} <= set(shapes)   # the values themselves, unchanged


def test_model_escapes_a_source_url(blockfit: Run, hostile_catalog: Path) -> None:
    code, out, err = blockfit("model", "--catalog", str(hostile_catalog), "--layout", "2x1T@balanced",
                              "--instance", "VM.Standard.E4.Flex:2")
    assert code == 0, err
    assert_nothing_raw(out, err)
    assert "\\x1b]8;;https://example.invalid\\x07" in out


def test_an_error_quoting_a_hostile_value_is_one_escaped_line(blockfit: Run, hostile_catalog: Path) -> None:
    code, out, err = blockfit("model", "--catalog", str(hostile_catalog), "--layout", "2x1T@balanced",
                              "--instance", f"VM.e{HOSTILE}vil:2{CLOSER}")
    assert code == 2 and out == ""
    assert_nothing_raw(err)
    assert len(err.strip().splitlines()) == 1 and "\\x1b]0;pwned\\x07\\x1b[2J" in err, err


@needs_samples
@pytest.mark.parametrize("json_out", [False, True])
def test_awr_instance_name_is_escaped_in_plan(blockfit: Run, tmp_path: Path, json_out: bool) -> None:
    text = (SAMPLES / "awr122_bpsc_2668_2669.txt").read_text(encoding="utf-8")
    assert "bpsc" in text   # the instance's name, in its header and in every section's DB/Inst line
    report = tmp_path / "awr_instance.txt"
    report.write_text(text.replace("bpsc", f"bp{HOSTILE}sc"), encoding="utf-8")
    code, out, err = blockfit("plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8",
                              "--from", str(report), *(["--json"] if json_out else []))
    assert code == 0, err
    assert_nothing_raw(out, err)
    if json_out:
        json.loads(out)
        assert "bp\\u001b]0;pwned\\u0007" in out   # the value, kept (JSON's escape)
    else:
        assert "bp\\x1b]0;pwned\\x07\\x1b" in out   # the instances a history came from


@pytest.mark.parametrize("folder, name", [("a[", "]b.jsonl"), ("d", f"e{CLEAR}{TITLE_SET}\u202ex.jsonl")])
def test_diagnose_replay_path_in_the_findings_title(blockfit: Run, tmp_path: Path, folder: str, name: str) -> None:
    """The findings table's title names the --replay path: `a[/]b.jsonl` (a folder `a[`) crashed it as markup."""
    capture = Path(__file__).resolve().parents[1] / "data" / "diagnose" / "lab_stripe_slow_member.jsonl"
    (tmp_path / folder).mkdir()
    replay = tmp_path / folder / name
    replay.write_bytes(capture.read_bytes())
    code, out, err = blockfit("diagnose", "--replay", str(replay))
    assert code == 0, err
    assert_nothing_raw(out, err)
    assert safe(f"{folder}/{name}") in out


def test_report_written_line_shows_the_path_as_written(blockfit: Run, tmp_path: Path) -> None:
    """`--report a[/]b.html` (a folder `a[`): the page was written, then its line crashed as markup."""
    (tmp_path / "a[").mkdir()
    page = tmp_path / "a[" / "]b.html"
    code, out, err = blockfit("model", "--cloud", "oci", "--layout", "2x1T@balanced", "--instance",
                              "VM.Standard.E4.Flex:2", "--report", str(page))
    assert code == 0, err
    assert_nothing_raw(out, err)
    assert page.is_file() and "report written to" in err and str(page) in err



def test_a_written_path_is_never_folded_whatever_the_width(tmp_path: Path) -> None:
    """`report written to PATH` on a narrow terminal: the path stays one piece (the terminal wraps the line), so a
    copy of it is the path. It was folded mid-name at the console's width (80 columns: '…/a[/]b.h' + 'tml')."""
    import os
    import subprocess
    import sys

    page = tmp_path / ("d" * 90) / "report.html"
    page.parent.mkdir()
    proc = subprocess.run([str(Path(sys.executable).parent / "blockfit"), "model", "--cloud", "oci", "--layout",
                           "2x1T@balanced", "--instance", "VM.Standard.E4.Flex:2", "--report", str(page)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "60"})
    assert proc.returncode == 0, proc.stderr
    assert page.is_file() and f"report written to {page}\n" in proc.stderr, proc.stderr


def test_build_prints_its_out_folder_as_written(blockfit: Run, tmp_path: Path) -> None:
    """`build --out` into a folder named like markup: the summary line shows the name, neither rendered nor crashed."""
    plan = tmp_path / "plan.json"
    code, out, err = blockfit("plan", "--example", "part3", "--json")
    assert code == 0, err
    plan.write_text(out)
    (tmp_path / "a[").mkdir()
    folder = tmp_path / "a[" / "]o[red]ut"
    code, out, err = blockfit("build", "--plan", str(plan), "--manager", "lvm", "--out", str(folder), "--devices",
                              ",".join(f"/dev/sdx{i}" for i in range(1, 7)))
    assert code == 0, err
    assert_nothing_raw(out, err)
    assert f"wrote 4 files to {folder}" in out.replace("\n", "")

# every value printed through safe() is one line with nothing a terminal obeys, and JSON keeps its value
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40))
def test_safe_leaves_nothing_a_terminal_obeys(text: str) -> None:
    shown = safe(text)
    assert is_safe(shown) and "\n" not in shown
    assert not any(ord(c) in UNSAFE for c in shown)
    assert shown == text or any(ord(c) in UNSAFE for c in text)     # nothing else is changed
    document = json_safe(json.dumps({"v": text}, ensure_ascii=False))
    assert json.loads(document) == {"v": text} and is_safe(document)
