"""The shared vocabulary: pydantic models every command reads and writes as JSON.

Each concept has its own module; import from here:
    from blockfit.schema import Volume, Layout, Instance, Workload, Prediction, Plan

A name is imported from its module on first use (PEP 562), so a command that needs a prediction does not
pay for building the bench, lab and diagnose models (pydantic builds each model's validator at import).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blockfit.schema.bench import BenchResult, BenchRun, Comparison, LayoutInfo, MeasureResult
    from blockfit.schema.build import BuildResult, BuildStep
    from blockfit.schema.citation import Citation
    from blockfit.schema.cost import ComputeCost, Cost, CostItem, Redundancy
    from blockfit.schema.finding import DeviceSummary, Diagnosis, Finding, FindingKind
    from blockfit.schema.history import DerivedTargets
    from blockfit.schema.inventory import BlockNode, CloudIdentity, Inventory, InventoryLayout, MountedFilesystem
    from blockfit.schema.lab import (
        LabBenchLayout,
        LabBenchRatio,
        LabBenchResult,
        LabCaps,
        LabFigures,
        LabLimits,
        LabResult,
        LabStep,
    )
    from blockfit.schema.layout import Instance, Layout, Volume, Workload
    from blockfit.schema.measurement import DeviceFacts, MeasuredPoint, Measurement
    from blockfit.schema.migration import CurrentLayout, Migration
    from blockfit.schema.plan import Candidate, Infeasible, MultipathPolicy, Plan, Requirements
    from blockfit.schema.prediction import CurvePoint, Limit, Prediction

_MODULE_OF = {
    "BenchResult": "bench",
    "BenchRun": "bench",
    "BuildResult": "build",
    "BuildStep": "build",
    "Candidate": "plan",
    "Comparison": "bench",
    "ComputeCost": "cost",
    "Citation": "citation",
    "Cost": "cost",
    "CostItem": "cost",
    "CurvePoint": "prediction",
    "CurrentLayout": "migration",
    "DerivedTargets": "history",
    "DeviceFacts": "measurement",
    "DeviceSummary": "finding",
    "Diagnosis": "finding",
    "Finding": "finding",
    "FindingKind": "finding",
    "Instance": "layout",
    "Inventory": "inventory",
    "InventoryLayout": "inventory",
    "BlockNode": "inventory",
    "CloudIdentity": "inventory",
    "MountedFilesystem": "inventory",
    "LabBenchLayout": "lab",
    "LabBenchRatio": "lab",
    "LabBenchResult": "lab",
    "LabCaps": "lab",
    "LabFigures": "lab",
    "LabLimits": "lab",
    "LabResult": "lab",
    "LabStep": "lab",
    "Layout": "layout",
    "LayoutInfo": "bench",
    "Limit": "prediction",
    "Infeasible": "plan",
    "MeasureResult": "bench",
    "MeasuredPoint": "measurement",
    "Measurement": "measurement",
    "Migration": "migration",
    "MultipathPolicy": "plan",
    "Plan": "plan",
    "Prediction": "prediction",
    "Redundancy": "cost",
    "Requirements": "plan",
    "Volume": "layout",
    "Workload": "layout",
}
__all__ = [
    "BenchResult",
    "BenchRun",
    "Comparison",
    "LayoutInfo",
    "MultipathPolicy",
    "MeasureResult",
    "BuildResult",
    "BuildStep",
    "Candidate",
    "ComputeCost",
    "Citation",
    "Cost",
    "CostItem",
    "CurvePoint",
    "CurrentLayout",
    "DerivedTargets",
    "DeviceFacts",
    "DeviceSummary",
    "Diagnosis",
    "Finding",
    "FindingKind",
    "Instance",
    "Inventory",
    "InventoryLayout",
    "BlockNode",
    "CloudIdentity",
    "MountedFilesystem",
    "LabBenchLayout",
    "LabBenchRatio",
    "LabBenchResult",
    "LabCaps",
    "LabFigures",
    "LabLimits",
    "LabResult",
    "LabStep",
    "Layout",
    "Limit",
    "Infeasible",
    "MeasuredPoint",
    "Measurement",
    "Migration",
    "Plan",
    "Prediction",
    "Redundancy",
    "Requirements",
    "Volume",
    "Workload",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'blockfit.schema' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"blockfit.schema.{module}"), name)
    globals()[name] = value
    return value
