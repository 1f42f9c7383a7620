"""dbbench.load: each step loads an empty two-index table with COPY and with batched INSERTs, on a real server."""

from __future__ import annotations

from typing import Any

import pytest

from blockfit.dbbench import load


def test_the_table_has_the_seeds_two_unique_indexes() -> None:
    assert "PRIMARY KEY (c1, c2)" in load.DDL and "UNIQUE (c3, c4)" in load.DDL
    assert load.BATCH > 1


def test_every_step_runs_both_methods_and_the_score_is_rows_over_seconds(pg_conn: Any) -> None:
    score, steps = load.run(pg_conn, [150, 2 * load.BATCH + 7])
    assert [(s.rows, s.method) for s in steps] == [(150, "copy"), (150, "insert"), (2007, "copy"), (2007, "insert")]
    assert score == pytest.approx(sum(s.rows for s in steps) / sum(s.seconds for s in steps))
    for s in steps:
        assert s.seconds > 0 and s.rows_per_s == pytest.approx(s.rows / s.seconds)
        assert s.wal_bytes > 0 and s.checkpoints >= 0
    assert pg_conn.execute("SELECT to_regclass('junk')").fetchone()[0] is None   # dropped after the run


def test_a_step_starts_from_an_empty_table_and_leaves_its_rows(pg_conn: Any) -> None:
    load.step(pg_conn, "insert", 300)
    one = load.step(pg_conn, "copy", 120)
    assert one.method == "copy"
    count, distinct = pg_conn.execute("SELECT count(*), count(DISTINCT (c3, c4)) FROM junk").fetchone()
    assert count == distinct == 120
    pg_conn.execute("DROP TABLE junk")


def test_more_rows_write_more_wal(pg_conn: Any) -> None:
    small, large = load.step(pg_conn, "copy", 100), load.step(pg_conn, "copy", 5000)
    pg_conn.execute("DROP TABLE junk")
    assert large.wal_bytes > small.wal_bytes
