"""Capture files: the loader refuses what is not a capture, naming the sample and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.devices import capture
from blockfit.errors import InputError
from support.diskstats_lines import LINE_20


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=80), min_size=0, max_size=4))
def test_fuzz_capture_loader(lines: list[str]) -> None:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write("\n".join(lines))
    try:
        capture.load(Path(fh.name))
    except InputError as exc:
        assert str(exc).startswith(fh.name)  # the file is named; the CLI adds the option that named it
    finally:
        Path(fh.name).unlink()


def test_capture_with_a_bad_diskstats_line_names_sample_and_line(tmp_path: Path) -> None:
    header = capture.snapshot(["vda"] if Path("/sys/class/block/vda").exists() else None, 1.0)
    path = tmp_path / "c.jsonl"
    samples = [capture.Sample(t=0.0, lines=[LINE_20]), capture.Sample(t=1.0, lines=[LINE_20, "254 0 vda 1 2"])]
    path.write_text("\n".join(m.model_dump_json() for m in [header, *samples]) + "\n")
    with pytest.raises(InputError, match=r"sample 2 line 2"):
        capture.load(path)
