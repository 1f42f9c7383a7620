"""Whether this machine has a PostgreSQL server the tests can start (the skip condition of the PostgreSQL tests)."""

from __future__ import annotations


def has_postgres() -> bool:
    """True when blockfit finds a PostgreSQL server's binaries (Debian postgresql or a PyPI build)."""
    from blockfit.dbbench.cluster import find_bindir

    try:
        find_bindir()
    except Exception:
        return False
    return True
