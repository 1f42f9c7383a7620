"""`blockfit record --pg DSN`: sample a PostgreSQL server's own I/O counters and the host's /proc/diskstats of the
devices under its data directory, into a recording `plan --from` reads (history/pg_recording.py).

Why both: the devices' counters are what a volume must serve; the server's counters say which part is the
database's and are all there is when the server runs elsewhere. They are not the same thing, and the recording
keeps both so the mapping can be checked on the same run:

- the server counts blocks (8 KiB): a block read is a read() call, which the page cache may answer without any
  device I/O, and readahead merges neighbours into one larger device read;
- block writes (checkpointer, bgwriter, backends) go to the page cache; the kernel writes them back later,
  merging neighbours, so several block writes become one device write, and fsync adds flushes;
- WAL is written in pages of 8 KiB, several at once (pg_stat_wal's wal_write counts the write() calls).

Counters by server version: 16 and later have pg_stat_io (reads, writes, extends per backend type, object and
context, in op_bytes units; 18 adds read_bytes/write_bytes); 15 and earlier have pg_stat_database.blks_read, the
bgwriter's buffers_checkpoint, buffers_clean and buffers_backend, and pg_stat_wal (14+). pg_stat_io's reads and
writes include WAL from 18 on; before, WAL comes from pg_stat_wal.

The recording is JSON lines: a header (server, version, counters used, data directory, devices with the paths
they hold), then one sample per interval (monotonic seconds, wall time, cumulative server counters, raw
/proc/diskstats lines of the devices). Each line is written and flushed as it is taken, to `OUT.partial`, renamed
to OUT at the end (and on Ctrl-C, SIGTERM or a server that stops answering, with what was sampled, which is still
a valid recording); a run killed outright leaves `OUT.partial`, a recording of what it measured. Nothing is kept
in memory but the sample being taken.

Every call to the server has a deadline (`timeout_s`): connecting (libpq's connect_timeout), each statement on
the server (statement_timeout), a TCP peer that is gone (keepalives, tcp_user_timeout), and above them a
watchdog that shuts the connection's socket when a call has not returned in time. The watchdog is what holds
against a backend that is stopped (SIGSTOP, a frozen VM, a hung storage stack): the kernel still acknowledges
its packets and the server's own timeout never runs, so only the client can give up.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from blockfit import lifecycle
from blockfit.devices import diskstats, sysfs
from blockfit.errors import EnvironmentProblem, ValueProblem
from blockfit.files import StreamFile
from blockfit.history.pg_recording import FORMAT, VERSION

TIMEOUT_S = 30.0   # one call to the server (a sample's statements are catalog views: milliseconds when it answers)
CONNECT_S = 10     # connecting, at most (libpq counts whole seconds)
MAX_SAMPLES = 3_000_000  # what `plan --from` reads of a recording (history.readers.MAX_SAMPLES)
_QUOTED_RE = re.compile(r'"[^"]*"')  # what libpq quotes from a string it cannot parse
_SYNTAX = {'"="', '":"', '"/"', '"["', '"]"'}  # quoted by libpq's own words, never from the string


@dataclass(frozen=True)
class Device:
    name: str
    major_minor: str
    paths: list[str]


def device_of(path: str) -> Device | None:
    """The block device a path's filesystem is on (by st_dev), or None (not local, or not a block device)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    name = sysfs.name_of(st.st_dev)
    if name is None:
        return None  # tmpfs, overlay, NFS: no block device (st_dev is anonymous)
    return Device(name=name, major_minor=sysfs.majmin(st.st_dev), paths=[path])


def _devices(paths: list[str]) -> list[Device]:
    found: dict[str, Device] = {}
    for p in paths:
        d = device_of(p)
        if d is None:
            continue
        if d.name in found:
            found[d.name].paths.append(p)
        else:
            found[d.name] = d
    return list(found.values())


