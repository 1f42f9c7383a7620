"""schema.citation: a source is its id, date and public URL; no URL is said to be blockfit's own assumption."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from blockfit.schema.citation import Citation


def test_a_cited_figure_shows_its_id_date_and_url() -> None:
    c = Citation(id="AWS-EBS", url="https://docs.aws.amazon.com/ebs/", date="2026-11-25")
    assert str(c) == "AWS-EBS (2026-11-25) https://docs.aws.amazon.com/ebs/"


def test_no_url_is_an_assumption_never_a_blank() -> None:
    text = str(Citation(id="BF-ASSUMED", url=None, date="2026-01-01"))
    assert text.startswith("BF-ASSUMED (2026-01-01) ") and "assumed by blockfit" in text


def test_the_url_must_be_given_even_when_none() -> None:
    with pytest.raises(ValidationError):
        Citation.model_validate({"id": "X", "date": "2026-01-01"})
    assert Citation.model_validate({"id": "X", "url": None, "date": "2026-01-01"}).url is None
