"""Every result kind blockfit writes, by its `kind`: readers dispatch here, and the JSON Schemas are made from it."""

from __future__ import annotations

from blockfit.schema.bench import BenchResult
from blockfit.schema.build import BuildResult
from blockfit.schema.finding import Diagnosis
from blockfit.schema.fleet import FleetResult
from blockfit.schema.inventory import Inventory
from blockfit.schema.lab import LabBenchResult, LabResult
from blockfit.schema.measurement import Measurement
from blockfit.schema.plan import Plan
from blockfit.schema.prediction import Prediction
from blockfit.schema.result import ResultEnvelope

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
    "inventory": Inventory,
}
