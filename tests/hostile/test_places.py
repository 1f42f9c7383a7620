"""A value from a file or an option never becomes a command, nor a read outside its place.

- A diagnose capture's device names: its advice writes `echo none > /sys/block/NAME/queue/scheduler` for the DBA to
  run; a hand-made capture naming a device `x;reboot;#` or `$(reboot)` had that command printed. Every name is now
  held to the kernel's spelling when the capture is read.
- A calibrate target's path goes into fio's job file as `filename=PATH`: a line break in it started lines of fio's
  (`[evil]` then `exec_prerun=touch MARK`, which fio ran as the caller, root); `${VAR}` was expanded and a trailing
  blank dropped, so fio opened another file than the one checked.
- A bench `--dir` went into SQL by formatting (`LOCATION '{path}'`: `--dir "/x/victim'--"` put the temp tablespace
  in /x/victim) and into the janitor's manifest, a `dir PATH` per line (a line break in --dir was an entry of its
  own, deleted after a SIGKILL).
- `catalog import`, `--catalog PATH` and `fleet --hosts` read their files whole, without the cap and checks every
  other user file has: a FIFO waited forever, /dev/zero read until memory ran out.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from blockfit.dbbench.janitor import Janitor
from blockfit.errors import InputError
from blockfit.measure.targets import resolve_targets
from support.inproc import run

TIMEOUT_S = 60  # generous bounds for a child that answers in a few seconds: never a timing
MEMORY_BOUND = 1536 * 1024**2  # the child's address space: reading /dev/zero whole runs into it at once


def capture(path: Path, name: str, slaves: list[str] | None = None) -> Path:
    """A capture of one non-rotational device on bfq at 20,000 IOPS (diagnose's bfq advice names it), as
    `diagnose --record` writes one: a header, then raw /proc/diskstats lines a second apart."""
    dev = {"name": name, "kind": "disk", "dev": "259:0", "size_bytes": 10**11, "slaves": slaves or [],
           "holders": [], "queue": {"scheduler": "bfq", "rotational": False, "nr_requests": 64}}
    header = {"type": "header", "version": 1, "hostname": "h", "kernel": "6.1", "started": "2026-01-01T00:00:00+00:00",
              "interval_s": 1.0, "selected": [name], "devices": {name: dev}, "mounts": [], "geometry": [], "caps": []}
    lines = [json.dumps(header)]
    for t in range(12):
        reads = 20_000 * t
        lines.append(json.dumps({"type": "sample", "t": float(t), "lines": [
            f"259 0 {name} {reads} 0 {reads * 8} {reads // 10} 0 0 0 0 1 {t * 900} {t * 2000}"]}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_kernel_name_gets_the_scheduler_advice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The capture below does reach the advice that writes a device's name into a command."""
    code, out, err = run(["diagnose", "--replay", str(capture(tmp_path / "c.jsonl", "nvme0n1")), "--json"], capsys)
    assert code == 0, err
    advice = [f["recommendation"] for f in json.loads(out)["findings"] if f["kind"] == "scheduler_readahead"]
    assert advice and "echo none > /sys/block/nvme0n1/queue/scheduler" in advice[0], advice


@pytest.mark.parametrize("name", ["x;reboot;#", "$(reboot)", "`id`", "sda|sh", "a>b", "..", ".", "-x", "sda'",
                                  "a" * 65])
def test_a_capture_naming_a_device_as_shell_text_is_refused(name: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = capture(tmp_path / "c.jsonl", name)
    code, out, err = run(["diagnose", "--replay", str(path), "--json"], capsys)
    assert code == 2, (code, out[-600:])
    assert len(err.strip().splitlines()) == 1 and "not a kernel device name" in err, err
    assert "/sys/block/" not in out


@pytest.mark.parametrize("slave", ["../../etc", "a/b", "x\ny", "$(id)"])
def test_a_name_in_the_capture_header_alone_is_refused(slave: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = capture(tmp_path / "c.jsonl", "md0", slaves=[slave])
    code, _out, err = run(["diagnose", "--replay", str(path)], capsys)
    assert code == 2 and "devices.md0.slaves" in err and "not a kernel device name" in err, err


def big_file(path: Path) -> Path:
    """A file calibrate takes as a target (at least 1 MiB), parents made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.truncate(2 * 1024**2)
    return path


def test_a_target_whose_path_would_write_fio_lines_is_refused_before_fio(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Before: fio read `filename=.../a`, then a job `[evil]` whose exec_prerun it ran (exit 4 here only because
    the injected job lacks a size; with `size=1m` injected too, MARK was created)."""
    mark = tmp_path / "MARK"
    target = big_file(tmp_path / f"a\n[evil]\nexec_prerun=touch {mark}\n;x")
    code, _out, err = run(["calibrate", "--engine", "libaio", "--duration", "5s", str(target)], capsys)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "fio would not read this path as written" in err, err
    assert not mark.exists()


@pytest.mark.parametrize("name", ["g${HOME}", "trailing ", "back\\slash", "tab\there", "nbsp\u00a0"])
def test_a_target_fio_would_read_as_another_file_is_refused(name: str, tmp_path: Path) -> None:
    """fio expands ${HOME} (it opened g/root), strips the blank (it opened 'trailing') and unescapes a backslash."""
    target = big_file(tmp_path / name)
    with pytest.raises(InputError, match="fio would not read this path as written"):
        resolve_targets([str(target)], size_bytes=1024**2, write_pct=0, allow_write=False, warnings=[])


def test_a_directory_target_below_a_line_break_is_refused(tmp_path: Path) -> None:
    """The test file calibrate creates sits in the directory: its path is the one fio reads."""
    folder = tmp_path / "d\n[evil]"
    folder.mkdir()
    with pytest.raises(InputError, match="fio would not read this path as written"):
        resolve_targets([str(folder)], size_bytes=1024**2, write_pct=0, allow_write=False, warnings=[])


def test_a_target_with_blanks_and_colons_inside_is_still_measured(tmp_path: Path) -> None:
    """What fio reads as written (a colon is escaped for fio) stays a target."""
    target = big_file(tmp_path / "my data:1")
    (found,) = resolve_targets([str(target)], size_bytes=1024**2, write_pct=0, allow_write=False, warnings=[])
    assert found.path == str(target) and found.kind == "file"


@pytest.mark.parametrize("tail", ["x\ndir {victim}\n", "x\rdir {victim}", "it's"])
def test_a_bench_dir_with_a_line_break_or_a_quote_is_refused(tail: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim"
    folder = tmp_path / tail.format(victim=victim)
    folder.mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    code, _out, err = run(["bench", "--dir", str(folder), "--dir", str(other)], capsys)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("blockfit: error: --dir "), err
    assert "line breaks or other control characters" in err, err


def test_the_janitor_never_takes_a_second_line_from_a_path(tmp_path: Path) -> None:
    """Before: `dir /x` then `dir VICTIM` in the manifest; after a SIGKILL the janitor deleted VICTIM."""
    victim = tmp_path / "victim"
    janitor = Janitor()
    try:
        with pytest.raises(ValueError, match="not one line"):
            janitor.register("dir", tmp_path / f"x\ndir {victim}\n" / "blockfit-bench")
        assert str(victim) not in janitor.manifest.read_text()
    finally:
        janitor.close()


def _postgres() -> bool:
    import glob

    return bool(glob.glob("/usr/lib/postgresql/*/bin/initdb"))


@pytest.mark.slow
@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0 or not _postgres(), reason="needs root and PostgreSQL")
def test_the_temp_tablespace_location_is_a_literal_never_formatted() -> None:
    """dss.prepare on a real server, its cluster under `--dir "BASE/victim'--"`: before, the statement read
    `LOCATION 'BASE/victim'--/blockfit-bench/temp'` and PostgreSQL made the tablespace in BASE/victim."""
    import psycopg

    from blockfit.dbbench import dss
    from blockfit.dbbench.cluster import initdb, start, stop, throwaway_cluster

    with tempfile.TemporaryDirectory(prefix="bf-places-") as base_name, tempfile.TemporaryDirectory() as work:
        base = Path(base_name)
        base.chmod(0o755)
        victim, hostile = base / "victim", base / "victim'--"
        for d in (victim, hostile):
            d.mkdir()
            shutil.chown(d, "postgres")
        with throwaway_cluster("q", hostile / "blockfit-bench", Path(work), {"shared_buffers": "16MB"}) as cluster:
            initdb(cluster)
            start(cluster, None)
            try:
                with psycopg.connect(cluster.conninfo, autocommit=True) as conn:
                    with pytest.raises(psycopg.Error, match="single quotes"):
                        dss.prepare(conn, 10, str(cluster.temp_dir))
                    spaces = conn.execute("SELECT spcname, pg_tablespace_location(oid) FROM pg_tablespace").fetchall()
            finally:
                stop(cluster, None)
        assert dss.TEMP_TABLESPACE not in {name for name, _ in spaces}, spaces
        assert list(victim.iterdir()) == []


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, MEMORY_BOUND))


def blockfit(*args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI as its own process: a FIFO that blocks it, or /dev/zero read whole, cannot take the tests
    with it (bounded by the timeout and the address-space limit)."""
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True,
                          timeout=TIMEOUT_S, preexec_fn=_limited)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", ["catalog-import", "fleet-hosts"])
@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_a_provider_file_or_host_mapping_that_is_no_file_is_refused_at_once(command: str, source: str, fifo: Path,
                                                                            tmp_path: Path) -> None:
    """Before: a FIFO without a writer waited until the timeout; /dev/zero ended in a MemoryError traceback."""
    given = str(fifo) if source == "fifo" else source
    out = tmp_path / "aws.toml"
    args = (["catalog", "import", "--cloud", "aws", "--out", str(out), given] if command == "catalog-import" else
            ["fleet", "--from", "prometheus+http://127.0.0.1:9", "--cloud", "aws", "--hosts", given])
    done = blockfit(*args)
    err = done.stderr.strip()
    assert done.returncode == 2, (done.returncode, err[-1500:])
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert ("FIFO" if source == "fifo" else "is a device") in err, err
    assert not out.exists()


def test_a_catalog_that_is_a_kernel_file_is_refused_unread(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(["catalog", "show", "--catalog", "/proc/self/environ"], capsys)
    assert code == 2 and "a /proc or /sys file" in err, err
