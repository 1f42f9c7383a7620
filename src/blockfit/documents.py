"""blockfit's own result documents read back: the envelope (`kind`, `schema_version`) checked before the schema
validates the rest, a file of an older schema version read in today's names (`upgrade`, once, here at the edge),
and a plan file derived again from the spec grammar on the catalog it names.

A plan file feeds scripts run as root, so `read_plan` trusts it for choices, never for text: its strings are made
one line each, and each candidate's layout and instance are derived again from the spec grammar on the catalog
version the plan names (`rederive_plan`); a field that disagrees with what they derive is refused. The bytes are
read by `inputs` (bounded, finite); this module sits above `specs`, `model` and `catalog`, which it derives with,
and below the commands that read results back (build, lab, report).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

from blockfit.errors import InputError
from blockfit.inputs import MAX_RESULT_BYTES, load_json, read_text
from blockfit.schema.result import SCHEMA_VERSION, ResultEnvelope
from blockfit.terminal import visible

OLDEST_READ = 2  # the oldest schema version read: its names are moved to today's (`upgrade`)

if TYPE_CHECKING:
    from blockfit.catalog import Catalog
    from blockfit.model.kinds import Cloud
    from blockfit.schema import Inventory, Plan
    from blockfit.schema.plan import Candidate

Envelope = TypeVar("Envelope", bound=ResultEnvelope)


def check_envelope(data: Any, where: str, kinds: dict[str, type[Envelope]], expected: str) -> type[Envelope]:
    """The model class for data's `kind`, once `kind` and `schema_version` are known good."""
    if not isinstance(data, dict) or "kind" not in data:
        raise InputError(f"{where}: not a blockfit result (no 'kind' field); expected {expected}")
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in kinds:
        shown = repr(kind) if isinstance(kind, str) else f"of type {type(kind).__name__}"
        raise InputError(f"{where}: result kind {shown[:80]} is not one of {', '.join(kinds)}; expected {expected}")
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        import json  # here: see load_json

        raise InputError(f"{where}: schema_version {json.dumps(version)[:40]}: expected a whole number of at least 1")
    if version > SCHEMA_VERSION:
        raise InputError(f"{where}: written by a newer blockfit (schema version {version}; this one reads up to "
                         f"{SCHEMA_VERSION}): upgrade blockfit to read it")
    if version < OLDEST_READ:
        raise InputError(f"{where}: written by an older blockfit (schema version {version}; this one reads "
                         f"{SCHEMA_VERSION}): run that command again to write it in today's names")
    return kinds[kind]


def validate(model: type[Envelope], data: Any, where: str) -> Envelope:
    """Schema validation, of an older schema version's file in today's names, with the first problem as one line."""
    try:
        return model.model_validate(upgrade(data))
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        kind = data.get("kind", "?") if isinstance(data, dict) else "?"
        raise InputError(f"{where}: not a valid blockfit {kind} result ({loc}: {first['msg']})") from None


def upgrade(data: Any) -> Any:
    """DATA in today's names. Schema 2 counted compute in the unit the cloud sells it in under OCI's name: `ocpus`
    (an instance, a compute cost), `instance_ocpus` and `ocpus_min` / `ocpus_max` (a plan's requirements) were OCPUs
    on OCI and vCPUs on the other clouds. Schema 3 names vCPUs `vcpus` on every cloud and keeps `ocpus` for OCI's
    OCPUs; the cloud's entry (the one conversion) says what a count in its own unit is in those names."""
    if not isinstance(data, dict) or data.get("schema_version") != 2:
        return data
    from blockfit.model.kinds.clouds import CLOUDS

    def walk(node: Any, cloud: Cloud | None) -> Any:
        if isinstance(node, list):
            return [walk(v, cloud) for v in node]
        if not isinstance(node, dict):
            return node
        named = node.get("cloud")
        cloud = CLOUDS.get(named, cloud) if isinstance(named, str) else cloud
        out = {k: walk(v, cloud) for k, v in node.items()}
        return out if cloud is None else _counts_renamed(out, cloud)

    return {**walk(data, None), "schema_version": SCHEMA_VERSION}


def _counts_renamed(node: dict[str, Any], cloud: Cloud) -> dict[str, Any]:
    """One object of a schema-2 file with its counts in schema 3's names (a count that is no number is left for the
    schema to refuse)."""
    def number(key: str) -> bool:
        return key in node and (node[key] is None or isinstance(node[key], (int, float))
                                and not isinstance(node[key], bool))

    if isinstance(node.get("shape"), str) and number("ocpus") and "vcpus" not in node:   # Instance, ComputeCost
        node.update(cloud.count_fields(node["shape"], node.pop("ocpus")))
    if isinstance(node.get("instance_shape"), str):   # Requirements
        if number("instance_ocpus") and "instance_vcpus" not in node:
            fields = cloud.count_fields(node["instance_shape"], node.pop("instance_ocpus"))
            node.update({f"instance_{k}": v for k, v in fields.items()})
        if (number("ocpus_min") or number("ocpus_max")) and not {"vcpus_min", "vcpus_max"} & node.keys():
            node.update(cloud.range_fields(node.pop("ocpus_min", None), node.pop("ocpus_max", None)))
    return node


def _json_file(path: Path, where: str, expected: str) -> Any:
    """The JSON document at PATH, bounded as every result is read; one line naming WHERE when it is none."""
    text = read_text(path, where, expected)
    try:
        return load_json(text, where)
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(f"{where}: expected {expected} ({exc})") from None


def read_plan(path: Path, where: str | None = None, catalog: str | None = None) -> Plan:
    """The plan at PATH, checked as report checks every result: bounded, finite, its kind and schema version known
    (`build --plan` and `lab --plan` read it here, once), then derived again (rederive_plan) on the catalog version
    it names, or on CATALOG (--catalog: a date, or the file `catalog import` wrote that the plan was made on)."""
    from blockfit.schema import Plan

    where, expected = where or f"--plan {path}", "a plan.json written by 'blockfit plan'"
    data = _json_file(path, where, expected)
    if isinstance(data, dict) and "kind" not in data:
        data = {**data, "kind": "plan"}  # written before results carried their kind
    model = check_envelope(data, where, {"plan": Plan}, expected)
    return rederive_plan(validate(model, one_line_strings(data, where), where), where, catalog)


def check_result_text(text: str, where: str) -> None:
    """A result's JSON read back as `report` (and, for a plan, `build --plan`) read it: bounded, its kind and
    schema version known, valid, a plan's strings within their bounds. A writer calls it on the text it is about
    to write (files.write_atomically's check), so it never writes a result the next command refuses."""
    from blockfit.schema import Plan
    from blockfit.schema.kinds import RESULT_TYPES

    if len(text.encode("utf-8", errors="backslashreplace")) > MAX_RESULT_BYTES:
        raise InputError(f"{where}: larger than {MAX_RESULT_BYTES // 2**20} MB, what report reads")
    data = load_json(text, where)
    model = check_envelope(data, where, RESULT_TYPES, "a blockfit result")
    if model is Plan:
        data = one_line_strings(data, where)
    validate(model, data, where)


def read_inventory(path: Path, where: str | None = None) -> Inventory:
    """The inventory at PATH ('blockfit inspect --json'), checked as report checks every result: bounded, finite,
    its kind and schema version known, every string one line (plan, build and diagnose --inventory read it here)."""
    from blockfit.schema import Inventory

    where, expected = where or f"--inventory {path}", "an inventory written by 'blockfit inspect --json'"
    data = _json_file(path, where, expected)
    model = check_envelope(data, where, {"inventory": Inventory}, expected)
    return validate(model, one_line_strings(data, where), where)


MAX_TEXT = 4096  # characters in any one string of a plan; blockfit's longest (a note) is a few hundred
MAX_SPEC = 200   # characters in a layout or instance spec


def one_line_strings(data: Any, where: str) -> Any:
    """DATA with every string made one line of visible text (control, format and line-separator characters shown
    as \\xNN): prose a plan carries (notes, reasons) can then never break a line anywhere it is shown. A string
    longer than MAX_TEXT is refused."""
    def walk(node: Any, here: str) -> Any:
        if isinstance(node, dict):
            return {walk(k, here): walk(v, f"{here}.{k}" if here else str(k)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, f"{here}.{i}") for i, v in enumerate(node)]
        if isinstance(node, str):
            if len(node) > MAX_TEXT:
                raise InputError(f"{where}: {here or 'a key'} is a text of {len(node)} characters; expected at most "
                                 f"{MAX_TEXT}")
            return visible(node)
        return node

    return walk(data, "")


