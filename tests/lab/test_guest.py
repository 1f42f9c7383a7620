"""The guest's mounts: a checkout under /tmp is bound back in."""

from __future__ import annotations

from pathlib import Path


def test_a_checkout_under_tmp_is_bound_back_into_the_guest() -> None:
    """The guest mounts a fresh tmpfs on /tmp: /tmp's child holding the venv or the source is bound back in (once),
    nothing elsewhere, never /tmp itself (test_lab_caps checks it in a real guest)."""
    from blockfit.lab.guest import under_tmp

    assert under_tmp([Path("/tmp/clone/.venv"), Path("/tmp/clone/src/blockfit"), Path("/work/x/.venv"),
                      Path("/tmp")]) == ["/tmp/clone"]
    assert under_tmp([Path("/root/.venv")]) == []
