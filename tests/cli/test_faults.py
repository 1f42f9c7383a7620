"""Fault injection for every command that writes: full disks, read-only targets, aliased paths, signals at each
phase, concurrent builds. The acceptance is the same everywhere (fault_helpers.check_outcome): no traceback, no
exit 0 on a failed write, no temp file left, every file that was there byte-identical unless the command succeeded
in replacing it as asked.

Cheap on purpose (issue 26 allows 3 minutes): the CLI runs in this process wherever no signal is needed; the signal
cases run their children side by side, each held at its phase by lifecycle.checkpoint (support/hold.py).
calibrate --plot and bench --out write through the same files.write_atomically; they need fio or PostgreSQL to get
there and are not run here.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blockfit.cli import main
from blockfit.devices import capture
from blockfit.diagnose import sampler
from blockfit.emit import bundle
from blockfit.emit.context import GeneratedFile
from blockfit.errors import InputError
from blockfit.files import MANIFEST
from blockfit.schema import BuildStep
from support.faults import (
    DEVICES,
    PART3,
    RECORDING,
    Run,
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

pytestmark = pytest.mark.root


def _json_of(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*args, "--json"])
    return out.getvalue()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real results to read: a plan, a built scripts folder, a recording."""
    d = tmp_path_factory.mktemp("inputs")
    (d / "plan.json").write_text(_json_of(*PART3))
    main(["build", "--plan", str(d / "plan.json"), "--manager", "lvm", "--devices", DEVICES, "--out",
          str(d / "scripts")])
    shutil.copy(RECORDING, d / "capture.jsonl")
    return {"plan": d / "plan.json", "scripts": d / "scripts", "capture": d / "capture.jsonl"}


# ---------------------------------------------------------------- the writers, each into a target directory

Writer = Callable[[Path, dict[str, Path]], tuple[list[str], set[Path]]]


def _build_force(d: Path, i: dict[str, Path]) -> tuple[list[str], set[Path]]:
    if not (d / "scripts").exists():
        shutil.copytree(i["scripts"], d / "scripts")
        (d / "scripts" / "blockfit-build.log").write_text("a step log the user keeps\n")
    return (["build", "--plan", str(i["plan"]), "--manager", "mdadm", "--devices", DEVICES, "--out",
             str(d / "scripts"), "--force"], {d / "scripts"})


WRITERS: dict[str, Writer] = {
    "plan --out": lambda d, i: ([*PART3, "--out", str(d / "plan.json")], {d / "plan.json"}),
    "plan --report": lambda d, i: ([*PART3, "--report", str(d / "plan.html")], {d / "plan.html"}),
    "model --report": lambda d, i: (["model", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E4.Flex:4",
                                     "--report", str(d / "model.html")], {d / "model.html"}),
    "report -o": lambda d, i: (["report", str(i["plan"]), "-o", str(d / "r.html")], {d / "r.html"}),
    "report --png": lambda d, i: (["report", str(i["plan"]), "-o", str(d.parent / "page.html"), "--png", str(d)],
                                  {d.parent / "page.html", d / "01-plan-front.png"}),
    "build --out": lambda d, i: (["build", "--plan", str(i["plan"]), "--manager", "lvm", "--devices", DEVICES,
                                  "--out", str(d / "new-scripts")], {d / "new-scripts"}),
    "build --force": _build_force,
    "diagnose --record": lambda d, i: (["diagnose", "--duration", "1s", "--interval", "0.5s", "--record",
                                        str(d / "capture.jsonl")], {d / "capture.jsonl"}),
}
OLD = b"the previous version, which must survive a failed write\n"


def _plant_old(outputs: set[Path], target: Path, where: Path | None = None) -> None:
    """An old version of every file output in TARGET (written under WHERE, if that is what will appear at TARGET),
    so that 'left as it was' is checked byte for byte."""
    for p in outputs:
        if p.parent == target and p.suffix in (".json", ".html", ".png", ".jsonl"):
            ((where or target) / p.name).write_bytes(OLD)


