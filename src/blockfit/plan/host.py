"""What a plan candidate's layout gives on a host nobody tuned (the kernel's default iSCSI session depth).

What the host must be set to for a prediction to hold is `model.host.host_settings`, written into every candidate
for `build` to apply; this module adds the figures at the depth an untuned host runs at, beside them.
"""

from __future__ import annotations

from blockfit.catalog import Catalog
from blockfit.model import predict
from blockfit.schema import Candidate, Prediction


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
