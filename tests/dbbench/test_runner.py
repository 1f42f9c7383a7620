"""dbbench.runner: the workloads named, and a bench request checked before anything is created."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.dbbench.runner import BenchRequest, checks, parse_workloads
from blockfit.dbbench.runs import LayoutSpec
from blockfit.errors import InputError, ValueProblem


def test_workloads_come_in_a_fixed_order_whatever_the_order_named() -> None:
    assert parse_workloads("load,dss,oltp") == ["oltp-select", "oltp-tpcb", "dss", "load"]
    assert parse_workloads("oltp-tpcb, oltp-select") == ["oltp-select", "oltp-tpcb"]
    with pytest.raises(InputError, match="--measures 'tpcc': expected a comma-separated list"):
        parse_workloads("oltp,tpcc", "--measures")


def _request(tmp_path: Path, **kw: object) -> BenchRequest:
    layouts = [LayoutSpec(path=tmp_path, label="A"), LayoutSpec(path=tmp_path, label="B")]
    return BenchRequest(**{"layouts": layouts, "measures": ["dss"], **kw})   # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "kw", "message"), [
    ("layouts", {"layouts": []}, "expected at least one directory"),
    ("repeat", {"repeat": 0}, "at least 1"),
    ("precision_pct", {"precision_pct": 100.0}, "more than 0 and less than 100"),
])
def test_each_check_names_what_it_expected(tmp_path: Path, field: str, kw: dict[str, object], message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        checks(_request(tmp_path, **kw))[field]()


def test_two_directories_need_two_labels(tmp_path: Path) -> None:
    same = [LayoutSpec(path=tmp_path, label="A"), LayoutSpec(path=tmp_path, label="A")]
    with pytest.raises(ValueProblem, match="a different label per directory"):
        checks(_request(tmp_path, layouts=same))["labels"]()


def test_the_precision_is_the_profiles_unless_given_and_none_without_sequential_stops(tmp_path: Path) -> None:
    req = _request(tmp_path)
    assert req.precision == req.profile.precision_pct and req.repeats == req.profile.repeat
    assert _request(tmp_path, precision_pct=5.0).precision == 5.0
    assert _request(tmp_path, sequential=False).precision is None
    assert _request(tmp_path, repeat=7).repeats == 7
