"""report.model: the model section: what binds, what the next limit is, what it costs, where figures come from."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.report.figures import FigureSink
from blockfit.report.model import cite, cost_phrase, limit_name, section, summary
from blockfit.schema import Prediction, Workload
from blockfit.schema.citation import Citation
from blockfit.schema.cost import Cost
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


def _pred(spec: str = "4x500G@gp3", vm: str = "m6i.8xlarge") -> Prediction:
    return predict(parse_layout(spec, "aws", AWS), parse_instance(vm, "aws", AWS), Workload(), AWS)


@pytest.mark.parametrize(("name", "words"), [("volume_iops_cap", "volume IOPS cap"),
                                             ("volume_mbps_per_gb", "volume MB/s per GB"),
                                             ("instance_iops", "instance IOPS")])
def test_limit_names_read_as_words(name: str, words: str) -> None:
    assert limit_name(name) == words


def test_the_summary_names_the_binding_limit_by_its_description() -> None:
    p = _pred()
    bind = next(r for r in p.limits if r.name == p.iops_limited_by)
    text = summary(p)
    assert text.startswith(f"{p.layout} on {p.instance}") and f"IOPS are limited by {bind.description}" in text


def test_cost_phrases_say_what_is_unknown() -> None:
    assert cost_phrase(Cost(storage=1.0, compute=2.0, total=3.0)).startswith("for $3")
    assert cost_phrase(Cost(storage=1.0, compute=None, total=None)).endswith("(compute price unknown)")
    assert cost_phrase(Cost(storage=None, compute=None, total=None)) == "at an unknown price"


def test_a_source_without_a_url_is_said_to_be_assumed() -> None:
    url = "https://example.org/p"
    assert cite(Citation(id="X", url=url, date="2026-01-01")) == f"{url} (2026-01-01)"
    assert "assumed by blockfit" in cite(Citation(id="X", url=None, date="2026-01-01"))


def test_the_section_has_the_limits_figure_and_a_row_per_limit() -> None:
    p = _pred().model_copy(update={"curve": []})   # one figure fewer to draw
    s = section(p, "model.json", FigureSink())
    assert len(s.figures) == 1 and s.title == f"Model: {p.layout} on {p.instance}"
    limits = next(t for t in s.tables if len(t.rows) == len(p.limits))
    assert len(limits.rows) == len(p.limits)
