"""Several hosts sharing storage (RAC nodes): drive ``fio --server`` instances with ``fio --client``.

Each host gets its own job file with its share of the total outstanding I/Os; job sections are named
``h<index>-...`` so each result can be attributed to its host even when two servers share an address.
fio reports them under ``client_stats``; their json+ bins are merged like local jobs.
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from blockfit import proc
from blockfit.errors import EnvironmentProblem, ValueProblem
from blockfit.measure.fio_run import fio_binary

DEFAULT_PORT = 8765
_HOST_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z")  # a DNS name or an IPv4 address


@dataclass(frozen=True)
class Host:
    host: str
    port: int = DEFAULT_PORT

    @property
    def label(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def fio_client(self) -> str:
        """fio's --client spelling: 'host,port'."""
        return f"{self.host},{self.port}"


def _is_ipv4(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) < 256 for p in parts)


def parse_host(text: str) -> Host:
    """'node1', 'node1:8765', '10.0.0.5:9000' → Host (IPv4 or names; fio's default port 8765)."""
    host, sep, port = text.rpartition(":") if ":" in text else (text, "", "")
    if (not _HOST_RE.match(host) or (sep and not port.isdigit()) or (port and not 0 < int(port) < 65536)
            or (host.replace(".", "").isdigit() and not _is_ipv4(host))):  # '0' or '10.1' is not a name
        raise ValueProblem(f"{text!r}: expected HOST or HOST:PORT of a running 'fio --server'")
    return Host(host=host, port=int(port) if port else DEFAULT_PORT)


def host_index(jobname: str) -> int | None:
    """'h1-small0' → 1."""
    head = jobname.split("-", 1)[0]
    return int(head[1:]) if head.startswith("h") and head[1:].isdigit() else None


def client_args(hosts: Sequence[Host], job_files: Sequence[Path]) -> list[str]:
    args: list[str] = []
    for host, job in zip(hosts, job_files, strict=True):
        args += [f"--client={host.fio_client}", str(job)]
    return args


def check_reachable(hosts: Sequence[Host], timeout: float = 3.0) -> None:
    for h in hosts:
        try:
            with socket.create_connection((h.host, h.port), timeout=timeout):
                pass
        except OSError as exc:
            raise EnvironmentProblem(f"--host {h.label}: no fio --server answering ({exc.strerror or exc})") from None


@contextlib.contextmanager
def fio_server(port: int, host: str = "127.0.0.1", launcher: Sequence[str] = (), fio: str = "fio",
               log: Path | None = None, cwd: Path | None = None) -> Iterator[Host]:
    """Run ``fio --server`` on host:port (for tests and single-machine labs); stopped with its children on exit.

    ``cwd``: the server's working directory, against which relative target paths in job files resolve (lets
    two local "hosts" see the same relative path as different devices, like two nodes' paths to one LUN).
    """
    out = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115
    server = proc.start([*launcher, fio_binary(fio), f"--server=ip:{host},{port}"], stdout=out,
                        stderr=subprocess.STDOUT, cwd=cwd)
    try:
        deadline = time.monotonic() + 10
        while True:
            if server.poll() is not None:
                raise EnvironmentProblem(f"fio --server on {host}:{port} exited with status {server.returncode}")
            try:
                with socket.create_connection((host, port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise EnvironmentProblem(f"fio --server on {host}:{port} did not start listening") from None
                time.sleep(0.1)
        yield Host(host=host, port=port)
    finally:
        proc.stop_group(server)
        if log:
            out.close()  # type: ignore[union-attr]
