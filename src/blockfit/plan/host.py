"""What the host must be set to for a prediction to hold, written into every plan candidate for `build` to apply.

Two settings the prediction depends on and the cloud does not make: the iSCSI session queue depth it ran at
(node.session.queue_depth; OCI's Higher Performance page: raise it from 32 to 128), and, when several paths carry
each volume's I/O, a dm-multipath policy that uses them all (one path group of every path: multibus; the path
with the least outstanding work next: service-time). The build reads these fields and nothing else, so what a
plan assumes and what its scripts set cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from blockfit.catalog import Catalog
from blockfit.model import predict
from blockfit.model.host import spreads
from blockfit.schema import Candidate, MultipathPolicy, Prediction

# multipath.conf(5), https://man7.org/linux/man-pages/man5/multipath.conf.5.html: multibus = "all paths in 1
# priority group"; service-time = the path with the shortest estimated service time (outstanding bytes over
# relative throughput). The model's paths x one path's ceilings needs every path busy: one group, all of them.
SPREAD = MultipathPolicy(path_grouping_policy="multibus", path_selector="service-time 0")


def session_queue_depth(pred: Prediction) -> int | None:
    """The node.session.queue_depth the prediction assumed on each iSCSI session (None: no iSCSI session)."""
    return pred.session_depth if pred.attachment == "iscsi" and pred.session_depth else None


def multipath_policy(pred: Prediction) -> MultipathPolicy | None:
    """The policy that makes the prediction's iSCSI paths carry I/O together (None: one path carries it, or the
    paths are not the host's to spread: a paravirtualized attachment reaches the guest as one device)."""
    return SPREAD.model_copy() if spreads(pred.attachment, pred.paths) else None


def host_settings(pred: Prediction) -> dict[str, Any]:
    """The Candidate fields that say what the host must be set to: session_queue_depth, multipath."""
    return {"session_queue_depth": session_queue_depth(pred), "multipath": multipath_policy(pred)}


def kernel_depth_figures(cat: Catalog, cand: Candidate) -> Prediction | None:
    """The candidate at the kernel's default session depth (the catalog's, open-iscsi's 32) where that differs from
    what build sets and changes a figure: what the layout gives on a host nobody tuned. None otherwise."""
    pred = cand.prediction
    vt = cat.volume_types[pred.layout_detail.volume.type]
    kernel = vt.iscsi_session_depth
    if pred.attachment != "iscsi" or kernel is None or pred.session_depth in (None, kernel):
        return None
    wl = pred.workload.model_copy(update={"host_queue_depth": kernel})
    at = predict(pred.layout_detail, pred.instance_detail, wl, cat, with_curve=False)
    return None if (at.max_iops, at.max_mbps) == (pred.max_iops, pred.max_mbps) else at
