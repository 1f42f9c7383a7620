"""dbbench.dss: the decision-support queries on a real server, in two sessions, their temp I/O from EXPLAIN."""

from __future__ import annotations

from typing import Any

import pytest

from blockfit.dbbench import dss


def test_each_pinned_setting_belongs_to_a_query() -> None:
    assert set(dss.PINS) <= set(dss.QUERIES)
    assert all(s.startswith("enable_") for pins in dss.PINS.values() for s in pins)


@pytest.fixture
def fact(pg_conn: Any, pg_cluster: Any) -> Any:
    dss.prepare(pg_conn, 3000, str(pg_cluster.temp_dir))
    return pg_conn


def test_prepare_makes_the_fact_table_and_the_temp_tablespace(fact: Any) -> None:
    rows, width = fact.execute("SELECT count(*), min(octet_length(pad)) FROM fact").fetchone()
    assert rows == 3000 and width == 32 * dss.PAD_MD5S
    assert fact.execute("SELECT 1 FROM pg_tablespace WHERE spcname = %s", (dss.TEMP_TABLESPACE,)).fetchone()


def test_a_run_gives_every_query_in_each_session_and_the_wall_time(fact: Any) -> None:
    wall, figures = dss.run(fact)
    names = [f.name for f in figures]
    assert sorted(names) == sorted([*dss.QUERIES] + [f"{q} #2" for q in dss.QUERIES])
    assert wall > 0
    for f in figures:
        assert f.read_bytes >= f.temp_read_bytes >= 0 and f.temp_written_bytes % dss.BLOCK == 0
        assert f.temp_written_bytes > 0   # 1 MB work_mem: every query spills


def test_the_warm_up_runs_one_query_per_session(fact: Any) -> None:
    _wall, figures = dss.run(fact, "group by")
    assert sorted(f.name for f in figures) == ["group by", "group by #2"]


def test_a_pinned_setting_is_restored_after_its_query(fact: Any) -> None:
    dss.run_query(fact, "group by", dss.QUERIES["group by"])
    assert fact.execute("SHOW enable_sort").fetchone()[0] == "on"
