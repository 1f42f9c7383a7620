"""A throwaway PostgreSQL cluster in a new subdirectory of a layout's directory, never reachable over TCP.

Why each rule: the user's directory may hold real data, so we only ever create and delete our own
subdirectory (``blockfit-bench``; a non-empty one is refused). The server runs as the unprivileged
``postgres`` user (it refuses root anyway), with ``listen_addresses=''`` and its socket in a private temp dir,
so nothing else on the machine can reach it. It is started in its own session (a terminal's Ctrl-C reaches
blockfit, which stops it in order) and asks the kernel to SIGKILL it should blockfit die; its backends notice
the postmaster's death and exit. Everything is removed on exit, on error and on Ctrl-C.

initdb and the server run in their own mount and IPC namespaces with a private tmpfs on ``/dev/shm``: a
killed PostgreSQL process (initdb's bootstrap backend on Ctrl-C, a postmaster on SIGKILL) never removes its
POSIX (``/dev/shm/PostgreSQL.*``) or System V shared memory, and such segments cannot be told from another
cluster's by name. In the namespaces they go when the last process does, whatever killed it. Only mounts made
after the split are private, so the data and socket directories stay shared. Where the kernel refuses (not
root) the processes run as before, on the machine's ``/dev/shm``.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from blockfit import proc
from blockfit.dbbench.memcg import MemoryCgroup
from blockfit.errors import EnvironmentProblem, ValueProblem
from blockfit.proc import RunAs

SUBDIR = "blockfit-bench"
SHM = Path("/dev/shm")
_CLONE_NEWNS, _CLONE_NEWIPC = 0x00020000, 0x08000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_SLAVE = 0x2, 0x4, 0x8, 0x4000, 0x80000


def find_bindir() -> Path:
    """The newest Debian PostgreSQL (``/usr/lib/postgresql/N/bin``) that has postgres, initdb and pgbench."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/postgres")
             if (Path(p).parent / "pgbench").exists() and (Path(p).parent / "initdb").exists()]
    if not found:
        raise EnvironmentProblem("PostgreSQL not found in /usr/lib/postgresql/*/bin (install postgresql and "
                                 "postgresql-contrib)")
    return max(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)


def server_user() -> RunAs:
    """Root runs the server as ``postgres``; anyone else runs it as themselves (already unprivileged)."""
    if os.geteuid() != 0:
        pw = pwd.getpwuid(os.geteuid())
        return RunAs(pw.pw_uid, pw.pw_gid, pw.pw_name)
    try:
        pw = pwd.getpwnam("postgres")
    except KeyError:
        raise EnvironmentProblem("user 'postgres' not found (install the postgresql package)") from None
    return RunAs(pw.pw_uid, pw.pw_gid, pw.pw_name)


@dataclass(frozen=True)
class PrivateShm:
    """What the child needs to put a private tmpfs on /dev/shm: the size of the machine's own (the same room)."""

    size_bytes: int


def private_shm(*needed: Path) -> PrivateShm | None:
    """A private /dev/shm for a server process that needs ``needed`` (data, socket dir), or None if it cannot
    have one: no /dev/shm, or one of those paths lies under it (the new tmpfs would hide it)."""
    try:
        shm = SHM.resolve(strict=True)
        st = os.statvfs(shm)
    except OSError:
        return None
    if any(p.resolve() == shm or shm in p.resolve().parents for p in needed):
        return None
    return PrivateShm(size_bytes=st.f_blocks * st.f_frsize)


def _isolate_shm(libc: ctypes.CDLL, shm: PrivateShm) -> bool:
    """In the child: new mount + IPC namespaces, nothing propagating out, a fresh tmpfs on /dev/shm. False (and
    the machine's /dev/shm in use, as without namespaces) if the kernel refuses, e.g. for a user without root."""
    if libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC) != 0 and libc.unshare(_CLONE_NEWNS) != 0:  # no IPC ns built in
        return False
    # A shared / would carry the tmpfs mount back to the machine's namespace. Slave, not private: nothing of
    # ours goes out, while the machine's unmounts still come in where its mounts are shared (else our copy of
    # the mount table would keep a filesystem someone unmounts busy as long as the server runs).
    if libc.mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_SLAVE), None) != 0:
        return False
    options = f"mode=1777,size={shm.size_bytes}".encode()
    return libc.mount(b"tmpfs", str(SHM).encode(), b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC),
                      options) == 0


