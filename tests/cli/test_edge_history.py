"""Issue 39 item 7 for history/ and fleet/: the library's errors name the value, the CLI names the option that
carried it, once (`supplied_by`). Library callers get the value named and no option."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from blockfit.errors import ValueProblem
from blockfit.fleet.mapping import load_mapping
from blockfit.history import derive_targets
from support.inproc import run

SRC = Path(__file__).resolve().parents[2] / "src" / "blockfit"
PLAN = ["plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:8"]
FLEET = ["fleet", "--from", "prometheus+http://127.0.0.1:1", "--instance", "VM.Standard.E4.Flex:8"]
# an error message that opens with an option: `raise InputError(f"--from {path}: ...")`
NAMES_AN_OPTION = re.compile(r"""(?:Error|Problem)\(\s*f?["']--""")


def test_history_and_fleet_name_no_option_in_their_errors() -> None:
    """On main, 145 messages of history/ and fleet/ opened with --from, --hosts, --match and others."""
    found = [f"{path.relative_to(SRC)}:{n}" for package in ("history", "fleet")
             for path in sorted((SRC / package).rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) if NAMES_AN_OPTION.search(line)]
    assert found == []


def _csv(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _iostat(path: Path) -> Path:
    disks = [{"disk_device": d, "r/s": 10.0, "w/s": 1.0, "rkB/s": 80.0, "wkB/s": 8.0} for d in ("sda", "sdb", "dm-0")]
    doc = {"sysstat": {"hosts": [{"nodename": "x", "statistics": [{"timestamp": f"12/01/26 00:00:0{k}", "disk": disks}
                                                                  for k in range(4)]}]}}
    path.write_text(json.dumps(doc))
    return path


def _one_error(code: int, err: str, opening: str, option: str) -> str:
    line = err.strip()
    assert code == 2 and "\n" not in line and "Traceback" not in line, err
    assert line.startswith(f"blockfit: error: {opening}"), line
    assert line.count(option) == 1, line   # named once, by the CLI
    return line


@pytest.mark.parametrize(("make", "extra", "opening", "option"), [
    (lambda p: [str(_csv(p / "bad.csv", "t,1,2,3\n"))], [], "--from {p}/bad.csv: data row 1 has 4 fields", "--from"),
    (lambda p: [str(_csv(p / "h.csv", "t,1,2,3,4\n")), str(p / "h.csv")], [],
     "--from {p}/h.csv: given twice", "--from"),
    (lambda p: [str(_csv(p / "h.csv", "t,1,2,3,4\n"))], ["--from-format", "xyz"], "--from-format 'xyz': expected",
     "--from-format"),
    (lambda p: [str(_csv(p / "h.csv", "t,1,2,3,4\n"))], ["--from-format", "iostat"],
     "--from {p}/h.csv: read as iostat (the format given) but the content is csv", "--from"),
    (lambda p: [str(_iostat(p / "io.json"))], [], "--devices none named: {p}/io.json has 3 devices", "--devices"),
    (lambda p: [str(_iostat(p / "io.json"))], ["--devices", "sdz"], "--devices sdz: not in {p}/io.json", "--devices"),
    (lambda p: [str(_csv(p / "h.csv", "t,1,2,3,4\n"))], ["--percentile", "0.5"],
     "--percentile 0.5: a bare fraction is ambiguous", "--percentile"),
])
def test_plan_names_the_option_of_a_bad_history_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     make: Callable[[Path], list[str]], extra: list[str], opening: str,
                                                     option: str) -> None:
    sources = [a for f in make(tmp_path) for a in ("--from", f)]
    code, out, err = run([*PLAN, *sources, *extra, "--out", str(tmp_path / "p.json")], capsys)
    _one_error(code, err, opening.format(p=tmp_path), option)
    assert out == "" and not (tmp_path / "p.json").exists()


@pytest.mark.parametrize(("extra", "opening", "option"), [
    (["--devices", "dm-3", "--match", "job=node"], "--match 'job=node': expected label matchers", "--match"),
    (["--devices", "["], "--devices '[': not a regular expression", "--devices"),
    (["--devices", "dm-3", "--range", "1m", "--step", "1m"], "--range 1m: expected at least two steps of --step 1m",
     "--range"),
    (["--devices", "dm-3", "--percentile", "p0"], "--percentile p0: expected a percentile", "--percentile"),
    (["--devices", "dm-3", "--step", "2d"], "--step '2d': expected whole seconds from 1s to 1d", "--step"),
    (["--devices", "dm-3", "--until", "yesterday"], "--until 'yesterday': expected a time", "--until"),
    (["--devices", "dm-3", "--from", "prometheus+ftp://x"], "--from 'prometheus+ftp://x': expected", "--from"),
    (["--devices", "dm-3", "--hosts", "{p}/hosts.toml"], "--hosts {p}/hosts.toml: not TOML", "--hosts"),
    (["--devices", "dm-3", "--hosts", "{p}/cap.toml"], '--hosts {p}/cap.toml: [defaults] capacity', "--hosts"),
])
def test_fleet_names_the_option_of_a_bad_value_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    extra: list[str], opening: str, option: str) -> None:
    (tmp_path / "hosts.toml").write_text("layout = \n")
    (tmp_path / "cap.toml").write_text('[defaults]\ncapacity = "3 bananas"\n')
    code, out, err = run([*FLEET, *(a.format(p=tmp_path) for a in extra)], capsys)
    _one_error(code, err, opening.format(p=tmp_path), option)
    assert out == ""


def test_record_names_pg_and_duration_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("psycopg")
    out = tmp_path / "rec.jsonl"
    code, _, err = run(["record", "--pg", "host=127.0.0.1 port=1 dbname=x connect_timeout=5", "--interval", "1s",
                        "--duration", "2s", "--out", str(out)], capsys)
    _one_error(code, err, "--pg connection string: cannot connect (", "--pg")
    code, _, err = run(["record", "--pg", "host=127.0.0.1 port=1", "--interval", "10s", "--duration", "5s",
                        "--out", str(out)], capsys)
    _one_error(code, err, "--duration 5s: expected at least one --interval (10s)", "--duration")
    assert not out.exists()


def test_a_library_caller_gets_the_value_named_and_no_option(tmp_path: Path) -> None:
    with pytest.raises(ValueProblem) as err:
        derive_targets(_csv(tmp_path / "bad.csv", "t,1,2,3\n"))
    assert err.value.option is None and str(err.value).startswith(f"{tmp_path}/bad.csv: data row 1 has 4 fields")
    assert "--" not in str(err.value)
    with pytest.raises(ValueProblem) as err:
        derive_targets(tmp_path / "missing.csv")
    assert err.value.option is None and str(err.value).startswith(f"{tmp_path}/missing.csv: cannot read")
    (tmp_path / "hosts.toml").write_text("[nodes]\n")
    with pytest.raises(ValueProblem) as err:
        load_mapping(tmp_path / "hosts.toml")
    assert err.value.option is None and str(err.value).startswith(f"{tmp_path}/hosts.toml: unknown table 'nodes'")