def rederive_plan(plan: Plan, where: str, catalog: str | None = None) -> Plan:
    """The plan with every field a build or a lab acts on derived again from the spec grammar and the catalog the
    plan names: its cloud, catalog version, and each candidate's layout, instance, volume, attachment, paths,
    redundancy, stripe and queue depths. A field that does not parse, or disagrees with what the grammar derives
    from its spec, is an InputError naming it; the plan returned carries the derived values, never the file's."""
    from blockfit.schema.clouds import CLOUD_NAMES

    if plan.cloud not in CLOUD_NAMES:
        raise InputError(f"{where}: cloud {plan.cloud[:40]!r}: expected one of {', '.join(CLOUD_NAMES)}")
    if plan.requirements.cloud != plan.cloud:
        raise InputError(f"{where}: requirements.cloud {plan.requirements.cloud[:40]!r} differs from the plan's cloud "
                         f"{plan.cloud}")
    cat = _catalog_of(plan, where, catalog)
    _check_io_sizes(plan.requirements.small_io, plan.requirements.large_io, f"{where}: requirements")

    def derive(c: Candidate, here: str) -> Candidate:
        return _rederive_candidate(c, cat, plan.catalog_version, f"{where}: {here}")

    update: dict[str, Any] = {"candidates": [derive(c, f"candidates.{i}") for i, c in enumerate(plan.candidates)],
                              "pareto": [derive(c, f"pareto.{i}") for i, c in enumerate(plan.pareto)],
                              "outlasted": [derive(c, f"outlasted.{i}") for i, c in enumerate(plan.outlasted)]}
    if plan.infeasible is not None:
        inf = plan.infeasible
        update["infeasible"] = inf.model_copy(update={
            "best": None if inf.best is None else derive(inf.best, "infeasible.best"),
            "alternatives": [derive(c, f"infeasible.alternatives.{i}") for i, c in enumerate(inf.alternatives)]})
    return plan.model_copy(update=update)


def _catalog_of(plan: Plan, where: str, catalog: str | None) -> Catalog:
    """The catalog a plan is derived again on: CATALOG (--catalog) if given, else the shipped version it names."""
    from datetime import date

    from blockfit.catalog import load_catalog, resolve_catalog, versions

    known = versions(plan.cloud)
    try:
        version = date.fromisoformat(plan.catalog_version) if len(plan.catalog_version) == 10 else None
    except ValueError:
        version = None
    if version is None:
        raise InputError(f"{where}: catalog_version {plan.catalog_version[:40]!r}: expected a date YYYY-MM-DD")
    if catalog is not None:  # the user names the catalog: the plan is derived again on it
        return resolve_catalog(plan.cloud, catalog)
    if version in known:
        return load_catalog(plan.cloud, version)
    known_list = ", ".join(v.isoformat() for v in known)
    first = f" (candidate 0 on {plan.candidates[0].instance[:60]})" if plan.candidates else ""
    raise InputError(f"{where}: catalog_version {version}{first}: not a catalog version of {plan.cloud} that "
                     f"this blockfit ships ({known_list}); a plan made on a file 'blockfit catalog import' wrote "
                     "is read with that file: --catalog PATH")


def _check_io_sizes(small_io: int, large_io: int, here: str) -> None:
    from blockfit.units import GIB

    for name, value in (("small_io", small_io), ("large_io", large_io)):
        if not 512 <= value <= GIB:
            raise InputError(f"{here}.{name} {value:.3g}: expected an I/O size from 512 bytes to 1 GiB")


def _check_count(value: int | None, here: str) -> None:
    """A count (queue depth, paths, outstanding I/Os) as the command line bounds it: 1 to 1,000,000, or none."""
    if value is not None and not 1 <= value <= 1_000_000:
        raise InputError(f"{here} {value:.3g}: expected a whole count from 1 to 1000000")


def _check_specs(c: Candidate, cat: Catalog, version: str, here: str) -> None:
    """The candidate's specs bounded, and its cloud and catalog version the plan's."""
    p = c.prediction
    for name, text in (("layout", c.layout), ("instance", c.instance), ("prediction.layout", p.layout),
                       ("prediction.instance", p.instance)):
        if len(text) > MAX_SPEC:
            raise InputError(f"{here}.{name}: a spec of {len(text)} characters; expected at most {MAX_SPEC}")
    if p.cloud != cat.cloud or c.layout_detail.volume.cloud != cat.cloud or c.instance_detail.cloud != cat.cloud:
        raise InputError(f"{here}.prediction: a cloud other than the plan's {cat.cloud}")
    if p.catalog_version != version:
        raise InputError(f"{here}.prediction.catalog_version {p.catalog_version[:40]!r}: expected the plan's "
                         f"{version}")


