"""lab.target: the one place the lab parses its input."""

from __future__ import annotations

from pathlib import Path

from blockfit.lab.run import resolve
from support.lab import lab_request


def test_the_lab_takes_what_the_cli_parsed_once() -> None:
    """Issue 25, parse at the edge: the CLI reads the plan and parses the specs on the catalog loaded once
    (lab.target); nothing else under lab/ parses a spec, loads a catalog or reads a plan file again."""
    import re

    import blockfit.lab

    lab_dir = Path(blockfit.lab.__file__).parent
    offenders = [f"{p.name}: {m.group(0)}" for p in sorted(lab_dir.glob("*.py")) if p.name != "target.py"
                 for m in re.finditer(r"\b(parse_layout|parse_instance|resolve_catalog|load_catalog|read_plan|"
                                      r"Plan\.model_validate\w*)\b", p.read_text())]
    assert offenders == []
    req = lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12")
    assert resolve(req).cat is req.target.cat  # the predictions use the catalog the edge loaded
