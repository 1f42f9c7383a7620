"""The fleet host table (issue 37 item 6): its "recommended" cell held a whole infeasibility message, so the table
ran past the page; the reason belongs in a list below it."""

from __future__ import annotations

from types import SimpleNamespace

from blockfit.report.fleet import _row
from blockfit.schema.fleet import FleetHost

REASON = ("no layout on VM.Standard.E4.Flex meets 250,000 IOPS (best 234,195, limited by volume IOPS, per-GB scaling "
          "(195 IOPS/GB x 1201 GB)); VM.Optimized3.Flex:5 would: 5x257G@100vpu at $453.80 a month")


def test_an_infeasible_host_says_none_in_its_cell_not_the_whole_reason():
    host = FleetHost.model_construct(host="db-1:9100", status="unknown", now=None, plan=None, infeasible=REASON,
                                     shortfall_pct=None, savings=None,
                                     targets=SimpleNamespace(target_iops=250_000, target_mbps=None))
    row = _row(host)
    assert row[7] == "none (see below)"
    assert max(len(cell) for cell in row) < 40


def test_the_cost_table_names_each_row_once():
    """Two cost rows were both called "storage": the GB-month item and the subtotal."""
    from blockfit.catalog import load_catalog
    from blockfit.model import predict
    from blockfit.report.model import cost_table
    from blockfit.specs import parse_instance, parse_layout

    oci = load_catalog("oci")
    p = predict(parse_layout("2x1T@balanced", "oci", oci), parse_instance("VM.Standard.E4.Flex:8", "oci", oci),
                catalog=oci, with_curve=False)
    names = [row[0] for row in cost_table(p.cost, "oci catalog").rows]
    assert len(names) == len(set(names)), names
