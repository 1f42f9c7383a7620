"""The shared vocabulary: pydantic models every command reads and writes as JSON.

Each concept has its own module; import from here:
    from blockfit.schema import Volume, Layout, Instance, Workload, Prediction, Plan
"""

from blockfit.schema.bench import BenchResult, BenchRun, Comparison, LayoutInfo, MeasureResult
from blockfit.schema.build import BuildResult, BuildStep
from blockfit.schema.cost import ComputeCost, CostBreakdown, Redundancy
from blockfit.schema.finding import DeviceSummary, Diagnosis, Finding, FindingKind
from blockfit.schema.history import DerivedTargets
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
from blockfit.schema.plan import Candidate, MultipathPolicy, Plan, Requirements
from blockfit.schema.prediction import CostItem, CurvePoint, LimitRow, Prediction

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
    "CostBreakdown",
    "CostItem",
    "CurvePoint",
    "DerivedTargets",
    "DeviceFacts",
    "DeviceSummary",
    "Diagnosis",
    "Finding",
    "FindingKind",
    "Instance",
    "LabBenchLayout",
    "LabBenchRatio",
    "LabBenchResult",
    "LabCaps",
    "LabFigures",
    "LabLimits",
    "LabResult",
    "LabStep",
    "Layout",
    "LimitRow",
    "MeasuredPoint",
    "Measurement",
    "Plan",
    "Prediction",
    "Redundancy",
    "Requirements",
    "Volume",
    "Workload",
]
