"""Run fio robustly: JSON to a file, stderr apart, preambles skipped, process group stopped on any exit.

fio runs through ``blockfit.proc`` (its own session; on Ctrl-C, a timeout or any exception fio's whole
process group, one process per job, is stopped: TERM, then KILL).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockfit import proc, tools
from blockfit.errors import EnvironmentProblem


class FioFailed(EnvironmentProblem):
    """fio exited with an error, was killed, or wrote no parsable JSON."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


@dataclass
class FioOutput:
    data: dict[str, Any]
    stderr: str
    seconds: float


def fio_binary(fio: str = "fio") -> str:
    """fio's path; EnvironmentProblem naming the Debian package when it is not installed."""
    tools.require("calibrate", fio)
    path = shutil.which(fio)
    assert path is not None
    return path


def fio_version(fio: str = "fio") -> str:
    """'fio-3.33' as printed by ``fio --version``."""
    out = proc.run([fio_binary(fio), "--version"], timeout=60)
    return out.stdout.strip() or out.stderr.strip()


def parse_fio_json(text: str) -> dict[str, Any]:
    """The first JSON object in fio's output, skipping any non-JSON preamble (banners, warnings)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"^\{", text, flags=re.MULTILINE):
        try:
            obj, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj):
            return obj
    raise ValueError("no fio JSON document found")


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])


def run_fio(args: Sequence[str], workdir: Path, tag: str = "run", launcher: Sequence[str] = (),
            fio: str = "fio", timeout: float | None = None) -> FioOutput:
    """Run ``fio ARGS --output-format=json+ --output=FILE`` and return the parsed JSON.

    ``launcher`` prefixes the command (e.g. a cgroup wrapper). Raises FioFailed on a non-zero exit, a timeout or
    unparsable output; on any exception (KeyboardInterrupt included) the fio process group is killed first.
    """
    out_path = workdir / f"{tag}.json"
    err_path = workdir / f"{tag}.stderr"
    cmd = [*launcher, fio_binary(fio), *args, "--output-format=json+", f"--output={out_path}"]
    start = time.monotonic()
    with open(err_path, "wb") as err:
        try:
            returncode = proc.run(cmd, capture=False, stdout=subprocess.DEVNULL, stderr=err, cwd=workdir,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            raise FioFailed(f"fio did not finish within {timeout:g}s and was killed") from None
    seconds = time.monotonic() - start
    stderr = err_path.read_text(errors="replace")
    text = out_path.read_text(errors="replace") if out_path.exists() else ""
    if returncode != 0:
        why = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
        raise FioFailed(f"fio failed ({why}): {_tail(stderr or text)}", stderr)
    try:
        data = parse_fio_json(text)
    except ValueError:
        raise FioFailed(f"fio wrote no JSON: {_tail(stderr or text)}", stderr) from None
    return FioOutput(data=data, stderr=stderr, seconds=seconds)
