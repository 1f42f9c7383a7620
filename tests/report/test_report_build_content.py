"""The report renders only what it is given (issue 36, part 2): a build's scripts come from the build result's own
`content`, never from the paths it names. A result whose step path was /proc/self/environ put the report's
environment on the page; /dev/zero read until memory ran out. Also: a `$\\frac{$` name reaches a figure as text,
not mathtext (it crashed the drawing).
"""

from __future__ import annotations

import html as html_module
import json
import os
import re
import resource
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.cli import main
from blockfit.devices import capture as captures
from blockfit.diagnose import rules
from blockfit.report import render
from blockfit.report.load import load
from blockfit.schema.build import CONTENT_MAX, step_content
from support.report import BLOCKFIT, check_self_contained, section_html

CANARY = "BLOCKFIT_CANARY"
MATH = "$\\frac{$"


def _run(*args: str) -> None:
    try:
        main(list(args))
    except SystemExit as exc:
        assert not exc.code, args


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A real build (the plan of part 3, LVM) and its --json result."""
    d = tmp_path_factory.mktemp("built")
    _run("plan", "--example", "part3", "--out", str(d / "plan.json"))
    members = json.loads((d / "plan.json").read_text())["candidates"][0]["prediction"]["layout_detail"]["members"]
    devices = ",".join(f"/dev/sd{chr(ord('b') + i)}" for i in range(members))
    _run("build", "--plan", str(d / "plan.json"), "--manager", "lvm", "--devices", devices, "--mount", "/u01",
         "--out", str(d / "build"), "--report", str(d / "build.html"))
    return d, json.loads(_build_json(d, devices))


def _build_json(d: Path, devices: str) -> str:
    """build --json again into another folder: the result a user keeps."""
    proc = subprocess.run([*BLOCKFIT, "build", "--plan", str(d / "plan.json"), "--manager", "lvm", "--devices",
                           devices, "--mount", "/u01", "--out", str(d / "kept"), "--json"],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    (d / "build.json").write_text(proc.stdout)
    return proc.stdout


def _report(tmp_path: Path, result: dict[str, Any], env: dict[str, str] | None = None,
            limit_memory: bool = False) -> tuple[subprocess.CompletedProcess[str], str]:
    """`blockfit report` of the result in a child (its own environment); with limit_memory its address space is
    capped at 1.5 GiB, so a report that reads a device forever fails instead of eating the machine."""
    src = tmp_path / "result.json"
    src.write_text(json.dumps(result))
    out = tmp_path / "r.html"

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))

    proc = subprocess.run([*BLOCKFIT, "report", str(src), "-o", str(out)], capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})},
                          preexec_fn=cap if limit_memory else None)
    return proc, out.read_text() if out.exists() else ""


def _details(html: str) -> list[str]:
    return [html_module.unescape(t) for t in re.findall(r"<details>.*?<pre>(.*?)</pre>", section_html(html, "build"),
                                                        re.S)]


def test_the_page_shows_each_file_as_the_build_wrote_it(built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    d, result = built
    on_disk = {st["path"]: (d / "kept" / st["path"]).read_text() for st in result["steps"]}
    assert all(st["content"] == on_disk[st["path"]] for st in result["steps"])
    proc, html = _report(tmp_path, result)
    assert proc.returncode == 0, proc.stderr
    check_self_contained(html)
    shown = _details(html)
    assert len(shown) == len(result["steps"]) and sorted(shown) == sorted(on_disk.values())
    # build --report renders the same result: its page shows the files too
    assert sorted(_details((d / "build.html").read_text())) == sorted(
        (d / "build" / st["path"]).read_text() for st in result["steps"])


@pytest.mark.parametrize("carries", [True, False], ids=["with content", "an older result without it"])
def test_a_step_path_naming_proc_self_environ_is_never_opened(built: tuple[Path, dict[str, Any]], tmp_path: Path,
                                                              carries: bool) -> None:
    _, result = built
    secret = f"canary-{os.getpid()}-{os.urandom(4).hex()}"
    evil = json.loads(json.dumps(result))
    evil["out_dir"] = "/"
    for step in evil["steps"]:
        step["path"] = "/proc/self/environ" if step is evil["steps"][0] else "../../../../proc/self/environ"
        if not carries:
            del step["content"]
    proc, html = _report(tmp_path, evil, env={CANARY: secret})
    assert proc.returncode == 0, proc.stderr
    assert secret not in html and CANARY not in html
    shown = _details(html)
    assert len(shown) == len(evil["steps"])
    if carries:
        assert sorted(shown) == sorted(s["content"] for s in result["steps"])
    else:
        assert all("does not carry the file's text" in t for t in shown)
        assert "rerun blockfit build --json" in section_html(html, "build")


def test_a_step_path_naming_dev_zero_finishes_promptly(built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """Bounded by a generous timeout and a 1.5 GiB address space: reading /dev/zero used to exhaust memory."""
    _, result = built
    evil = json.loads(json.dumps(result))
    evil["out_dir"] = "/dev"
    for step in evil["steps"]:
        step["path"] = "zero"
        del step["content"]
    proc, html = _report(tmp_path, evil, limit_memory=True)
    assert proc.returncode == 0, proc.stderr
    assert "\0" not in html and len(html) < 1 << 20


def test_content_beyond_the_bound_is_refused_as_input(built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    _, result = built
    big = json.loads(json.dumps(result))
    big["steps"][0]["content"] = "x" * (CONTENT_MAX + 1)
    proc, html = _report(tmp_path, big)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "content" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and html == ""


@given(st.integers(min_value=0, max_value=3 * CONTENT_MAX), st.sampled_from("a\né"))
def test_step_content_is_whole_or_cut_and_says_how_much(n: int, ch: str) -> None:
    text = ch * n
    got = step_content(text)
    assert len(got) <= CONTENT_MAX
    if n <= CONTENT_MAX:
        assert got == text
    else:
        head, _, note = got.rpartition("\n[... ")
        assert text.startswith(head) and f"{n:,} characters in the file" in note
        assert f"the first {len(head):,} are shown" in note


@pytest.mark.parametrize("kind", ["plan", "diagnose"])
def test_a_mathtext_name_is_drawn_as_text(kind: str, built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """`$\\frac{$` as a layout name (plan's cost-vs-IOPS figure) or a device name (diagnose's bars) crashed
    matplotlib's mathtext parser; it is drawn as the text it is. The device names are a diagnose result's: a capture
    naming a device so is refused when it is read (tests/hostile/test_places.py)."""
    d, _ = built
    if kind == "plan":
        data = json.loads((d / "plan.json").read_text())
        for c in data["candidates"]:
            c["layout"] = MATH
        for c in data.get("pareto", []) or []:
            c["layout"] = MATH
    else:
        recording = Path(__file__).parents[1] / "data" / "diagnose" / "lab_stripe_slow_member.jsonl"
        result = rules.diagnose(captures.load(recording), None, f"replay:{recording.name}").model_dump_json()
        text = result.replace('"vdc"', json.dumps(MATH)).replace('"dm-0"', json.dumps(MATH + "0"))
        assert json.dumps(MATH) in text
    src = tmp_path / f"{kind}.json"
    src.write_text(json.dumps(data) if kind == "plan" else text)
    html = render([load(src)])
    check_self_contained(html)
    svgs = "".join(re.findall(r"<svg.*?</svg>", html, re.S))
    assert svgs and MATH in html_module.unescape(svgs)
