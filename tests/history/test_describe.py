"""history/describe.py: the words plan prints about where its targets came from."""

from __future__ import annotations

import pytest

from blockfit.history.describe import interval_words, source_line
from blockfit.schema.history import HistorySource


@pytest.mark.parametrize(("seconds", "words"), [(1, "1 s"), (59.5, "59.5 s"), (119, "119 s"), (120, "2 min"),
                                                (3599, "60 min"), (3600, "1 h"), (3659, "1 h"), (3660, "61 min"),
                                                (86400, "24 h")])
def test_an_interval_is_said_in_its_unit(seconds: float, words: str) -> None:
    assert interval_words(seconds) == words


def _source(members: list[str], samples: int) -> HistorySource:
    fields = HistorySource.model_fields
    data = {"path": "day.json", "format": "iostat", "member_kind": "device", "members": members,
            "samples": samples, "interval_s": 60.0, "start": "2026-11-01T00:00:00Z", "end": "2026-11-02T00:00:00Z"}
    return HistorySource(**{k: v for k, v in data.items() if k in fields})


def test_a_source_names_its_members_up_to_eight_and_counts_the_rest() -> None:
    few = source_line(_source(["sdb", "sdc"], 1))
    assert few == ("iostat history day.json (devices sdb, sdc): 1 interval of 60 s, 2026-11-01T00:00:00Z to "
                   "2026-11-02T00:00:00Z")
    many = source_line(_source([f"sd{c}" for c in "bcdefghijk"], 1440))
    assert "sdi and 2 more)" in many and "sdj" not in many and "1440 intervals of 60 s" in many