def _child_setup(user: RunAs, cgroup: MemoryCgroup | None, shm: PrivateShm | None = None) -> Callable[[], None]:
    """In the child before exec: join the memory cgroup (as root), take a private /dev/shm (``shm``, as root),
    then (``proc.child_setup``) drop to the user and die with the parent. No new process: the server itself
    gets the parent-death signal."""
    return proc.child_setup(user, _as_root(cgroup, shm))


def _as_root(cgroup: MemoryCgroup | None, shm: PrivateShm | None) -> Callable[[], None] | None:
    """What the server's child does as root before dropping to the server user (None: nothing)."""
    if cgroup is None and shm is None:
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def before() -> None:
        if cgroup is not None:
            cgroup.enter()
        if shm is not None:
            _isolate_shm(libc, shm)
    return before


def check_dir(path: Path) -> Path:
    """Validate one --dir before anything is created; returns the cluster subdirectory to use."""
    text = str(path)
    if any(not ch.isprintable() for ch in text) or "'" in text:
        # a line break would split the janitor's manifest (`dir PATH` per line: a second line it deletes after a
        # SIGKILL) and PostgreSQL refuses a quote in a tablespace location (dss's temp tablespace)
        raise ValueProblem(f"{text!r}: expected a directory path without line breaks or other control characters, "
                           "and without a single quote (PostgreSQL refuses one in a tablespace location)")
    sub = path / SUBDIR
    try:
        exists, is_dir = path.exists(), path.is_dir()
        busy = is_dir and sub.exists() and (not sub.is_dir() or any(sub.iterdir()))
    except OSError as exc:  # a name too long, a loop of symlinks, a directory we may not list
        raise ValueProblem(f"{path}: cannot be used ({exc.strerror}; expected a directory on the filesystem "
                           "under test)") from None
    if not exists:
        raise ValueProblem(f"{path}: does not exist (expected a directory on the filesystem under test)")
    if not is_dir:
        raise ValueProblem(f"{path}: is not a directory (expected a directory on the filesystem under test)")
    if busy:
        raise ValueProblem(f"{path}: {sub} exists and is not empty (expected a new or empty cluster "
                         "directory; blockfit never touches data it did not create)")
    user = server_user()
    if proc.run(["test", "-x", str(path)], user=user, timeout=60).returncode != 0:
        raise ValueProblem(f"{path}: not reachable by user {user.name}, who runs the server (expected every "
                         "directory on the path to be searchable by that user, e.g. chmod o+x)")
    return sub


@dataclass
class Cluster:
    """One running server: where its data and socket are, and how to reach it."""

    label: str
    root: Path
    socket_dir: Path
    bindir: Path
    user: RunAs
    log: Path
    port: int = 5432
    process: subprocess.Popen[bytes] | None = None
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def temp_dir(self) -> Path:
        """Where the temp tablespace lives (on the layout, beside the data directory, not inside it)."""
        return self.root / "temp"

    @property
    def conninfo(self) -> str:
        return f"host={self.socket_dir} port={self.port} user=postgres dbname=postgres"

    def env(self) -> dict[str, str]:
        """Environment for client tools (pgbench, psql): the socket, never TCP."""
        return {**os.environ, "PGHOST": str(self.socket_dir), "PGPORT": str(self.port), "PGUSER": "postgres",
                "PGDATABASE": "postgres"}

    def log_tail(self, lines: int = 5) -> str:
        try:
            return " | ".join(self.log.read_text(errors="replace").strip().splitlines()[-lines:])
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def _run(argv: list[str], user: RunAs, what: str, log: Path, shm: PrivateShm | None, timeout: float = 600) -> None:
    """Run a server tool (initdb) in its own process group: on Ctrl-C the group goes at once (SIGKILL),
    children included (initdb's bootstrap postgres would otherwise keep writing into the directory being
    deleted)."""
    with open(log, "ab") as fh:
        try:
            done = proc.run(argv, capture=False, stdout=fh, stderr=subprocess.STDOUT, user=user,
                            before=_as_root(None, shm), timeout=timeout, grace=0)
        except subprocess.TimeoutExpired:
            raise EnvironmentProblem(f"{what} took longer than {timeout:.0f} s") from None
    if done.returncode != 0:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
        raise EnvironmentProblem(f"{what} failed (exit {done.returncode}): {tail}")


