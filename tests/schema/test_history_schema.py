"""schema.history: the targets `--from` derived, with the sources and series they rest on."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from blockfit.schema.history import DerivedTargets, HistoryFormat, HistoryPoint, HistorySource, PeakWindow


def _targets(**kw: object) -> DerivedTargets:
    src = HistorySource(path="awr.html", format="awr", member_kind="instance", members=["orcl1"], interval_s=3600,
                        samples=1)
    base: dict[str, object] = {
        "sources": [src], "samples": 1, "interval_s": 3600, "percentile": 100, "percentile_name": "peak",
        "peak_factor": 1, "peak_factor_source": "documented default", "headroom_pct": 20, "iops": 1000,
        "mbps": 50, "read_pct": 70, "target_iops": 1200, "target_mbps": 60}
    return DerivedTargets.model_validate({**base, **kw})


def test_targets_round_trip_with_series_and_windows() -> None:
    t = _targets(series=[HistoryPoint(t=0, duration_s=3600, label="1-2", read_iops=700, write_iops=300,
                                      read_mbps=35, write_mbps=15)],
                 peak_iops_window=PeakWindow(label="1-2", iops=1000, mbps=50))
    assert DerivedTargets.model_validate_json(t.model_dump_json()) == t
    assert t.read_pct_from == "ios" and t.outstanding is None


def test_every_history_format_is_accepted_and_others_refused() -> None:
    for fmt in typing.get_args(HistoryFormat):
        assert HistorySource(path="p", format=fmt, member_kind="file", members=[], interval_s=60,
                             samples=0).format == fmt
    with pytest.raises(ValidationError):
        HistorySource(path="p", format="nmon", member_kind="file", members=[], interval_s=60,  # type: ignore[arg-type]
                      samples=0)


@pytest.mark.parametrize("bad", [{"percentile_name": "p50"}, {"read_pct_from": "guess"}, {"sources": None}])
def test_targets_refuse_values_outside_their_vocabulary(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        _targets(**bad)


def test_list_defaults_are_not_shared() -> None:
    a, b = _targets(), _targets()
    a.notes.append("n")
    a.skipped.append("s")
    assert b.notes == [] and b.skipped == [] and b.series == []
