"""A file blockfit writes for another command is read back, as that command reads it, before it replaces anything.

`catalog import` wrote a shape name holding DEL as it came: TOML forbids it in a string, the import exited 0,
and every command then failed on the file; with `--out` naming a working catalog, that catalog was gone. Now
the writer escapes it, and each writer of a file another command reads checks the text it is about to write with
that command's reader: the catalog (`--catalog FILE`), plan, fleet and bench results (`report`, `build --plan`),
a `record --pg` recording (`plan --from`) and a `diagnose --record` capture (`--replay`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from blockfit.catalog import importers, toml_out
from blockfit.documents import check_result_text
from blockfit.errors import InputError
from blockfit.files import StreamFile, partial_name, write_atomically
from blockfit.schema.result import SCHEMA_VERSION
from support.catalog_files import oci_flex, oci_shapes, write
from support.inproc import run

NAME = "VM.Standard.Z9\x7fFlex"
PLAN = ["plan", "--capacity", "1T", "--target-iops", "20000", "--instance", "VM.Standard.E4.Flex:8"]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _import(tmp: Path, capsys: pytest.CaptureFixture[str], out: Path, name: str) -> tuple[int, str]:
    shapes = write(tmp / "shapes.json", oci_shapes(oci_flex(name, (1, 8), 1, 100)))
    code, _stdout, err = run(["catalog", "import", "--cloud", "oci", shapes, "--out", str(out)], capsys)
    return code, err


def test_a_name_holding_del_imports_into_a_catalog_that_loads(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "oci.toml"
    code, err = _import(tmp_path, capsys, out, NAME)
    assert code == 0, err
    code, stdout, err = run(["catalog", "show", "--catalog", str(out), "--json"], capsys)
    assert code == 0, err   # before: "not a blockfit catalog (TOML: Illegal character '\x7f' …)"
    assert NAME in json.loads(stdout)["shapes"]
    code, stdout, err = run(["catalog", "show", "--catalog", str(out)], capsys)
    assert code == 0 and "\x7f" not in stdout and "\\x7f" in stdout, err


def test_an_import_whose_text_would_not_load_leaves_the_working_catalog_at_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "oci.toml"
    code, err = _import(tmp_path, capsys, out, "VM.Standard.Z9.Flex")
    assert code == 0, err
    before = _digest(out)

    def old_dumps(raw: dict, header: str = "") -> str:   # the writer as it was: DEL written raw
        return toml_out.dumps(raw, header).replace("\\u007f", "\x7f")

    monkeypatch.setattr(importers, "dumps", old_dumps)
    code, err = _import(tmp_path, capsys, out, NAME)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "would not load" in err, err
    assert "Traceback" not in err and _digest(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["oci.toml", "shapes.json"]


def _plan(tmp: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp / "plan.json"
    code, _stdout, err = run([*PLAN, "--out", str(out)], capsys)
    assert code in (0, 3), err
    return out


def test_plan_out_reads_back_and_a_result_that_would_not_is_not_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    out = _plan(tmp_path, capsys)
    check_result_text(out.read_text(), "plan.json")   # what was written is what report and build --plan read
    before = _digest(out)
    from blockfit.schema import Plan

    dump = Plan.model_dump_json
    monkeypatch.setattr(Plan, "model_dump_json",   # a slip: a schema version no reader reads
                        lambda self, **kw: dump(self, **kw).replace('"schema_version": ', '"schema_version": 99', 1))
    code, _stdout, err = run([*PLAN, "--out", str(out)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "does not load" in err and "newer blockfit" in err and _digest(out) == before, err


@pytest.mark.parametrize("kind", ["fleet", "bench", "diagnose", "model"])
def test_every_result_kind_is_checked_as_report_reads_it(kind: str) -> None:
    """The check refuses what report would: a kind it does not know, a newer schema, an invalid document."""
    for text, word in ((json.dumps({"kind": kind + "x"}), "is not one of"),
                       (json.dumps({"kind": kind, "schema_version": 10**6}), "newer blockfit"),
                       (json.dumps({"kind": kind, "schema_version": SCHEMA_VERSION}), "not a valid blockfit"),
                       ("[" * 100_000, "")):
        with pytest.raises(InputError, match=word):
            check_result_text(text, "--out")


def test_write_atomically_with_a_failing_check_replaces_nothing(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    out.write_text("old")

    def refuse(text: str) -> None:
        raise InputError("no")

    with pytest.raises(InputError, match="does not load .no.; nothing was written"):
        write_atomically(out, "new", "--out", check=refuse)
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_a_stream_that_does_not_read_back_is_not_renamed(tmp_path: Path) -> None:
    """diagnose --record (a hidden temp file: removed) and record --pg (`.partial`: kept, it holds what was
    measured); the target keeps its old text either way."""
    out = tmp_path / "rec.jsonl"
    out.write_text("old")

    def refuse(path: Path) -> None:
        raise InputError(f"{path}: line 2: not a sample")

    for keep in (False, True):
        fh = StreamFile(out, "--record", keep=keep)
        fh.write('{"type": "header"}\n{}\n')
        with pytest.raises(InputError, match="what was written does not load"):
            fh.commit(check=refuse)
        assert out.read_text() == "old"
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names == (["rec.jsonl", "rec.jsonl.partial"] if keep else ["rec.jsonl"]), names
    assert partial_name(out).read_text() == '{"type": "header"}\n{}\n'


def test_a_diagnose_recording_reads_back_before_it_is_renamed(tmp_path: Path) -> None:
    out = tmp_path / "cap.jsonl"
    code_run = run_diagnose(tmp_path, out)
    assert code_run == 0
    from blockfit.devices import capture

    assert len(capture.load(out).samples) >= 2


def run_diagnose(tmp: Path, out: Path) -> int:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "from blockfit.cli import main; main()", "diagnose", "--interval",
                           "0.1s", "--duration", "0.2s", "--record", str(out), "--json"], cwd=tmp,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode
