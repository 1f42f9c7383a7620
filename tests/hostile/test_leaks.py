"""Secrets a user gives blockfit end up nowhere else: not in a message, not readable by other users on the way.

- `record --pg` with a password: libpq quotes back parts of a connection string it cannot parse (a bad
  percent-escape, a word after a space, a URI whole); the one line on stderr showed them, password and all.
- `plan --from http://user:password@…` (a metrics URL without `prometheus+`) was read as a file name and the
  "file not found" line quoted it whole.
- A usage error ("unexpected extra argument", --pg forgotten) quoted the URL or connection string as typed.
- A file blockfit replaces (a report, a recording) was rewritten through a temp file made 0666 less the umask: a
  0600 file's new text was readable, and could be kept open, by any local user until the rename (for a whole
  `diagnose --record`). The temp file is now 0600 until it gets its final mode.

Fast: no server is started (a connection string that does not parse fails before connecting).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit import lifecycle
from blockfit.files import StreamFile, write_atomically
from support.fleet import run_cli

PASSWORD = "pa55-w0rd-c4b3a2"


def one_line(code: int, out: str, err: str) -> str:
    """Exit 2, exactly one line on stderr, no traceback, and the password nowhere in what was printed."""
    assert code == 2, (code, err[-2000:])
    assert "Traceback" not in out + err
    assert PASSWORD not in out + err
    assert "w0rd" not in out + err   # not a piece of it either
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("blockfit: "), lines[:5]
    return lines[0]


# ---- record --pg: libpq's messages about a connection string --------------------------------------------------

@pytest.mark.parametrize(("dsn", "says"), [
    (f"postgresql://dba:{PASSWORD}%zz@127.0.0.1:1/db", "invalid percent-encoded token"),
    (f"postgresql://dba:{PASSWORD}@[::1/db", 'matching "]"'),
    (f"host=127.0.0.1 port=1 password=my {PASSWORD}", 'missing "=" after'),
    (f"postgresql://dba:my {PASSWORD}@127.0.0.1:1/db", "unexpected spaces"),
    (f"postgresql://dba:{PASSWORD}@127.0.0.1:1/db?sslmode", 'missing key/value separator "="'),
])
def test_a_connection_string_that_does_not_parse_is_refused_without_its_password(dsn: str, says: str,
                                                                                 tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    line = one_line(*run_cli("record", "--pg", dsn, "--out", str(out), "--interval", "1s", "--duration", "2s"))
    assert line.startswith("blockfit: error: --pg ") and says in line and "does not parse" in line
    assert not out.exists()


# ---- plan --from: a URL is not a file name ----------------------------------------------------------------------

@pytest.mark.parametrize("url", [f"http://dba:{PASSWORD}@127.0.0.1:9090", f"https://dba:{PASSWORD}@prom.invalid/x"])
def test_a_metrics_url_given_as_a_history_file_is_named_without_its_password(url: str) -> None:
    line = one_line(*run_cli("plan", "--from", url, "--instance", "VM.Standard.E4.Flex:8", "--capacity", "1T"))
    assert "--from '" in line and "://***@" in line and "a URL" in line


# ---- a usage error quotes what was typed --------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["record", f"postgresql://dba:{PASSWORD}@db.invalid/postgres"],               # --pg forgotten
    ["record", f"host=db.invalid user=dba password='my {PASSWORD}'"],
    ["fleet", "--from", "prometheus+http://127.0.0.1:9", f"prometheus+https://dba:{PASSWORD}@p.invalid"],
])
def test_a_misplaced_url_or_connection_string_is_quoted_without_its_password(args: list[str]) -> None:
    line = one_line(*run_cli(*args))
    assert "unexpected extra argument" in line and "***" in line


# ---- a file being written is never readable by more users than the file it replaces ----------------------------

@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _temps(target: Path) -> list[Path]:
    return [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")]


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.usefixtures("umask_022")
def test_a_private_file_is_rewritten_through_a_private_temp_file(tmp_path: Path) -> None:
    """The modes of the temp file at the "write" checkpoint (it exists; its text is written next): 0600."""
    target = tmp_path / "report.html"
    target.write_text("old")
    target.chmod(0o600)
    modes: list[int] = []

    def look(stage: str) -> None:
        if stage == "write":
            modes.extend(_mode(t) for t in _temps(target))

    lifecycle.observe(look)
    try:
        write_atomically(target, f"dsn {PASSWORD}", "-o")
    finally:
        lifecycle._observers.remove(look)
    assert len(modes) == 1 and modes[0] & 0o077 == 0, [oct(m) for m in modes]
    assert target.read_text() == f"dsn {PASSWORD}" and _mode(target) == 0o600 and _temps(target) == []
    write_atomically(tmp_path / "new.html", "x", "-o")     # a new file still gets 0666 less the umask
    assert _mode(tmp_path / "new.html") == 0o644


@pytest.mark.usefixtures("umask_022")
def test_a_recording_is_private_while_it_is_written(tmp_path: Path) -> None:
    target = tmp_path / "capture.jsonl"
    target.write_text("")
    target.chmod(0o600)
    rec = StreamFile(target, "--record")
    try:
        rec.write(f"{PASSWORD}\n")
        (tmp,) = _temps(target)
        assert _mode(tmp) & 0o077 == 0, oct(_mode(tmp))
        rec.commit()
    finally:
        rec.discard()
    assert _mode(target) == 0o600 and target.read_text() == f"{PASSWORD}\n" and _temps(target) == []
    new = StreamFile(tmp_path / "new.jsonl", "--record")  # a new file still gets 0666 less the umask
    new.write("{}\n")
    new.commit()
    assert _mode(tmp_path / "new.jsonl") == 0o644
