"""One small PostgreSQL server for the dbbench tests that need a real one (about 2 s to start), shared."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.postgres import has_postgres


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """A started throwaway cluster (16 MB shared buffers) in a temp dir; skipped where no server is installed."""
    if not has_postgres():
        pytest.skip("no PostgreSQL server binaries here")
    from blockfit.dbbench.cluster import check_dir, initdb, start, stop, throwaway_cluster

    with tempfile.TemporaryDirectory(prefix="bf-dbbench-") as base, tempfile.TemporaryDirectory() as work:
        Path(base).chmod(0o755)
        with throwaway_cluster("t", check_dir(Path(base)), Path(work), {"shared_buffers": "16MB"}) as cluster:
            initdb(cluster)
            start(cluster, None)
            try:
                yield cluster
            finally:
                stop(cluster, None)


@pytest.fixture
def pg_conn(pg_cluster: Any) -> Iterator[Any]:
    import psycopg

    with psycopg.connect(pg_cluster.conninfo, autocommit=True) as conn:
        yield conn
