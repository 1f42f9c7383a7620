"""The host settings a prediction depends on and `blockfit build` makes, defined once.

A prediction depends on three things the host sets, not the cloud: how many I/Os one iSCSI session runs at once
(node.session.queue_depth), how many paths carry each volume's I/O (attachment.default_paths: the rule is there),
and the dm-multipath policy that spreads I/O over those paths (`host_settings`: the planner and the lab write
it into each candidate, `build` applies it). `build` sets the session depth to BUILD_SESSION_DEPTH, so that is the
default of every prediction (model, plan, lab, report): `model` at its defaults predicts what blockfit builds.
The kernel's own default (open-iscsi ships 32; the catalog's `iscsi_session_depth`) is what a host nobody tuned
runs at: its figure is a note beside the prediction.
`--queue-depth` and `--paths` override them the same way in `model` and `plan`; `build` sets what the plan assumed
(the candidate's session_queue_depth and multipath); `lab` predicts at the plan's or these defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blockfit.catalog import Catalog
from blockfit.schema import Citation, Prediction

if TYPE_CHECKING:
    from blockfit.schema import MultipathPolicy

# OCI's Higher Performance page (OCI-HP): on Linux, raise node.session.queue_depth from 32 to 128. `build` writes it
# (emit/multipath.py reads the candidate's session_queue_depth, which is this figure unless --queue-depth says).
BUILD_SESSION_DEPTH = 128
BUILD_DEPTH_SOURCE = "OCI-HP"


def build_depth_citation(cat: Catalog) -> Citation | None:
    """The source of BUILD_SESSION_DEPTH in this catalog (None where the catalog does not carry it)."""
    s = cat.sources.get(BUILD_DEPTH_SOURCE)
    return None if s is None else Citation(id=s.id, url=None if s.url == "none" else s.url, date=s.date.isoformat())


def session_depth_words(depth: int, from_option: bool) -> str:
    """How a prediction names the session depth it ran at: the option's, or what build sets."""
    return f"node.session.queue_depth {depth}" if from_option else f"blockfit build's node.session.queue_depth {depth}"


def spreads(attachment: str | None, paths: int | None) -> bool:
    """Does the host need dm-multipath to spread each volume's I/O over its paths? (iSCSI on several paths only: a
    paravirtualized attachment reaches the guest as one device.)"""
    return attachment == "iscsi" and (paths or 1) > 1


def assumptions(pred: Prediction) -> str | None:
    """One line saying what the host must be set to for a prediction's figures to hold (None: nothing the host
    sets). `model` prints it, plan's notes and the report say the same from the same fields."""
    if pred.attachment is None:
        return None
    n = pred.paths or 1
    parts = [f"{pred.attachment} attachment, {n} path{'s' if n > 1 else ''} per volume"]
    if pred.session_depth is not None:
        parts.append(f"node.session.queue_depth {pred.session_depth}")
    if spreads(pred.attachment, pred.paths):
        parts.append("dm-multipath over all paths (multibus, service-time)")
    return "; ".join(parts)


# multipath.conf(5), https://man7.org/linux/man-pages/man5/multipath.conf.5.html: multibus = "all paths in 1
# priority group"; service-time = the path with the shortest estimated service time (outstanding bytes over
# relative throughput). The model's paths x one path's ceilings needs every path busy: one group, all of them.
SPREAD = {"path_grouping_policy": "multibus", "path_selector": "service-time 0"}


def session_queue_depth(pred: Prediction) -> int | None:
    """The node.session.queue_depth the prediction assumed on each iSCSI session (None: no iSCSI session)."""
    return pred.session_depth if pred.attachment == "iscsi" and pred.session_depth else None


def multipath_policy(pred: Prediction) -> MultipathPolicy | None:
    """The policy that makes the prediction's iSCSI paths carry I/O together (None: one path carries it, or the
    paths are not the host's to spread: a paravirtualized attachment reaches the guest as one device)."""
    from blockfit.schema import MultipathPolicy  # here: the plan schema costs `model` ~10 ms at import, unused

    return MultipathPolicy(**SPREAD) if spreads(pred.attachment, pred.paths) else None


def host_settings(pred: Prediction) -> dict[str, Any]:
    """The Candidate fields that say what the host must be set to: session_queue_depth, multipath."""
    return {"session_queue_depth": session_queue_depth(pred), "multipath": multipath_policy(pred)}
