"""The note beside a prediction whose layout a published CALIBRATE_IO run measured: the figure, the gap, why."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.model.calibrate_io import RUNS
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout


def run(spec: str, vm: str, depth: int | None = 32):
    cat = load_catalog("oci")
    return predict(parse_layout(spec, "oci", cat), parse_instance(vm, "oci", cat),
                   Workload(host_queue_depth=depth), cat, with_curve=False)


@pytest.mark.parametrize("measured", RUNS, ids=[r.layout for r in RUNS])
def test_a_measured_layout_carries_the_measurement_and_the_gap(measured):
    p = run(measured.layout, measured.instance)
    notes = [n for n in p.notes if n.startswith("CALIBRATE_IO measured")]
    assert len(notes) == 1
    assert p.max_mbps > measured.max_mbps   # the gap the note explains: the figure is not moved to meet it
    assert f"max_mbps {measured.max_mbps:,.0f}" in notes[0]
    assert f"{p.max_mbps - measured.max_mbps:,.0f} under the {p.max_mbps:,.0f} MB/s" in notes[0]
    assert "promatis.com" in notes[0] and "num_physical_disks" in notes[0]


@pytest.mark.parametrize("spec,vm", [("1x3.5T@higher", "VM.Standard.E3.Flex:2"),     # the network binds
                                     ("2x1.75T@higher", "VM.Standard.E3.Flex:6"),    # not what was measured
                                     ("1x3.5T@higher", "VM.Standard.E4.Flex:6")])
def test_no_note_where_no_run_measured_it_or_no_volume_cap_binds(spec, vm):
    p = run(spec, vm)
    assert not [n for n in p.notes if n.startswith("CALIBRATE_IO")]
