"""CLI fuzz: every command and option, enumerated from the typer app (options added later are fuzzed too).

For each option the fuzzer draws values that are wrong for its kind (the ``KIND`` of its blockfit.cli.params
callback: NaN, ±inf, negatives, zero where meaningless, huge numbers, empty lists; free text: unicode, shell
metacharacters, control characters, very long strings), mutates them, and asserts: exit 2, one line on stderr,
no traceback, nothing written (the run's cwd stays empty; -o/--out targets are not created). Commands that only
compute (model, plan, catalog) also get arbitrary values, where any clean outcome (0, 2, 3) is right.

Commands that do real work on valid input (build writes, calibrate runs fio, lab boots qemu, diagnose samples)
get only invalid values, and guards make reaching that work a failure: bad input must fail before any of it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blockfit.cli import app, main

Param = Any  # a click parameter (typer vendors click; duck-typed here so either click works)

COMMAND = typer.main.get_command(app)
PURE = {"model", "plan", "catalog list", "catalog show"}  # commands that only compute: any value may be valid
OUTPUTS = {"--out", "--plot", "--record", "--report"}  # targets a failed run must not create


def commands() -> dict[str, Any]:
    """Every leaf command of the app by its path ('plan', 'catalog show')."""
    out: dict[str, Any] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        if hasattr(cmd, "commands"):  # a group
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        else:
            out[" ".join(path)] = cmd
    walk(COMMAND, [])
    return out


COMMANDS = commands()


def base_args(path: str, plan_file: Path) -> list[str] | None:
    """The smallest valid invocation of a known command (outputs inside the run's cwd); None: not known here."""
    known = {
        "model": ["--instance", "VM.Standard.E3.Flex:4"],
        "plan": ["--capacity", "1T", "--instance", "VM.Standard.E3.Flex:4", "--target-iops", "1000", "--out", "p.json"],
        "build": ["--plan", str(plan_file), "--manager", "lvm", "--devices", "/dev/sdx,/dev/sdy", "--out", "out"],
        "calibrate": ["/nonexistent-blockfit-fuzz-target", "--plot", "curve.png"],
        "lab": ["--cloud", "oci", "--layout", "1x50G@balanced", "--instance", "VM.Standard.E3.Flex:1"],
        "diagnose": ["--duration", "1s", "--interval", "1s", "--record", "cap.jsonl"],
        "catalog list": [],
        "catalog show": ["oci"],
    }
    return known.get(path)


def is_option(param: Param) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def numeric(param: Param) -> bool:
    if hasattr(param, "bare_type"):  # typer >= 0.20
        bare = param.bare_type()  # a type, or its name (typer 0.29 returns 'int')
        return getattr(bare, "__name__", bare) in ("int", "float")
    return getattr(param.type, "name", "") in ("integer", "float")


def kind(param: Param) -> str | None:
    return getattr(param.callback, "KIND", None)


NUMBERS_BAD = ["nan", "NaN", "inf", "-inf", "Infinity", "-1", "-0.001", "1e999", "-1e999", "9" * 400]
BAD: dict[str, list[str]] = {
    "positive": [*NUMBERS_BAD, "0"],
    "growth": [*NUMBERS_BAD[:5], "-1", "1e999", "1001"],
    "count": ["0", "-1", "1.5", "nan", "inf", "1000001", "9" * 40],
    "index": ["-1", "1.5", "nan", "1000001", "9" * 40],
    "percent": ["-1", "101", "nan", "inf", "1e999", "-5%", "101%"],
    "percentile": ["0", "100", "-5", "nan", "inf", "100%", "1e999"],
    "io_size": ["0", "-8k", "nan", "inf", "8q", "100", "2g", "8.5", "9" * 400 + "k", "1e3k"],
    "byte_size": ["0", "-1G", "nan", "100", "4Q", "9" * 400 + "G"],
    "volume_size": ["0G", "-1T", "nan", "500", "infT", "9" * 400 + "T", "1e3G"],
    "duration": ["0", "0s", "-1s", "nan", "inf", "1e999s", "8d", "1000000h", "9" * 400 + "s"],
    "latency": ["0", "0ms", "-1ms", "nan", "inf", "1e999", "9" * 400, "2x"],
    "list": [",", " , ", "a,,b", ",a", "a,", ""],
}
JUNK = st.text(st.sampled_from(list(";|&$`()<>\"'\\!*?[]{}~^💥\u202e\u00a0")), min_size=1, max_size=4)
ARGV_CHARS = st.characters(exclude_characters="\x00")  # argv cannot carry NUL
# free text that no name, path, spec or choice accepts: whitespace or a control character inside, or too long
POISON = st.one_of(
    st.builds(lambda a, b: f"{a}\n{b}", st.text(ARGV_CHARS, max_size=20), st.text(ARGV_CHARS, max_size=20)),
    st.builds(lambda a, b: f"{a} ;rm -rf {b}", st.text(ARGV_CHARS, max_size=10), st.text(ARGV_CHARS, max_size=10)),
    st.builds(lambda a: f"$(touch pwned){a}\t", st.text(ARGV_CHARS, max_size=10)),
    st.builds(lambda n: "é" * n + " x", st.integers(300, 5000)),
    st.just("\x1b[31m red \x1b[0m"),
)


def invalid_value(param: Param) -> st.SearchStrategy[str]:
    k = kind(param)
    if k is None:
        return POISON
    bad = st.sampled_from(BAD[k])
    if k == "list":
        return bad
    return st.one_of(bad, st.builds(lambda v, j: v + j, bad, JUNK))


def fuzzable(path: str, param: Param) -> bool:
    """Options whose wrong values we can draw: boolean flags have none; outputs are checked, not fuzzed."""
    if is_option(param) and (param.is_flag or param.opts[0] in OUTPUTS):
        return False
    if path == "calibrate" and not is_option(param):
        return False  # a path that exists would be measured; the base names one that does not
    known = base_args(path, Path()) is not None
    return kind(param) is not None or known


TARGETS = [(path, p) for path, cmd in COMMANDS.items() for p in cmd.params if fuzzable(path, p)]


@contextlib.contextmanager
def no_real_work() -> Iterator[None]:
    """Reaching fio, the lab guest or live sampling with bad input is the bug this test exists to find."""
    def forbidden(*_a: object, **_k: object) -> None:
        raise AssertionError("bad input reached real work")
    with mock.patch("blockfit.measure.calibrate.run_fio", forbidden), \
            mock.patch("blockfit.lab.run.ensure_kernel", forbidden), \
            mock.patch("blockfit.lab.run.run_script", forbidden), \
            mock.patch("blockfit.lab.disks.create", forbidden), \
            mock.patch("blockfit.diagnose.sampler.run_live", forbidden):
        yield


def run_cli(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run the CLI in-process in ``cwd``; an exception escaping main() is a traceback a user would see."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                mock.patch.dict(os.environ, {"BLOCKFIT_LAB_RUNS": str(cwd / "lab-runs")}):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def argv_for(path: str, param: Param, value: str, plan_file: Path) -> list[str]:
    args = list(base_args(path, plan_file) or [])
    if not is_option(param):
        return [*path.split(), value, *args[1:]] if args else [*path.split(), value]
    name = param.opts[0]
    if name in args:
        args[args.index(name) + 1] = value
    else:
        args += [name, value]
    return [*path.split(), *args]


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid plan for build's base invocation, outside every run's cwd."""
    path = tmp_path_factory.mktemp("fuzz-plan") / "plan.json"
    code, out, err = run_cli(["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex:4", "--target-iops",
                              "20000", "--json"], path.parent)
    assert code == 0, err
    path.write_text(out)
    return path


def assert_clean_rejection(code: int, out: str, err: str, cwd: Path, what: str) -> None:
    assert code == 2, (what, code, err[-500:])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("blockfit: error: "), (what, err[-500:])
    assert "Traceback" not in err and out == "", what
    assert list(cwd.iterdir()) == [], (what, list(cwd.iterdir()))


def test_every_numeric_option_goes_through_a_shared_parser() -> None:
    """An int or float option without a blockfit.cli.params callback would accept NaN, inf or negatives."""
    loose = [f"{path} {p.opts[0]}" for path, cmd in COMMANDS.items() for p in cmd.params
             if is_option(p) and not p.is_flag
             and numeric(p) and kind(p) is None]
    assert loose == []


def test_every_command_is_fuzzed() -> None:
    assert {path for path, _ in TARGETS} >= {"model", "plan", "build", "calibrate", "lab", "diagnose",
                                             "catalog show"}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_invalid_values_fail_cleanly_before_any_work(data: st.DataObject, plan_file: Path,
                                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    path, param = data.draw(st.sampled_from(TARGETS), label="option")
    value = data.draw(invalid_value(param), label="value")
    cwd = tmp_path_factory.mktemp("fuzz-cwd")
    argv = argv_for(path, param, value, plan_file)
    with no_real_work():
        code, out, err = run_cli(argv, cwd)
    assert_clean_rejection(code, out, err, cwd, repr(argv))


ANY = st.one_of(st.text(ARGV_CHARS, max_size=30), st.floats().map(repr), st.integers().map(str), st.sampled_from(
    ["nan", "inf", "-1", "0", "1e999", "", ",", "8k", "1T", "20ms", "95", "oci", "VM.Standard.E3.Flex:2"]))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_computing_commands_take_any_value_without_a_traceback(data: st.DataObject, plan_file: Path,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    path, param = data.draw(st.sampled_from([(c, p) for c, p in TARGETS if c in PURE]), label="option")
    value = data.draw(ANY, label="value")
    cwd = tmp_path_factory.mktemp("fuzz-cwd")
    argv = argv_for(path, param, value, plan_file)
    code, out, err = run_cli(argv, cwd)
    assert code in (0, 2, 3), (argv, code, err[-500:])
    assert "Traceback" not in err
    if code == 2:
        assert_clean_rejection(code, out, err, cwd, repr(argv))
    elif code == 3:
        assert list(cwd.iterdir()) == [], argv


@pytest.mark.parametrize("argv,option", [
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--target-iops", "nan"], "--target-iops"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--levels", ","], "--levels"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex:2.5"], "--instance"),
    (["model", "--instance", "VM.Standard.E3.Flex:2.5"], "--instance"),
    (["lab", "--cloud", "oci", "--layout", "1x50G@balanced", "--instance", "VM.Standard.E3.Flex:2.5"], "--instance"),
    (["diagnose", "--layout", "1x50G@balanced", "--cloud", "oci", "--instance", "VM.Standard.E3.Flex:2.5"],
     "--instance"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--growth", "nan"], "--growth"),
    (["calibrate", "/dev/null", "--duration", "inf"], "--duration"),
    (["build", "--plan", "p.json", "--manager", "lvm", "--devices", ",", "--out", "o"], "--devices"),
])
def test_named_cases_say_which_option(argv: list[str], option: str, tmp_path: Path) -> None:
    with no_real_work():
        code, out, err = run_cli(argv, tmp_path)
    assert_clean_rejection(code, out, err, tmp_path, repr(argv))
    assert err.startswith(f"blockfit: error: {option} "), err


def test_a_valid_plan_still_writes_its_out_file(tmp_path: Path) -> None:
    """The guard against false alarms: the same base invocation with valid values succeeds and writes."""
    code, out, err = run_cli(argv_for("plan", COMMANDS["plan"].params[0], "oci", Path()), tmp_path)
    assert code == 0, err
    assert json.loads((tmp_path / "p.json").read_text())["kind"] == "plan"
