"""Decision support: analytic queries over a generated fact table whose sorts, hash aggregates and joins spill.

This tests the ASM-vs-LVM report's hypothesis (seed 002: "temporary segment allocation … for the large
GROUP BY and ORDER BY operations"): with a small work_mem each query writes and reads temp files, and
temp_tablespaces points them at a tablespace on the layout under test. Per query, EXPLAIN (ANALYZE, BUFFERS)
gives exact figures for that query alone: execution time, temp blocks written and read, shared blocks
read; read MB/s = (shared + temp blocks read) × 8 KiB / time. Parallel workers are off, so a run's time
is one backend's I/O path, not the number of cores.
"""

from __future__ import annotations

from typing import Any

from blockfit.schema.bench import QueryFigures

BLOCK = 8192
WORK_MEM = "1MB"
TEMP_TABLESPACE = "bench_temp"

QUERIES: dict[str, str] = {
    "order by": "SELECT id, note, amount FROM fact ORDER BY note",
    "group by": "SELECT customer, count(*), sum(amount) FROM fact GROUP BY customer",
    "count distinct": "SELECT count(DISTINCT note) FROM fact",
    "join": "SELECT f.product, sum(g.amount) FROM fact f JOIN fact g ON g.id = f.id + 1 GROUP BY f.product",
}


def prepare(conn: Any, rows: int, temp_dir: str) -> None:
    """The fact table (≈100 bytes a row, random keys) and the temp tablespace on the layout."""
    conn.execute("DROP TABLE IF EXISTS fact")
    conn.execute(
        "CREATE TABLE fact AS SELECT g AS id, (random() * 100000)::int AS customer, (random() * 1000)::int AS product,"
        " now() - random() * interval '365 days' AS ts, (random() * 1000)::numeric(10, 2) AS amount,"
        " md5(g::text) AS note FROM generate_series(1, %s) AS g", (rows,))
    conn.execute("VACUUM ANALYZE fact")
    if conn.execute("SELECT 1 FROM pg_tablespace WHERE spcname = %s", (TEMP_TABLESPACE,)).fetchone() is None:
        conn.execute(f"CREATE TABLESPACE {TEMP_TABLESPACE} LOCATION '{temp_dir}'")


def _session(conn: Any) -> None:
    conn.execute(f"SET work_mem = '{WORK_MEM}'")
    conn.execute(f"SET temp_tablespaces = '{TEMP_TABLESPACE}'")
    conn.execute("SET max_parallel_workers_per_gather = 0")
    conn.execute("SET jit = off")


def run_query(conn: Any, name: str, sql: str) -> QueryFigures:
    plan = conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) {sql}").fetchone()[0][0]
    top = plan["Plan"]
    seconds = float(plan["Execution Time"]) / 1000.0
    temp_read = int(top.get("Temp Read Blocks", 0)) * BLOCK
    read = int(top.get("Shared Read Blocks", 0)) * BLOCK + temp_read
    return QueryFigures(name=name, seconds=seconds, temp_written_bytes=int(top.get("Temp Written Blocks", 0)) * BLOCK,
                        temp_read_bytes=temp_read, read_bytes=read,
                        read_mbps=read / seconds / 1e6 if seconds > 0 else 0.0)


def run(conn: Any, only: str | None = None) -> tuple[float, list[QueryFigures]]:
    """Every query once (or just ``only``: the warm-up); returns the total seconds (the run's score) and the
    per-query figures."""
    _session(conn)
    figures = [run_query(conn, name, sql) for name, sql in QUERIES.items() if only in (None, name)]
    return sum(q.seconds for q in figures), figures
