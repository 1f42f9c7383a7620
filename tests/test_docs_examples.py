"""Docs that cannot drift (issue 37 item 7): every console example in README.md and docs/commands/*.md is run as
written and its shown output compared with what the code prints (`docs/commands/model.md` showed "oci catalog
2026-09-05" long after the default became 2026-11-25).

The comparison: whitespace collapsed (the examples are wrapped for reading), a line or a line's tail of "..."
stands for output left out, and every shown piece must appear, in order. Each block runs in a temp dir at the
width of its widest line (rich wraps tables there as it did when the example was made)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "commands").glob("*.md"))]
# Inputs an example names that the repository holds, copied into the block's directory.
INPUTS = {"lab_stripe_slow_member.jsonl": ROOT / "tests" / "data" / "diagnose" / "lab_stripe_slow_member.jsonl",
          "calibrate.json": ROOT / "docs" / "examples" / "calibrate.json",
          "bench.json": ROOT / "docs" / "examples" / "bench.json",
          "inventory.json": ROOT / "docs" / "examples" / "inventory.json",   # the seeds' /u01, as inspect reads it
          # what the not-run `diagnose --record capture.jsonl` would write: a recorded capture of four members
          "capture.jsonl": ROOT / "tests" / "data" / "diagnose" / "lab_stripe_slow_member.jsonl"}
# An elided argument the example shortens, as it runs.
EXPANDED = {"/dev/oracleoci/oraclevdc,...,/dev/oracleoci/oraclevdg":
            ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "cdefg")}
# Examples that cannot run here, and why (each still shows no output to compare).
NOT_RUN = {"blockfit diagnose --interval 1s --duration 60s --record capture.jsonl":
           "samples this machine's devices for 60 s; the page shows no output",
           "blockfit fleet --from prometheus+http://prometheus.example:9090 --devices dm-3 --hosts fleet.toml":
           "needs a metrics server holding a fleet's history (tests/fleet/ runs the fleet against real ones)"}


def blocks() -> list[tuple[str, int, list[str], list[str]]]:
    """(page, line, commands, shown output) of every ```console block."""
    found = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```console":
                start, i = i + 1, i + 1
                body = []
                while lines[i].strip() != "```":
                    body.append(lines[i])
                    i += 1
                commands, shown = [], []
                for line in body:
                    if line.startswith("$ "):
                        commands.append(line[2:])
                    elif commands and commands[-1].endswith("\\"):
                        commands[-1] = commands[-1][:-1] + " " + line.strip()
                    else:
                        shown.append(line)
                found.append((page.relative_to(ROOT).as_posix(), start, commands, shown))
            i += 1
    return found


BLOCKS = blocks()


def pieces(shown: list[str]) -> list[str]:
    """The shown output as pieces that must appear in order: '...' splits it."""
    text = " ".join(" ".join(shown).split())
    return [p.strip() for p in text.split("...") if p.strip()]


def test_every_page_has_its_examples_found():
    assert {b[0] for b in BLOCKS} >= {"README.md", "docs/commands/model.md", "docs/commands/plan.md",
                                      "docs/commands/fleet.md"}


@pytest.mark.slow   # runs every example: ~10 s of CPU
@pytest.mark.parametrize(("page", "line", "commands", "shown"), BLOCKS,
                         ids=[f"{b[0]}:{b[1]}" for b in BLOCKS])
