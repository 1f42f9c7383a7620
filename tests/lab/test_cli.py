"""`blockfit lab`'s command line: bad input is one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.lab import run_blockfit as _cli


@pytest.mark.parametrize("args,needle", [
    (["--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--fs", "zfs"], "--fs"),
    (["--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--manager", "asm"],
     "--manager"),
    (["--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--scale", "2"],
     "--scale"),
    (["--cloud", "oci", "--layout", "9x500G@balanced"], "--instance"),
    (["--cloud", "nope", "--layout", "9x500G@balanced", "--instance", "x"], "--cloud"),
    (["--plan", "/nonexistent/plan.json"], "--plan"),
    *[(["--cloud", "oci", "--layout", "4x1000G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--stripe-size",
        size, *bench], "--stripe-size")
      for size in ("96k", "32k", "8m", "4k", "0") for bench in ((), ("--bench", "oltp"))],
])
def test_cli_bad_input_is_one_line_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    proc = _cli("lab", *args)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_not_a_plan_file_is_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "plan.json"
    bad.write_text("{\"hello\": 1}")
    proc = _cli("lab", "--plan", str(bad))
    assert proc.returncode == 2 and "--plan" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("value", ["0", "9"])
def test_cli_paths_out_of_range_is_one_line_exit_2(value: str) -> None:
    proc = _cli("lab", "--cloud", "oci", "--layout", "1x1000G@120vpu", "--instance", "VM.Standard.E4.Flex:32",
                "--paths", value)
    assert proc.returncode == 2 and "--paths" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
