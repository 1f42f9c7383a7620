"""Decision support: analytic queries over a generated fact table whose sorts, hash aggregates and joins spill.

This tests the ASM-vs-LVM report's hypothesis (seed 002: "temporary segment allocation … for the large
GROUP BY and ORDER BY operations"): with a small work_mem each query writes and reads temp files, and
temp_tablespaces points them at a tablespace on the layout under test. Per query, EXPLAIN (ANALYZE, BUFFERS)
gives exact figures for that query alone: execution time, temp blocks written and read, shared blocks
read; read MB/s = (shared + temp blocks read) × 8 KiB / time. Parallel workers are off: each session is one
backend, and two sessions run the queries at once (see run()).

Few, wide rows (≈1.9 KB each, stored uncompressed), a table larger than the cache's dirty share: a spill
costs CPU per row (comparisons, hashing, tuple handling) and I/O per byte. The first design's narrow rows
(≈100 bytes, 200,000 of them) spent 7.0 ms of backend CPU per temp MB on the host, these 0.5 ms; in the lab
guest its temp files never reached the device at all (written and read back within the page cache: each
query's wall time was its CPU time), so no layout could matter. These hold the single volume's writes at
98-101 % of its MB/s cap. Every query carries the wide column through its spill.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from blockfit.schema.bench import QueryFigures

BLOCK = 8192
WORK_MEM = "1MB"
TEMP_TABLESPACE = "bench_temp"
SESSIONS = 2  # concurrent sessions running the queries (see run())
PAD_MD5S = 59  # 59 x 32 hex characters = 1,888 bytes: four rows to a page, under the 2 KB TOAST threshold

QUERIES: dict[str, str] = {
    "order by": "SELECT * FROM fact ORDER BY customer",
    "group by": "SELECT customer, count(*), sum(octet_length(pad)) FROM fact GROUP BY customer",
    "join": "SELECT count(*), sum(octet_length(f.pad) + octet_length(g.pad)) FROM fact f JOIN fact g"
            " ON g.id = f.id + 1",
}
# The plan each query is there to test, pinned: the planner's choice flips with the table size (the GROUP BY
# was a sort below about 20,000 rows, a spilling hash aggregate above), and a sort would test the sort twice.
PINS: dict[str, tuple[str, ...]] = {"group by": ("enable_sort",), "join": ("enable_mergejoin",)}


def prepare(conn: Any, rows: int, temp_dir: str) -> None:
    """The fact table (≈2 KB a row, random keys, the pad stored inline and uncompressed: STORAGE PLAIN) and the
    temp tablespace on the layout."""
    from psycopg import sql  # here: psycopg loads only when a server runs

    conn.execute("DROP TABLE IF EXISTS fact")
    conn.execute("CREATE TABLE fact (id int, customer int, product int, amount numeric(10, 2), pad text)")
    conn.execute("ALTER TABLE fact ALTER COLUMN pad SET STORAGE PLAIN")
    conn.execute(
        "INSERT INTO fact SELECT g, (random() * 100000)::int, (random() * 1000)::int,"
        " (random() * 1000)::numeric(10, 2), repeat(md5(g::text), %s) FROM generate_series(1, %s) AS g",
        (PAD_MD5S, rows))
    conn.execute("VACUUM ANALYZE fact")
    if conn.execute("SELECT 1 FROM pg_tablespace WHERE spcname = %s", (TEMP_TABLESPACE,)).fetchone() is None:
        # the location is the --dir's path: a literal composed by psycopg, never formatted into the statement
        # (a quote in the path moved the tablespace: `--dir "/x/victim'--"` put it in /x/victim)
        conn.execute(sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(sql.Identifier(TEMP_TABLESPACE),
                                                                         sql.Literal(temp_dir)))


def _session(conn: Any) -> None:
    conn.execute(f"SET work_mem = '{WORK_MEM}'")
    conn.execute(f"SET temp_tablespaces = '{TEMP_TABLESPACE}'")
    conn.execute("SET max_parallel_workers_per_gather = 0")
    conn.execute("SET jit = off")


def run_query(conn: Any, name: str, sql: str) -> QueryFigures:
    for setting in PINS.get(name, ()):
        conn.execute(f"SET {setting} = off")
    try:
        plan = conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) {sql}").fetchone()[0][0]
    finally:
        for setting in PINS.get(name, ()):
            conn.execute(f"RESET {setting}")
    top = plan["Plan"]
    seconds = float(plan["Execution Time"]) / 1000.0
    temp_read = int(top.get("Temp Read Blocks", 0)) * BLOCK
    read = int(top.get("Shared Read Blocks", 0)) * BLOCK + temp_read
    return QueryFigures(name=name, seconds=seconds, temp_written_bytes=int(top.get("Temp Written Blocks", 0)) * BLOCK,
                        temp_read_bytes=temp_read, read_bytes=read,
                        read_mbps=read / seconds / 1e6 if seconds > 0 else 0.0)


def _session_queries(conn: Any, names: list[str], out: list[QueryFigures], errors: list[BaseException]) -> None:
    """One session's queries in turn; stops before the next one once any session has failed."""
    try:
        _session(conn)
        for name in names:
            if errors:
                return
            out.append(run_query(conn, name, QUERIES[name]))
    except BaseException as exc:  # noqa: BLE001 - raised again by run(), in the caller's thread
        errors.append(exc)


def run(conn: Any, only: str | None = None) -> tuple[float, list[QueryFigures]]:
    """Every query (or just ``only``: the warm-up) in SESSIONS concurrent sessions, each running them in the same
    order; returns the wall seconds until the last finished (the run's score) and the per-query figures, the
    second session's named '… #2'.

    Why two: one backend alternates CPU, reads it waits for and dirty pages the kernel writes behind it, so in
    the lab the stripe's temp I/O reached 83-95 % of the instance's MB/s cap query by query, and whether a run
    counted as I/O-bound (90 %) came down to a few points; with a second session it held 95-99 %, as concurrent
    reports would on a real server. An error or Ctrl-C in one session cancels the other's query."""
    import psycopg

    names = [name for name in QUERIES if only in (None, name)]
    others = [psycopg.connect(conn.info.dsn, autocommit=True) for _ in range(SESSIONS - 1)]
    outs: list[list[QueryFigures]] = [[] for _ in range(SESSIONS)]
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_session_queries, args=(c, names, outs[i + 1], errors), daemon=True)
               for i, c in enumerate(others)]
    try:
        t0 = time.monotonic()
        for t in threads:
            t.start()
        _session_queries(conn, names, outs[0], errors)
        if errors:
            for c in others:
                c.cancel()
        for t in threads:
            t.join()
        seconds = time.monotonic() - t0
    finally:
        for c in others:
            c.close()
    if errors:
        raise errors[0]
    figures = outs[0] + [q.model_copy(update={"name": f"{q.name} #{i + 1}"}) for i, out in enumerate(outs[1:], 1)
                         for q in out]
    return seconds, figures