def _connect_problem(message: str, dsn: str) -> str:
    """libpq's reason, without the password. A string libpq cannot parse is quoted back in part ('invalid
    percent-encoded token: "pa%zz"', 'missing "=" after "word"', a URI whole): then nothing it quotes is shown.
    Otherwise the password (and the string itself) are masked wherever they appear."""
    from psycopg import Error

    try:
        password = _password(dsn)
    except Error:
        plain = " ".join(message.split())
        shown = _QUOTED_RE.sub(lambda m: m[0] if m[0] in _SYNTAX else '"…"', plain)
        why = "; what libpq quoted from it is not shown: it may hold the password" if shown != plain else ""
        return f"does not parse ({shown[:200]}{why})"
    return f"cannot connect ({_masked(message, dsn, password)})"


def _masked(message: str, dsn: str, password: str) -> str:
    """MESSAGE on one line, at most 200 characters, the connection string and its password shown as ***."""
    for secret in (dsn, password):
        if secret:
            message = message.replace(secret, "***")
    return " ".join(message.split())[:200]


def _password(dsn: str) -> str:
    """The password a connection string holds ('' when none); psycopg.Error when it does not parse."""
    from psycopg.conninfo import conninfo_to_dict

    return str(conninfo_to_dict(dsn).get("password") or "")


class NoAnswer(Exception):
    """A call to the server did not return within its deadline (the watchdog shut the connection)."""


