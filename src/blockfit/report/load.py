"""Read result files for the report: dispatch on `kind`, refuse what is not a blockfit result or is too new.

A diagnose recording (JSONL from `blockfit diagnose --record`) is replayed through the diagnose library
to a Diagnosis, keeping its per-interval samples for the timeline.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic

from blockfit.diagnose import metrics, rules, sampler
from blockfit.diagnose.metrics import Interval
from blockfit.errors import InputError
from blockfit.schema import BuildResult, Diagnosis, LabResult, Measurement, Plan, Prediction
from blockfit.schema.bench import BenchResult
from blockfit.schema.fleet import FleetResult
from blockfit.schema.lab import LabBenchResult
from blockfit.schema.result import SCHEMA_VERSION, ResultEnvelope

RESULT_TYPES: dict[str, type[ResultEnvelope]] = {
    "model": Prediction,
    "plan": Plan,
    "calibrate": Measurement,
    "lab": LabResult,
    "diagnose": Diagnosis,
    "build": BuildResult,
    "bench": BenchResult,
    "lab-bench": LabBenchResult,
    "fleet": FleetResult,
}

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
    try:
        mode = path.stat().st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise InputError(f"{path}: is a device, not a file (expected {EXPECTED})")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found (expected {EXPECTED})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        if _is_recording(text):
            return _replay(path)
        raise InputError(f"{path}: not valid JSON ({exc}); expected {EXPECTED}") from None
    return Loaded(path, _validate(path, data))


def _is_recording(text: str) -> bool:
    first = text.split("\n", 1)[0]
    try:
        head = json.loads(first)
    except ValueError:
        return False
    return isinstance(head, dict) and head.get("type") == "header"


def _replay(path: Path) -> Loaded:
    try:
        capture = sampler.load(path)
    except InputError as exc:
        raise InputError(str(exc).removeprefix("--replay ")) from None
    diagnosis = rules.diagnose(capture, None, f"replay:{path.name}")
    return Loaded(path, diagnosis, metrics.series(capture))


def _validate(path: Path, data: Any) -> ResultEnvelope:
    if not isinstance(data, dict) or "kind" not in data:
        raise InputError(f"{path}: not a blockfit result (no 'kind' field); expected {EXPECTED}")
    kind = data["kind"]
    if kind not in RESULT_TYPES:
        raise InputError(f"{path}: unknown result kind {kind!r}; expected one of {', '.join(RESULT_TYPES)}")
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise InputError(f"{path}: written by a newer blockfit (schema version {version!r}; this one reads up to "
                         f"{SCHEMA_VERSION}): upgrade blockfit to report it")
    try:
        return RESULT_TYPES[kind].model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise InputError(f"{path}: not a valid blockfit {kind} result ({where}: {first['msg']})") from None
