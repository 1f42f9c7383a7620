"""Plan: search the cheapest layouts that meet capacity, IOPS, MB/s and latency targets."""

from blockfit.plan.advice import workload
from blockfit.plan.planner import make_plan
from blockfit.plan.reach import instance_allows

__all__ = ["instance_allows", "make_plan", "workload"]