class _Watchdog:
    """Shuts a connection's socket if the call it guards has not returned by its deadline: libpq's read then
    fails at once, whatever the server (or the network) is doing. One per call; `expired` says it fired."""

    def __init__(self, fd: int, timeout_s: float) -> None:
        self.fd = fd
        self.expired = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(timeout_s, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def _cut(self) -> None:
        with self._lock:
            if self.fd < 0:
                return
            self.expired = True
            with contextlib.suppress(OSError):
                sock = socket.socket(fileno=os.dup(self.fd))  # a socket object of our own: closing it closes the dup
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                finally:
                    sock.close()

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            self.fd = -1   # the call returned: never shut a socket libpq may have reused the number for


class Server:
    """The server's cumulative I/O counters, read the same way every sample, each call within TIMEOUT_S."""

    def __init__(self, dsn: str, timeout_s: float = TIMEOUT_S) -> None:
        import psycopg

        self.timeout_s = timeout_s
        user_timeout_ms = max(1000, int(timeout_s * 1000))
        try:   # keepalives and tcp_user_timeout apply over TCP only; a Unix socket needs none of them
            self.conn = psycopg.connect(dsn, autocommit=True, connect_timeout=max(2, min(CONNECT_S, int(timeout_s))),
                                        keepalives=1, keepalives_idle=max(1, int(timeout_s) // 2),
                                        keepalives_interval=max(1, int(timeout_s) // 6), keepalives_count=3,
                                        tcp_user_timeout=user_timeout_ms)
        except psycopg.Error as exc:
            raise ValueProblem(f"connection string: {_connect_problem(str(exc), dsn)}") from None
        self.call(lambda: self.conn.execute("SELECT set_config('statement_timeout', %s, false)",
                                            [f"{user_timeout_ms}ms"]))
        self.version = int(self._one("SHOW server_version_num"))
        self.block_size = int(self._one("SHOW block_size"))
        self.io_columns: set[str] = set()
        if self.version >= 160000:
            self.io_columns = {r[0] for r in self._rows(
                "SELECT attname FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_stat_io'::regclass AND attnum > 0")}
        self.counters = "pg_stat_io" if self.io_columns else "pg_stat_database+bgwriter+wal"

    def call(self, work: Callable[[], Any]) -> Any:
        """WORK (statements on this connection) under the watchdog: NoAnswer when it did not return in time."""
        watchdog = _Watchdog(self.conn.pgconn.socket, self.timeout_s)
        try:
            return work()
        except Exception:
            if watchdog.expired:
                raise NoAnswer(f"no answer within {self.timeout_s:g} s") from None
            raise
        finally:
            watchdog.cancel()

    def _rows(self, sql: str) -> list[Any]:
        return list(self.call(lambda: self.conn.execute(sql).fetchall()))

    def _one(self, sql: str) -> Any:
        rows = self._rows(sql)
        return rows[0][0] if rows else None

    def _row(self, sql: str) -> Any:
        rows = self._rows(sql)
        return rows[0] if rows else None

    def data_paths(self) -> tuple[str | None, list[str]]:
        """The data directory (None without the privilege to see it) and the paths whose devices hold data."""
        import psycopg

        try:
            data = str(self._one("SHOW data_directory"))
        except psycopg.Error:
            return None, []
        paths = [data]
        wal = Path(data) / "pg_wal"
        with contextlib.suppress(OSError):
            paths.append(str(wal.resolve()))
        with contextlib.suppress(psycopg.Error):
            paths += [str(r[0]) for r in self._rows(
                "SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE pg_tablespace_location(oid) <> ''")]
        return data, paths

    def sample(self) -> dict[str, Any]:
        """Cumulative counters, and 'reset': the counters' reset times (a change marks a reset, like a restart)."""
        bs = self.block_size
        out: dict[str, Any] = {}
        if self.io_columns:
            has_bytes = "read_bytes" in self.io_columns
            size = "1" if has_bytes else "coalesce(op_bytes, 0)"
            rb = "read_bytes" if has_bytes else f"reads * {size}"
            wb = "write_bytes" if has_bytes else f"writes * {size}"
            eb = "extend_bytes" if has_bytes else f"extends * {size}"
            row = self._row(
                "SELECT coalesce(sum(reads), 0), coalesce(sum(" + rb + "), 0), coalesce(sum(writes), 0), "
                "coalesce(sum(" + wb + "), 0), coalesce(sum(extends), 0), coalesce(sum(" + eb + "), 0), "
                "coalesce(max(stats_reset)::text, '') FROM pg_stat_io")
            assert row is not None
            out.update(reads=float(row[0]), read_bytes=float(row[1]), writes=float(row[2]),
                       write_bytes=float(row[3]) + float(row[5]), extends=float(row[4]))
            reset = str(row[6])
        else:
            reads = float(self._one("SELECT coalesce(sum(blks_read), 0) FROM pg_stat_database") or 0)
            row = self._row("SELECT buffers_checkpoint + buffers_clean + buffers_backend, "
                            "coalesce(stats_reset::text, '') FROM pg_stat_bgwriter")
            assert row is not None
            out.update(reads=reads, read_bytes=reads * bs, writes=float(row[0]), write_bytes=float(row[0]) * bs,
                       extends=0.0)
            reset = str(row[1])
        if self.version >= 140000 and self.version < 180000:
            wal = self._row("SELECT wal_write, wal_bytes, coalesce(stats_reset::text, '') FROM pg_stat_wal")
            if wal is not None:
                out.update(wal_writes=float(wal[0]), wal_bytes=float(wal[1]))
                reset += "|" + str(wal[2])
        out["reset"] = reset
        return out

    def start_time(self) -> str:
        return str(self._one("SELECT pg_postmaster_start_time()::text"))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def record(dsn: str, interval_s: float, duration_s: float, out: Path,
           progress: Callable[[int, int], None] | None = None, timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """Sample for DURATION_S every INTERVAL_S into OUT, each sample written as it is taken; returns the header.
    Ctrl-C, SIGTERM and a server that stops answering keep what was sampled (2 samples or more)."""
    count = sample_count(interval_s, duration_s)
    server = Server(dsn, timeout_s)
    try:
        header = _header(server, interval_s)
        fh = StreamFile(out, "--out", keep=True)
        try:
            fh.write(json.dumps(header) + "\n")
            taken, lost, interrupted = _sample_into(fh, server, header, count, dsn, progress)
        except BaseException:
            if fh.lines < 3:   # a header and fewer than 2 samples: not a recording; else OUT.partial stays
                fh.discard()
            raise
        if taken >= 2:
            fh.commit(check=_reads_back)
        else:
            fh.discard()
        if interrupted:
            raise KeyboardInterrupt
        if lost is not None:
            kept = f"its {taken} samples are in {out}" if taken >= 2 else "nothing was written (fewer than 2 samples)"
            raise EnvironmentProblem(f"record: the server stopped answering after {taken} of {count} samples "
                                     f"({lost}); {kept}")
        header["samples"] = taken
        return header
    except NoAnswer as exc:   # before the first sample: nothing to keep
        raise EnvironmentProblem(f"record: the server stopped answering ({exc}); nothing was written") from None
    except OSError as exc:
        raise EnvironmentProblem(f"record: {exc}") from None
    finally:
        server.close()


def _reads_back(path: Path) -> None:
    """A recording read as `plan --from` reads it (line by line, within its caps), before it is renamed."""
    from blockfit.history import pg_recording  # it reads our FORMAT: imported here, not at the top

    with open(path, encoding="utf-8") as fh:
        pg_recording.read_lines(path, fh, MAX_SAMPLES)


def sample_count(interval_s: float, duration_s: float) -> int:
    """Samples a recording of DURATION_S every INTERVAL_S holds; past what `plan --from` reads is refused."""
    if interval_s <= 0 or duration_s < interval_s:
        raise ValueProblem(f"duration {duration_s:g} s: expected at least one interval ({interval_s:g} s)")
    count = int(duration_s // interval_s) + 1
    if count > MAX_SAMPLES:
        raise ValueProblem(f"{duration_s:g} s every {interval_s:g} s: {count:,} samples; expected at most "
                           f"{MAX_SAMPLES:,} (what plan --from reads): record at a longer interval")
    return count


def _header(server: Server, interval_s: float) -> dict[str, Any]:
    data, paths = server.data_paths()
    devices = _devices(paths)
    return {
        "type": "header", "format": FORMAT, "version": VERSION, "host": socket.gethostname(),
        "started": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "interval_s": interval_s,
        "server_version": server.version, "server_counters": server.counters, "block_size": server.block_size,
        "postmaster_start": server.start_time(), "data_directory": data,
        "devices": [{"name": d.name, "major_minor": d.major_minor, "paths": d.paths} for d in devices],
        # CLOCK_MONOTONIC: another process can line its own readings up with ours
        "monotonic_t0": time.monotonic()}


def _sample_into(fh: StreamFile, server: Server, header: dict[str, Any], count: int, dsn: str,
                 progress: Callable[[int, int], None] | None) -> tuple[int, str | None, bool]:
    """Take COUNT samples into FH (each line flushed as it is taken): (samples taken, why the server stopped
    answering or None, whether a signal stopped it)."""
    import psycopg

    names = {d["name"] for d in header["devices"]}
    t0, interval_s = float(header["monotonic_t0"]), float(header["interval_s"])
    taken = 0
    with lifecycle.interrupting(signal.SIGTERM):
        try:
            for k in range(count):
                delay = t0 + k * interval_s - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                disk = diskstats.lines_of(names) if names else []
                t = time.monotonic() - t0
                try:
                    pg = server.sample()
                except NoAnswer as exc:   # stopped, frozen, or a network that drops everything
                    return taken, str(exc), False
                except psycopg.Error as exc:   # restarted, killed, network gone: keep what was sampled
                    return taken, _masked(str(exc), dsn, _password(dsn)), False
                fh.write(json.dumps({"type": "sample", "t": round(t, 6),
                                     "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                                     "pg": pg, "diskstats": disk}) + "\n")
                taken += 1
                if progress is not None:
                    progress(taken, count)
        except KeyboardInterrupt:
            return taken, None, True
    return taken, None, False
