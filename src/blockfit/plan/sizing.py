"""What a plan from history sized its compute for, in one note: the history's host (its CPUs and memory bound the
shape), the options that set other floors, or the I/O alone where the history names no CPUs or memory. A plan that
sized a 14-CPU, 472 GB database server for its I/O alone once recommended one OCPU without saying so."""

from __future__ import annotations

from blockfit.catalog import Catalog
from blockfit.model.instance import find_shape
from blockfit.schema import Candidate, Requirements
from blockfit.units import fmt_compute


def compute_basis_note(req: Requirements, cat: Catalog, first: Candidate) -> str | None:
    """The note, for a plan from history (None for one from targets alone)."""
    h = req.history
    if h is None:
        return None
    if h.host_cpus is None or h.host_memory_gb is None:
        return ("Compute sized for the I/O alone: the history names no CPUs or memory of its host (AWR and Statspack "
                "reports do); --cpus and --memory size it for what the database needs beside its I/O.")
    host = f"{h.host_cpus} CPUs and {h.host_memory_gb:,.0f} GB memory ({h.host_from})"
    vcpus, memory, has = _has(cat, first)
    if (vcpus or 0) >= h.host_cpus and (memory or 0) >= h.host_memory_gb - 1e-6:
        return f"Compute bounded by the history's host, {host}: {has}."
    return (f"Compute below the history's host, {host}: {has}, as --instance, --cpus or --memory set it "
            "(left to the plan, the search gives at least the host's).")


def _has(cat: Catalog, first: Candidate) -> tuple[float | None, float | None, str]:
    """(vCPUs, memory GB, 'VM.Standard.E4.Flex:8 has 8 OCPUs = 16 vCPUs, 472 GB'): the compute priced, else the
    catalog's size."""
    d, shape = first.cost.compute_detail, find_shape(cat, first.instance_detail.shape)
    vcpus = d.vcpus if d is not None and d.vcpus is not None else shape.vcpus
    ocpus = d.ocpus if d is not None else None
    memory = d.memory_gb if d is not None and d.memory_gb is not None else shape.memory_gb
    count = fmt_compute(vcpus, ocpus) or "a count unknown"
    return vcpus, memory, f"{first.instance} has {count}" + ("" if memory is None else f", {memory:,.0f} GB")
