"""Plan: search the cheapest layouts that meet capacity, IOPS, MB/s and latency targets."""

from blockfit.plan.planner import make_plan

__all__ = ["make_plan"]
