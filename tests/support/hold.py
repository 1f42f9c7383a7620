"""`blockfit` held at one of its checkpoints, for the fault tests to signal it there:

    python tests/support/hold.py STAGE[:N] MARKER ARGS...

runs `blockfit ARGS...` as its executable does (blockfit.launch) and, at the Nth pass (1st by default) through
STAGE ("start", "write", "rename": lifecycle.checkpoint), creates MARKER and waits up to 60 s for a signal."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main() -> None:
    spec, marker, *args = sys.argv[1:]
    want, _, nth = spec.partition(":")
    passes: dict[str, int] = {}

    def hold(stage: str) -> None:
        passes[stage] = passes.get(stage, 0) + 1
        if stage != want or passes[stage] != int(nth or 1):
            return
        Path(marker).touch()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.01)

    from blockfit import lifecycle
    from blockfit.launch import main as launch

    lifecycle.observe(hold)
    sys.argv = ["blockfit", *args]
    launch()


if __name__ == "__main__":
    main()