def test_the_example_prints_what_the_page_shows(page, line, commands, shown, tmp_path):
    width = max([80, *(len(s) for s in shown)])
    env = {**os.environ, "COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for name, src in INPUTS.items():
        shutil.copy(src, tmp_path / name)
    out = ""
    for command in commands:
        if command in NOT_RUN:
            assert not shown or len(commands) > 1, f"{page}:{line}: {NOT_RUN[command]}, yet output is shown"
            continue
        for short, full in EXPANDED.items():
            command = command.replace(short, full)
        assert "..." not in command, f"{page}:{line}: an elided command: add it to EXPANDED"
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, f"{page}:{line}: {command}\n{done.stderr}"
        out += done.stdout + done.stderr
    actual = " ".join(out.split())
    at = 0
    for piece in pieces(shown):
        found = actual.find(piece, at)
        assert found >= 0, (f"{page}:{line}: the page shows\n  {piece}\nwhich the code no longer prints "
                            f"(after offset {at}):\n{out}")
        at = found + len(piece)


def test_pieces_split_on_ellipses():
    assert pieces(["a  b", "...", "c ... d"]) == ["a b", "c", "d"]
    assert re.fullmatch(r"\d+", str(len(BLOCKS)))


# ---------------------------------------------------------------- user pages cite no path of the repository
# "Nothing a user sees cites a path of this repository": the site's pages say in words what is checked and
# measured; the contributors' page (development.md) names the tests, modules and benches behind them.
CONTRIBUTORS_PAGE = "development.md"
REPO_PATH = re.compile(r"(?<![\w./~-])((?:tests|src|scripts|\.ci|bench|docs)/[\w.*/-]*)")
PY_FILE = re.compile(r"(?<![\w./-])[\w./-]*\w\.py\b")
TEST_NAME = re.compile(r"\btest_\w+")
BENCH_MODULE = re.compile(r"\bbench\.(\w+)")


def repository_references(text: str) -> list[str]:
    """The repository paths, bench modules, Python files and test names `text` cites. A `scripts/` path counts
    only when the repository holds it: `build --out scripts/` and `scripts/run-all.sh` are the user's own."""
    found = []
    for path in (p.rstrip(".") for p in REPO_PATH.findall(text)):   # a sentence's full stop is not the path's
        users_own = path.startswith("scripts/") and (path == "scripts/" or not any(ROOT.glob(path.rstrip("/"))))
        if not users_own:
            found.append(path)
    found += [f"bench.{name}" for name in BENCH_MODULE.findall(text) if (ROOT / "bench" / f"{name}.py").is_file()]
    return found + PY_FILE.findall(text) + TEST_NAME.findall(text)


def references_on_user_pages(site: Path) -> list[str]:
    """`page:line: reference` for every reference on a page of `site` other than the contributors' page."""
    return [f"{page.relative_to(site).as_posix()}:{n}: {ref}"
            for page in sorted(site.rglob("*.md")) if page.relative_to(site).as_posix() != CONTRIBUTORS_PAGE
            for n, line in enumerate(page.read_text().splitlines(), 1) for ref in repository_references(line)]


def test_no_user_page_cites_a_repository_path():
    assert references_on_user_pages(ROOT / "docs") == []


@pytest.mark.parametrize(("line", "expected"), [
    ("Simulated with the runner's own rule (tests/dbbench/test_bench_stats.py), 95 %",
     ["tests/dbbench/test_bench_stats.py", "tests/dbbench/test_bench_stats.py", "test_bench_stats"]),
    ("in `src/blockfit/catalog/data/CLOUD/DATE.toml`", ["src/blockfit/catalog/data/CLOUD/DATE.toml"]),
    ("| `test_asm_*` |", ["test_asm_"]),
    ("The host decides (`lab/windows.py`, `WindowWatch`)", ["lab/windows.py"]),
    ("### Scale (bench/fleet_scale.py)", ["bench/fleet_scale.py", "bench/fleet_scale.py"]),
    ("`scripts/setup.sh` installs the Debian packages", ["scripts/setup.sh"]),
    ("bash .ci/run", [".ci/run"]),
    ("the Schemas (`docs/schema/*.json`), see https://cloud.google.com/compute/docs/disks", ["docs/schema/*.json"]),
    ("blockfit build --plan plan.json --out scripts/", []),
    ("sudo scripts/run-all.sh --dry-run", []),
    ("once into `~/.cache/blockfit/bench-fleet/`, read /sys/block/sda/queue and /proc/diskstats", []),
    ("the latest_value and a protests/ folder, `python -m blockfit`", []),
    ("hypothesis test; `python -m bench.plan_search` does", ["bench.plan_search"]),
    ("`--out DIR` also writes `DIR/bench.json`; `bench.comparisons[]`, bench.md", []),
])
def test_repository_references_are_told_from_a_users_own_paths(line, expected):
    assert repository_references(line) == expected


REPO_FILES = sorted(p.relative_to(ROOT).as_posix() for top in ("tests", "src", "bench", "scripts", ".ci", "docs")
                    for p in (ROOT / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@given(path=st.sampled_from(REPO_FILES), before=st.sampled_from(["", "in ", "(", "`", "| "]),
       after=st.sampled_from(["", ".", ")", "`", ", ", ": ", " |"]))
def test_every_file_of_the_repository_is_found_wherever_a_sentence_cites_it(path, before, after):
    assert path in repository_references(f"A sentence cites {before}{path}{after} and goes on.")


def test_every_bench_module_is_found_as_a_command():
    names = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "__init__")
    assert len(names) >= 10
    for name in names:
        assert repository_references(f"`.venv/bin/python -m bench.{name}` measures it") == [f"bench.{name}"]


def test_every_path_the_contributors_page_names_exists():
    """development.md is where the user pages' paths went: each one it names must still be there (a word in
    capitals, as in `CLOUD/DATE.toml`, stands for any name)."""
    text = (ROOT / "docs" / CONTRIBUTORS_PAGE).read_text()
    paths = {p.rstrip(".") for p in REPO_PATH.findall(text)}
    assert {"tests/test_docs_examples.py", "src/blockfit/catalog/data/CLOUD/DATE.toml"} <= paths
    assert [p for p in sorted(paths) if not any(ROOT.glob(re.sub(r"\b[A-Z]{2,}\b", "*", p)))] == []
