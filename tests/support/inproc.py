"""The CLI run in this process (its start-up dominates a subprocess): exit code, stdout and stderr."""

from __future__ import annotations

import pytest

from blockfit.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err
