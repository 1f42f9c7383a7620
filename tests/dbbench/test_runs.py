"""dbbench.runs: a layout whose server is gone gives failed runs, never a score, and nothing is touched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from blockfit.dbbench.profiles import PROFILES
from blockfit.dbbench.runs import Layout, LayoutSpec, close, measure_once
from blockfit.schema.bench import LayoutInfo


class _Untouchable:
    """Stands for the server and the cgroup of a dead layout: any use of them fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a dead layout's {name} was used")


def _layout(dead: str | None, conn: Any = None) -> Layout:
    info = LayoutInfo(label="A", dir="/x", mount_point="/x", fstype="xfs", source="/dev/sdb", devices=["sdb"])
    return Layout(spec=LayoutSpec(path=Path("/x"), label="A"), info=info, cluster=_Untouchable(),  # type: ignore[arg-type]
                  cgroup=_Untouchable(), dead=dead, conn=conn)  # type: ignore[arg-type]


@pytest.mark.parametrize(("dead", "why"), [("server on A gone: log", "server on A gone: log"),
                                           (None, "no connection")])
def test_a_dead_layout_gives_a_failed_run_with_the_reason(dead: str | None, why: str, tmp_path: Path) -> None:
    profile = next(iter(PROFILES.values()))
    run = measure_once(_layout(dead), "dss", profile, tmp_path, index=3, started=0.0, warmup=False)
    assert run.failed == why and run.score == 0 and run.seconds == 0 and run.index == 3
    assert run.evidence is None


def test_the_label_is_the_specs_and_closing_without_a_session_is_nothing() -> None:
    lay = _layout(None)
    assert lay.label == "A"
    close(lay)
    assert lay.conn is None


def test_closing_a_session_closes_it(pg_cluster: Any) -> None:
    import psycopg

    lay = _layout(None, psycopg.connect(pg_cluster.conninfo, autocommit=True))
    close(lay)
    assert lay.conn.closed
