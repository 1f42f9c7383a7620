"""`blockfit diagnose` refuses bad input in one line, exit 2, before it samples anything."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.diagnose_testbed import BLOCKFIT


def test_replay_of_a_malformed_capture_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n')
    proc = subprocess.run(BLOCKFIT + ["diagnose", "--replay", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "line 1" in proc.stderr and "Traceback" not in proc.stderr
    assert not proc.stdout


@pytest.mark.parametrize("args", [
    ["--layout", "1x50G@balanced"],
    ["--layout", "1x50G@nosuchlevel", "--cloud", "oci", "--instance", "VM.Standard.E4.Flex:1"],
    ["--interval", "5s", "--duration", "2s"],
    ["--devices", "no-such-disk"],
])
def test_bad_input_fails_before_sampling(args: list[str]) -> None:
    proc = subprocess.run(BLOCKFIT + ["diagnose", "--duration", "60s"] + args, capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 2 and proc.stderr.startswith("blockfit: error: ") and proc.stderr.count("\n") == 1
    assert not proc.stdout  # nothing sampled, nothing printed