def initdb(cluster: Cluster) -> None:
    """Create the data directory (and the temp tablespace directory) as the server user."""
    for d in (cluster.root, cluster.data, cluster.temp_dir):
        d.mkdir(exist_ok=True)
        os.chown(d, cluster.user.uid, cluster.user.gid)
        d.chmod(0o700)
    probe = proc.run(["test", "-w", str(cluster.data)], user=cluster.user, timeout=60)
    if probe.returncode != 0:
        raise ValueProblem(f"{cluster.root.parent}: user {cluster.user.name} cannot reach {cluster.data} "
                         "(expected every parent directory to be searchable by that user, e.g. chmod o+x)")
    _run([str(cluster.bindir / "initdb"), "-D", str(cluster.data), "--auth=trust", "-U", "postgres", "-E", "UTF8",
          "--no-sync", "--no-instructions"], cluster.user, "initdb", cluster.log, private_shm(cluster.root))


def start(cluster: Cluster, cgroup: MemoryCgroup | None, timeout_s: float = 120.0) -> None:
    """Start the postmaster in the memory cgroup, listening only on the private socket; wait until it accepts."""
    import psycopg

    argv = [str(cluster.bindir / "postgres"), "-D", str(cluster.data), "-k", str(cluster.socket_dir),
            "-p", str(cluster.port), "-c", "listen_addresses="]
    for key, value in cluster.settings.items():
        argv += ["-c", f"{key}={value}"]
    log = open(cluster.log, "ab")  # noqa: SIM115 - the server writes to it until it stops
    try:
        cluster.process = proc.start(argv, stdout=log, stderr=subprocess.STDOUT, user=cluster.user,
                                     before=_as_root(cgroup, private_shm(cluster.root, cluster.socket_dir)))
    finally:
        log.close()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not cluster.alive():
            raise EnvironmentProblem(f"postgres ({cluster.label}) exited while starting: {cluster.log_tail()}")
        try:
            with psycopg.connect(cluster.conninfo, connect_timeout=5) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            time.sleep(0.2)
    raise EnvironmentProblem(f"postgres ({cluster.label}) did not accept connections within {timeout_s:.0f} s: "
                             f"{cluster.log_tail()}")


def stop(cluster: Cluster, cgroup: MemoryCgroup | None, timeout_s: float = 30.0) -> None:
    """Fast shutdown (SIGINT to the postmaster), then SIGKILL whatever is left of the process tree."""
    server = cluster.process
    if server is not None:
        if server.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                server.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=timeout_s)
        proc.kill_group(server)
    if cgroup is not None:
        cgroup.kill_all()
    cluster.process = None


Register = Callable[[str, Path], None]  # (kind, path) of what was just created: the janitor's manifest


@contextlib.contextmanager
def private_dir(user: RunAs | None = None, register: Register | None = None) -> Iterator[Path]:
    """A temp dir only we (and, when given, the server user) can use; removed on exit."""
    path = Path(tempfile.mkdtemp(prefix="blockfit-bench-"))
    if register is not None:
        register("dir", path)
    try:
        if user is not None:
            os.chown(path, user.uid, user.gid)
        path.chmod(0o700)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def throwaway_cluster(label: str, sub: Path, workdir: Path, settings: dict[str, str],
                      bindir: Path | None = None, register: Register | None = None) -> Iterator[Cluster]:
    """The cluster's directories: created here (not started); on exit the server is stopped by the caller and
    every directory this created is deleted. ``sub`` is what ``check_dir`` returned."""
    user = server_user()
    created = not sub.exists()
    if created and register is not None:
        register("dir", sub)
    with private_dir(user, register) as sock:
        cluster = Cluster(label=label, root=sub, socket_dir=sock, bindir=bindir or find_bindir(), user=user,
                          log=workdir / f"postgres-{len(list(workdir.glob('postgres-*')))}.log", settings=settings)
        try:
            yield cluster
        finally:
            if cluster.alive():
                stop(cluster, None)
            if created:
                for _ in range(20):  # a process dying late may still add a file once
                    shutil.rmtree(sub, ignore_errors=True)
                    if not sub.exists():
                        break
                    time.sleep(0.1)
            else:
                for child in list(sub.iterdir()) if sub.exists() else []:
                    shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
