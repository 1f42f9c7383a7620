"""Read result files for the report: dispatch on `kind`, refuse what is not a blockfit result or is too new.

A diagnose recording (JSONL from `blockfit diagnose --record`) is replayed through the diagnose library
to a Diagnosis, keeping its per-interval samples for the timeline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockfit.devices import capture as captures
from blockfit.devices import iostat
from blockfit.devices.iostat import Interval
from blockfit.diagnose import rules
from blockfit.documents import check_envelope, validate
from blockfit.errors import InputError
from blockfit.inputs import load_json, read_text
from blockfit.schema.kinds import RESULT_TYPES
from blockfit.schema.result import ResultEnvelope

EXPECTED = ("the --json output of blockfit " + ", ".join(k.replace("lab-bench", "lab --bench")
                                                         .replace("fleet", "plan --from prometheus+…")
                                                         for k in RESULT_TYPES)
            + ", or a recording of 'blockfit diagnose --record'")


@dataclass
class Loaded:
    """One input: its file, the validated result, and (recordings only) each device's intervals."""

    path: Path
    result: ResultEnvelope
    intervals: dict[str, list[Interval]] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(getattr(self.result, "kind"))  # noqa: B009 - every subclass pins it


def load(path: Path) -> Loaded:
    """One file → Loaded; any problem is an InputError naming the file and what was expected.

    A device node is refused before reading: /dev/zero would be read forever. Pipes are read (``<(…)``)."""
    text = read_text(path, str(path), EXPECTED)
    try:
        data = load_json(text, str(path))
    except InputError:
        raise
    except ValueError as exc:
        if _is_recording(text):
            return _replay(path)
        raise InputError(f"{path}: not valid JSON ({exc}); expected {EXPECTED}") from None
    return Loaded(path, _validate(path, data))


def _is_recording(text: str) -> bool:
    first = text.split("\n", 1)[0]
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(head, dict) and head.get("type") == "header"


def _replay(path: Path) -> Loaded:
    capture = captures.load(path)
    diagnosis = rules.diagnose(capture, None, f"replay:{path.name}")
    return Loaded(path, diagnosis, iostat.series(capture))


def _validate(path: Path, data: Any) -> ResultEnvelope:
    model = check_envelope(data, str(path), RESULT_TYPES, EXPECTED)
    return validate(model, data, str(path))
