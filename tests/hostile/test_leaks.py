"""Secrets a user gives blockfit end up nowhere else: not in a message.

- `record --pg` with a password: libpq quotes back parts of a connection string it cannot parse (a bad
  percent-escape, a word after a space, a URI whole); the one line on stderr showed them, password and all.
- `plan --from http://user:password@…` (a metrics URL without `prometheus+`) was read as a file name and the
  "file not found" line quoted it whole.

Fast: no server is started (a connection string that does not parse fails before connecting).
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