@needs_root
@pytest.mark.parametrize("free", [0, 4096], ids=["no-space", "4KiB-free"])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_full_disk(writer: str, free: int, inputs: dict[str, Path], tmp_path: Path,
                   capsys: pytest.CaptureFixture[str]) -> None:
    with tmpfs(tmp_path / "full") as target:
        args, outputs = WRITERS[writer](target, inputs)  # a --force build's old folder is made on the tmpfs
        _plant_old(outputs, target)
        fill_up(target, free)
        before = snapshot(tmp_path)
        result = run(capsys, *args)
        after = snapshot(tmp_path)
        if result.code == 0 and writer == "diagnose --record" and free:  # a short capture may fit in 4 KiB
            assert len(capture.load(target / "capture.jsonl").samples) == 3
    if not (result.code == 0 and writer == "diagnose --record" and free):
        assert result.code != 0, f"{writer}: exit 0 on a full disk ({free} bytes free)"
        assert "No space left" in result.err, result.err
    check_outcome(before, after, result, outputs)


@needs_root
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_read_only_target(writer: str, inputs: dict[str, Path], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "source"
    source.mkdir()
    target = tmp_path / "ro"
    args, outputs = WRITERS[writer](source, inputs)  # made in the source, then read-only at the target
    args = [a.replace(str(source), str(target)) for a in args]
    outputs = {Path(str(p).replace(str(source), str(target))) for p in outputs}
    _plant_old(outputs, target, where=source)
    with read_only(source, target):
        before = snapshot(tmp_path)
        result = run(capsys, *args)
        after = snapshot(tmp_path)
    assert result.code == 2 and "not writable" in result.err, result.err
    check_outcome(before, after, result, outputs)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_parent_that_is_a_file(writer: str, inputs: dict[str, Path], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("a file, not a directory\n")
    writer = "build --out" if writer == "build --force" else writer  # no old folder can be under a file
    args, outputs = WRITERS[writer](tmp_path / "afile" / "sub", inputs)
    before = snapshot(tmp_path)
    result = run(capsys, *args)
    assert result.code == 2 and "is a file, not a directory" in result.err, result.err
    check_outcome(before, snapshot(tmp_path), result, outputs)


# ---------------------------------------------------------------- stdout that cannot take the output

STDOUT_COMMANDS = {
    "plan": [*PART3, "--json"],
    "plan (table)": PART3,
    "model": ["model", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E4.Flex:4", "--json"],
    "catalog show": ["catalog", "show", "aws", "--json"],
    "diagnose --replay": ["diagnose", "--replay", str(RECORDING), "--json"],
}


@needs_root
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "write-through"])
@pytest.mark.parametrize("command", sorted(STDOUT_COMMANDS))
def test_stdout_on_a_full_disk_is_exit_4(command: str, unbuffered: bool, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`--json > full/x.json`: exit 4 and one line, with 4 KiB free (a short write) as with none. write-through is
    what PYTHONUNBUFFERED makes of stdout: the text layer on the raw file, where a short write used to vanish."""
    with tmpfs(tmp_path / "full", free=4096) as full:
        raw = io.FileIO(full / "out", "w")
        stream = io.TextIOWrapper(raw if unbuffered else io.BufferedWriter(raw), encoding="utf-8",
                                  write_through=unbuffered)
        try:
            result = run(capsys, *STDOUT_COMMANDS[command], stdout=stream)
        finally:
            with contextlib.suppress(OSError):
                stream.close()
    assert result.code == 4, (result.code, result.err)
    assert "stdout" in result.err and "No space left" in result.err and "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1, result.err


# ---------------------------------------------------------------- an output that is an input or another output

def _alias(kind: str, original: Path) -> Path:
    """Another name for ORIGINAL: through '..', a symlink, or a hard link."""
    if kind == "dotdot":
        (original.parent / "sub").mkdir(exist_ok=True)
        return original.parent / "sub" / ".." / original.name
    alias = original.with_name(f"alias-{kind}{original.suffix}")
    if kind == "symlink":
        alias.symlink_to(original.name)
    else:
        os.link(original, alias)
    return alias


def _copy(src: Path, dest: Path) -> Path:
    shutil.copy(src, dest)
    return dest


ALIASES: dict[str, Callable[[Path, dict[str, Path], str], list[str]]] = {
    "report input as -o": lambda d, i, k: ["report", str(_copy(i["plan"], d / "p.json")), "-o",
                                           str(_alias(k, d / "p.json"))],
    "plan --from as --out": lambda d, i, k: [
        "plan", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8",
        "--from", str(_write(d / "h.csv", "timestamp,r,w,rm,wm\n1,100,50,1,1\n2,200,50,2,1\n")),
        "--out", str(_alias(k, d / "h.csv"))],
    "plan --out as --report": lambda d, i, k: [*PART3, "--out", str(_write(d / "both.html", "old")),
                                               "--report", str(_alias(k, d / "both.html"))],
    "build --plan as --report": lambda d, i, k: [
        "build", "--plan", str(_copy(i["plan"], d / "plan.html")), "--manager", "lvm", "--devices", DEVICES,
        "--out", str(d / "scripts"), "--report", str(_alias(k, d / "plan.html"))],
    "diagnose --replay as --report": lambda d, i, k: [
        "diagnose", "--replay", str(_copy(i["capture"], d / "cap.html")), "--report", str(_alias(k, d / "cap.html"))],
    "diagnose --record as --report": lambda d, i, k: [
        "diagnose", "--duration", "1s", "--interval", "0.5s", "--record", str(_write(d / "cap.html", "old")),
        "--report", str(_alias(k, d / "cap.html"))],
    "report --png over an input": lambda d, i, k: [
        "report", str(_copy(i["plan"], d / "01-plan-front.png")), "-o", str(d / "r.html"), "--png",
        str(_alias_dir(k, d))],
}


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _alias_dir(kind: str, d: Path) -> Path:
    if kind == "dotdot":
        (d / "sub").mkdir(exist_ok=True)
        return d / "sub" / ".."
    if kind == "symlink":
        (d.parent / "dir-link").symlink_to(d)
        return d.parent / "dir-link"
    return d  # a directory has no hard link: the same directory by its own name


@pytest.mark.parametrize("kind", ["dotdot", "symlink", "hardlink"])
@pytest.mark.parametrize("case", sorted(ALIASES))
def test_an_output_that_is_an_input_is_refused(case: str, kind: str, inputs: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "d"
    d.mkdir()
    args = ALIASES[case](d, inputs, kind)
    before = snapshot(tmp_path)
    result = run(capsys, *args)
    assert result.code == 2 and "same file" in result.err, result.err
    check_outcome(before, snapshot(tmp_path), result)


@pytest.mark.parametrize("command", ["report", "plan", "model"])
def test_stdout_redirected_onto_an_input_or_output_is_refused(command: str, inputs: dict[str, Path],
                                                              tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`report p.json --json >> p.json` would append to the input it reads; `--out x > x` lose one or the other."""
    target = _copy(inputs["plan"], tmp_path / "p.json")
    args = {"report": ["report", str(target), "-o", str(tmp_path / "r.html"), "--json"],
            "plan": [*PART3, "--out", str(target)],
            "model": ["model", "--layout", "2x1T@balanced", "--instance", "VM.Standard.E4.Flex:4", "--report",
                      str(_write(tmp_path / "m.html", "old"))]}[command]
    stdout_file = tmp_path / ("m.html" if command == "model" else "p.json")
    before = snapshot(tmp_path)
    with open(stdout_file, "a", encoding="utf-8") as stream:
        result = run(capsys, *args, stdout=stream)
    assert result.code == 2 and "stdout" in result.err, result.err
    check_outcome(before, snapshot(tmp_path), result)


# ---------------------------------------------------------------- signals at each phase (children, side by side)

SIGNAL_CASES: dict[str, tuple[str, int, Callable[[Path, dict[str, Path]], tuple[list[str], set[Path]]]]] = {
    # name: (hold stage, signal, writer) -- outputs listed are those the command may have replaced before the signal
    "plan, before any work": ("start", signal.SIGTERM, WRITERS["plan --out"]),
    "plan, temp file open": ("write:1", signal.SIGHUP, WRITERS["plan --out"]),
    "plan, at the rename": ("rename:1", signal.SIGINT, WRITERS["plan --out"]),
    "plan, between --out and --report": (
        "rename:2", signal.SIGTERM,
        lambda d, i: ([*PART3, "--out", str(d / "plan.json"), "--report", str(d / "plan.html")], {d / "plan.json"})),
    "report --png, at the rename": ("rename:1", signal.SIGTERM, WRITERS["report --png"]),
    "build, new folder at the swap": ("rename:1", signal.SIGHUP, WRITERS["build --out"]),
    "build --force, at the swap": ("rename:1", signal.SIGTERM, WRITERS["build --force"]),
    "diagnose --record, at the rename": ("rename:1", signal.SIGINT, WRITERS["diagnose --record"]),
}


def test_signals_at_each_phase_leave_nothing_half_written(inputs: dict[str, Path], tmp_path: Path) -> None:
    """SIGTERM, SIGINT and SIGHUP, each held at a phase: exit 130, one 'interrupted by SIG…' line, no temp file,
    old files byte-identical (between two outputs: the first complete, the second as it was)."""
    cases: dict[str, Any] = {}
    for n, (name, (stage, sig, writer)) in enumerate(sorted(SIGNAL_CASES.items())):
        d = tmp_path / f"case{n}" / "target"
        d.mkdir(parents=True)
        args, outputs = writer(d, inputs)
        first_only = name.startswith("plan, between")
        _plant_old(outputs | {d / "plan.html"} if first_only else outputs, d)
        before = snapshot(d.parent)
        marker = tmp_path / f"held-{n}"
        cases[name] = (held_child(marker, stage, *args), marker, sig, d, before, outputs if first_only else set())
    for name, (proc, marker, sig, d, before, replaced) in cases.items():
        result: Run = signal_when_held(proc, marker, sig)
        assert marker.exists(), f"{name}: never reached its hold ({result.code}): {result.err}"
        assert result.code == 130 and interrupt_line(result.err, sig), (name, result.code, result.err)
        if replaced:  # the first output was complete before the signal came: it is a whole new plan
            assert all(json.loads(p.read_text())["kind"] == "plan" for p in replaced)
            assert "after writing" in result.err
        check_outcome(before, snapshot(d.parent), Run(0 if replaced else 130, result.out, result.err), replaced)


# ---------------------------------------------------------------- concurrent builds into one folder

def _files(manager: str) -> list[GeneratedFile]:
    step = BuildStep(order=20, name=manager, path=f"20-{manager}.sh", kind="volume-manager", touches_devices=True,
                     description=manager)
    readme = BuildStep(order=0, name="readme", path="README.md", kind="runner", touches_devices=False,
                       description="readme")
    return [GeneratedFile(step, f"# {manager}\n" * 2000), GeneratedFile(readme, f"{manager} build\n",
                                                                         executable=False)]


@pytest.mark.parametrize("force", [False, True], ids=["new-folder", "force"])
def test_concurrent_builds_never_mix(force: bool, tmp_path: Path) -> None:
    """An lvm and an mdadm build into one folder at once, five times: the folder always holds exactly one build
    (its scripts and its manifest agree); without --force exactly one of the two succeeds."""
    for attempt in range(5):
        out = tmp_path / f"scripts{attempt}"
        results: dict[str, BaseException | None] = {}

        def build(manager: str, out: Path = out, results: dict[str, BaseException | None] = results) -> None:
            try:
                bundle.write(out, _files(manager), force=force)
                results[manager] = None
            except Exception as exc:  # the refusal is the expected outcome of one of them
                results[manager] = exc

        threads = [threading.Thread(target=build, args=(m,)) for m in ("lvm", "mdadm")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        names = sorted(p.name for p in out.iterdir())
        assert names in ([MANIFEST, "20-lvm.sh", "README.md"], [MANIFEST, "20-mdadm.sh", "README.md"]), names
        manager = "lvm" if "20-lvm.sh" in names else "mdadm"
        assert (out / "README.md").read_text() == f"{manager} build\n"
        assert (out / f"20-{manager}.sh").read_text() == f"# {manager}\n" * 2000
        if not force:
            assert sum(r is None for r in results.values()) == 1, results
            assert "not empty" in str(next(r for r in results.values() if r is not None))
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp, no lock


def test_force_replaces_the_previous_build_whole_and_keeps_the_users_files(tmp_path: Path) -> None:
    out = tmp_path / "scripts"
    bundle.write(out, _files("lvm"))
    (out / "blockfit-build.log").write_text("what ran\n")
    (out / "terraform").mkdir()
    (out / "terraform" / "terraform.tfstate").write_text("state\n")
    bundle.write(out, _files("mdadm"), force=True)
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "20-mdadm.sh", "README.md", "blockfit-build.log",
                                                     "terraform"]
    assert (out / "terraform" / "terraform.tfstate").read_text() == "state\n"
    assert [p.name for p in tmp_path.iterdir()] == ["scripts"]


def test_a_recording_on_a_full_disk_mid_run_leaves_no_part_file(tmp_path: Path) -> None:
    """The capture grows while sampling: the disk fills after the header; the error names --record, no .part."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    with tmpfs(tmp_path / "full", free=8192) as full:
        with pytest.raises(InputError) as failed:
            sampler.run_live(None, 0.05, 30, full / "cap.jsonl")
        left = sorted(p.name for p in full.iterdir())
    assert "--record" in str(failed.value) and "No space left" in str(failed.value)
    assert left == ["fill"]
