"""The CLI run in this process (its start-up dominates a subprocess): exit code, stdout and stderr."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from blockfit.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


class Completed:
    """What subprocess.run returns, for tests written against it: returncode, stdout, stderr."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr



def runner(capsys: pytest.CaptureFixture[str]) -> Callable[..., Completed]:
    """`go("plan", ...)`: the CLI in this process (a subprocess costs 1.5-2 s of start-up), as a Completed."""
    def go(*args: str) -> Completed:
        return Completed(*run(list(args), capsys))
    return go