def _check_choices(c: Candidate, here: str) -> None:
    """The candidate's choices the grammar does not derive: EBS weighting, attachment, redundancy, counts, sizes."""
    from typing import get_args

    from blockfit.schema.cost import Redundancy
    from blockfit.schema.layout import Attachment

    p, d, shown = c.prediction, c.layout_detail, c.instance_detail
    if shown.ebs_weighting not in (None, "default", "ebs-1", "vpc-1"):
        raise InputError(f"{here}.instance_detail.ebs_weighting {shown.ebs_weighting[:40]!r}: expected default, "
                         "ebs-1 or vpc-1")
    attachments = (None, *get_args(Attachment))
    if p.attachment not in attachments:
        raise InputError(f"{here}.prediction.attachment {str(p.attachment)[:40]!r}: expected iscsi or paravirtualized")
    if p.redundancy not in get_args(Redundancy) or p.redundancy != d.redundancy:
        raise InputError(f"{here}.prediction.redundancy {p.redundancy[:40]!r}: expected the layout's "
                         f"{d.redundancy}")
    for name, value in (("layout_detail.paths", d.paths), ("prediction.paths", p.paths),
                        ("session_queue_depth", c.session_queue_depth), ("prediction.session_depth", p.session_depth),
                        ("prediction.workload.outstanding", p.workload.outstanding),
                        ("prediction.workload.host_queue_depth", p.workload.host_queue_depth)):
        _check_count(value, f"{here}.{name}")
    _check_io_sizes(p.workload.small_io, p.workload.large_io, f"{here}.prediction.workload")


def _rederive_candidate(c: Candidate, cat: Catalog, version: str, here: str) -> Candidate:
    """One candidate with its layout and instance parsed again on CAT and checked against the details the file
    carries; the result holds the parsed values and the canonical spec strings."""
    from blockfit.model.resolve import layout_spec
    from blockfit.model.stripe import check_stripe
    from blockfit.specs import parse_instance, parse_layout

    p, d = c.prediction, c.layout_detail
    _check_specs(c, cat, version, here)
    stripe = check_stripe(d.stripe_size, d.members, f"{here}.layout_detail.stripe_size")
    try:
        layout = parse_layout(c.layout, cat.cloud, cat, stripe_size=stripe, manager=d.manager)
        instance = parse_instance(c.instance, cat.cloud, cat, require_count=False, what=f"{here}.instance")
    except InputError as exc:
        raise InputError(f"{here}: {exc}") from None
    if (layout.members, layout.volume) != (d.members, d.volume):
        raise InputError(f"{here}.layout {c.layout!r} is {layout_spec(cat, layout)}, but layout_detail says "
                         f"{d.members} x {d.volume.size_gb:g} GB {d.volume.type[:40]!r}; expected the two to agree")
    shown = c.instance_detail
    if (instance.shape.lower(), instance.count) != (shown.shape.lower(), shown.count) or \
            shown.vcpus not in (None, instance.vcpus):   # vCPUs left out are derived; vCPUs given must agree
        from blockfit.units import fmt_compute

        raise InputError(f"{here}.instance {c.instance!r} is {instance.spec} "
                         f"({fmt_compute(instance.vcpus, instance.ocpus) or 'no count'}), but instance_detail says "
                         f"{shown.spec[:60]!r} ({fmt_compute(shown.vcpus, shown.ocpus) or 'no count'}); expected the "
                         "two to agree")
    _check_choices(c, here)
    layout = layout.model_copy(update={"attachment": d.attachment, "paths": d.paths, "redundancy": d.redundancy})
    # the instance as derived: its vCPUs (and OCI's OCPUs) from the spec, never the file's
    instance = instance.model_copy(update={"interface": shown.interface, "ebs_weighting": shown.ebs_weighting})
    spec = layout_spec(cat, layout)
    prediction = p.model_copy(update={"layout": spec, "instance": instance.spec, "layout_detail": layout,
                                      "instance_detail": instance})
    return c.model_copy(update={"layout": spec, "instance": instance.spec, "prediction": prediction})
