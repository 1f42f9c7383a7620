"""model.redundancy: mirrored writes cost copies x the I/O; reads are read once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.model.limits import Cap
from blockfit.model.redundancy import DIRECTIONAL, amplification, binding_sentence, copies, describe, logical_limits

LEVELS = ["none", "normal", "high", "raid10"]
share = st.floats(0.0, 1.0)


@given(st.sampled_from(LEVELS), share)
def test_amplification_lies_between_one_and_the_copies(level: str, r: float) -> None:
    amp = amplification(level, r)
    assert 1 - 1e-12 <= amp <= copies(level) + 1e-12
    assert amplification(level, 1.0) == 1 and amplification(level, 0.0) == copies(level)


@given(st.sampled_from(LEVELS), share, share)
def test_more_reads_never_cost_more(level: str, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert amplification(level, hi) <= amplification(level, lo) + 1e-12


def test_nothing_is_said_when_nothing_changes() -> None:
    assert describe("none", 0.3) is None and describe("high", 1.0) is None
    assert binding_sentence("normal", 1.0, Cap("volume_iops", "d", ops=1.0), None) is None
    text = describe("normal", 0.7)
    assert text is not None and "writes x 2" in text and "30 % writes" in text and "1.30" in text


def test_every_cap_but_the_directional_one_is_divided() -> None:
    caps = [Cap("volume_iops", "vol", ops=3000.0), Cap("volume_mbps", "vol", mbps=250.0),
            Cap(DIRECTIONAL, "net", mbps=1000.0)]
    out = logical_limits(caps, "high", 0.5)
    amp = amplification("high", 0.5)
    assert out[0].ops == pytest.approx(3000 / amp) and out[1].mbps == pytest.approx(250 / amp)
    assert out[2] is caps[2] and "writes x 3" in out[0].description
    assert logical_limits(caps, "none", 0.5) is caps


def test_the_binding_sentence_names_the_side_and_its_figure() -> None:
    inst = binding_sentence("normal", 0.5, Cap(DIRECTIONAL, "net", mbps=500.0), 1440.0)
    assert inst == "writes x 2 at normal redundancy exhaust the instance's 1,440 MB/s"
    vol = binding_sentence("raid10", 0.5, Cap("volume_iops", "v", ops=2000.0), None)
    assert vol == f"writes x 2 at RAID10 exhaust the volumes' {2000 * 1.5:,.0f} IOPS"
