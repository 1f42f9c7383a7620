"""Shared by the fleet tests: blockfit run in-process (its imports paid once per session)."""

from __future__ import annotations

import contextlib
import io

from blockfit.cli import main


def run_cli(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout, stderr of `blockfit ARGS`."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()
