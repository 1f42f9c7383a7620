"""plan.host: a candidate's figures at the kernel's default iSCSI session depth, where that changes them."""

from __future__ import annotations

from blockfit.catalog import load_catalog
from blockfit.plan.given import plan_for_layout
from blockfit.plan.host import kernel_depth_figures
from blockfit.specs import parse_instance, parse_layout


def _candidate(cloud: str, spec: str, instance: str):   # type: ignore[no-untyped-def]
    cat = load_catalog(cloud)
    plan = plan_for_layout(parse_layout(spec, cloud, cat), parse_instance(instance, cloud, cat), cat, None)
    return cat, plan.candidates[0]


def test_a_layout_without_iscsi_has_no_kernel_depth_figures() -> None:
    cat, cand = _candidate("aws", "4x500G@gp3", "m6i.4xlarge")
    assert kernel_depth_figures(cat, cand) is None


def test_at_the_kernel_depth_a_fast_iscsi_layout_gives_less_than_tuned() -> None:
    cat, cand = _candidate("oci", "4x2T@higher", "VM.Standard.E4.Flex:16")
    kernel = cat.volume_types[cand.layout_detail.volume.type].iscsi_session_depth
    assert cand.prediction.attachment == "iscsi" and kernel is not None and cand.prediction.session_depth != kernel
    at = kernel_depth_figures(cat, cand)
    assert at is not None and at.workload.host_queue_depth == kernel
    assert at.max_iops < cand.max_iops and at.max_mbps <= cand.max_mbps * (1 + 1e-9)


def test_where_the_depth_changes_no_figure_nothing_is_added() -> None:
    """2 balanced volumes stop at their own caps long before 32 I/Os per session."""
    cat, cand = _candidate("oci", "2x1T@balanced", "VM.Standard.E4.Flex:16")
    assert cand.prediction.attachment == "iscsi"
    assert kernel_depth_figures(cat, cand) is None
