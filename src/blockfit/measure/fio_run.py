"""Run fio robustly: JSON to a file, stderr apart, preambles skipped, process group killed on any exit.

fio is started in its own session so that a Ctrl-C at the terminal reaches only us; we then end fio's whole
process group (fio forks one process per job), first politely, then with SIGKILL.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockfit.errors import EnvironmentProblem

FIO_MISSING = "fio not found on PATH: install it (apt-get install fio, or run bash scripts/setup.sh)"


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
    path = shutil.which(fio)
    if path is None:
        raise EnvironmentProblem(FIO_MISSING)
    return path


def fio_version(fio: str = "fio") -> str:
    """'fio-3.33' as printed by ``fio --version``."""
    out = subprocess.run([fio_binary(fio), "--version"], capture_output=True, text=True, check=False)
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


def kill_group(proc: subprocess.Popen[bytes], grace: float = 3.0) -> None:
    """End proc's process group: SIGTERM, then SIGKILL after ``grace`` seconds; reap proc."""
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        pgid = None
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        if pgid is not None:
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # the leader is gone; make sure no job process of the group survives it
        if pgid is not None and _group_alive(pgid):
            continue
        return


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                                cwd=workdir, start_new_session=True)
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            raise FioFailed(f"fio did not finish within {timeout:g}s and was killed") from None
        except BaseException:
            kill_group(proc)
            raise
        if _group_alive(proc.pid):  # stray job processes after the leader exited
            kill_group(proc)
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
