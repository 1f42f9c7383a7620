"""Search instance shapes as plan searches OCPU counts: `--instance r7i` (a family's sizes) or `--instance any`
(every current family of the cloud), filtered by `--family`, `--memory` and `--cpus`.

The answer is the cheapest of the per-shape plans, found without planning every shape: shapes are taken in order of
the cheapest compute their instance caps could meet the targets with (a lower bound of any plan on them: storage
costs at least nothing), each searched by plan's exact search (plan/search.py) with the best total so far as its
bound, until the next shape's compute alone cannot beat it. Member caps and prices are shared between the shapes'
evaluators, and fixed sizes whose instance caps are the same for every volume type share one storage search. Totals
within TIE_WINDOW of the cheapest tie as they do within one plan (plan/planner.tie_break): of the shapes whose
cheapest point is that close, the one whose own plan recommends the cheapest total wins. The winner is then planned
in full by `make_plan`, so its candidates are exactly that shape's plan. When no shape meets the targets the result
is a plan with `infeasible` set (as make_plan's), saying why.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime

from blockfit import __version__
from blockfit.catalog import Catalog, Shape
from blockfit.catalog.names import nearest
from blockfit.errors import InputError
from blockfit.model.compute import compute_cost
from blockfit.model.cost import price_region
from blockfit.model.instance import machine_type
from blockfit.model.kinds.clouds import cloud_of, families, family_of
from blockfit.model.resolve import layout_spec
from blockfit.plan.evaluate import Evaluator, Point
from blockfit.plan.planner import make_plan, ranked_points
from blockfit.plan.search import RankKey, rank_key, search, tie_window
from blockfit.plan.space import SearchSpace, default_space, option_problem, selected_types
from blockfit.schema import Cost, Infeasible, Layout, Plan, Requirements
from blockfit.schema.plan import OPEN_COUNT, InstanceSearch, ShapeOffer
from blockfit.units import fmt_count

ANY = "any"
NO_COMPUTE_PRICE = "no compute price"
CAP_UNKNOWN = ("instance cap unknown for the volume types it can attach (name it with --instance to plan it with the "
               "cap not applied)")
OFFERS = 3          # the cheapest shapes listed in the plan's instance_search


@dataclass
class ShapeQuery:
    text: str                                  # 'any' or a family name
    families: list[str] | None = None          # --family
    min_memory_gb: float | None = None         # --memory with a search, GB
    min_vcpus: int | None = None               # --cpus N where compute is sold in vCPUs


@dataclass
class _Entry:
    name: str
    req: Requirements
    space: SearchSpace
    ev: Evaluator
    floor: float          # the least compute a plan on this shape can cost (its instance caps alone decide)


@dataclass
class Outcome:
    """The cheapest point of the cheapest shapes searched (best first: the `offers` cheapest and every one within
    TIE_WINDOW of the cheapest), their evaluators, and why others were left out."""

    best: list[tuple[Point, str]] = field(default_factory=list)
    entries: dict[str, _Entry] = field(default_factory=dict)
    shapes: int = 0
    planned: int = 0
    left_out: dict[str, list[str]] = field(default_factory=dict)


def is_search(cat: Catalog, text: str | None) -> bool:
    """Whether --instance TEXT asks for a search (absent, 'any' or a family) rather than naming one shape."""
    text = None if text is None else text.split("/")[0]   # SHAPE/OPTION: the option says nothing of a search
    if text is None or text.strip().lower() == ANY:
        return True
    name = text.strip().split(":")[0]
    try:
        if machine_type(cat, name) is not None:
            return False
    except InputError:
        return False        # a GCP machine type of an unknown series: parse_instance says which
    shape = next((s for k, s in cat.shapes.items() if k.lower() == name.lower()), None)
    if shape is not None:
        # a GCP series (n2) is a family of machine types, as r7i is on AWS: searched over its sizes, so FAMILY means
        # the same on every cloud ('--instance n2' once gave compute "unknown" and refused --min-memory)
        return cloud_of(cat.cloud).machine_types and ":" not in text and bool(shape.machine_families)
    return ":" not in text and any(f.lower() == name.lower() for f in families(cat))


def _family_names(cat: Catalog, names: list[str], what: str) -> list[str]:
    known = {f.lower(): f for f in families(cat)}
    out = []
    for n in names:
        if n.lower() not in known:
            raise InputError(f"{what} {n!r}: not a family of the {cat.cloud} catalog {cat.version}; nearest: "
                             f"{', '.join(nearest(n, list(known.values())))}")
        out.append(known[n.lower()])
    return out


def candidate_shapes(cat: Catalog, query: ShapeQuery, req: Requirements) -> tuple[list[str], dict[str, list[str]]]:
    """The shapes the query names, after the filters, and the ones left out by reason."""
    left: dict[str, list[str]] = {}
    out = []
    for s in _named_shapes(cat, query, left):
        reason = _left_out_because(cat, query, req, s)
        if reason is None:
            out.append(s.name)
        else:
            left.setdefault(reason, []).append(s.name)
    if cloud_of(cat.cloud).machine_types and req.memory_gb is None:   # no memory to price a series at: its types
        out = [typ for name in out for typ in _machine_types(cat, name, req)]
    return out, left


def _named_shapes(cat: Catalog, query: ShapeQuery, left: dict[str, list[str]]) -> list[Shape]:
    """The shapes --instance (a family, or any current shape) and --family name; previous generations of `any`
    are left out by reason in LEFT."""
    if query.text.lower() == ANY:
        chosen = list(cat.shapes.values())
        for s in [s for s in chosen if not s.current]:
            left.setdefault("previous generation (name its family to search it)", []).append(s.name)
        chosen = [s for s in chosen if s.current]
    else:
        fam = _family_names(cat, [query.text], "--instance")[0]
        chosen = [s for s in cat.shapes.values() if family_of(s, cat.cloud) == fam]
    if query.families:
        wanted = set(_family_names(cat, query.families, "--family"))
        chosen = [s for s in chosen if family_of(s, cat.cloud) in wanted]
    return chosen


def _left_out_because(cat: Catalog, query: ShapeQuery, req: Requirements, s: Shape) -> str | None:
    """Why a named shape is not searched (the first filter it fails), or None."""
    if any(f in s.unknown for f in ("iops", "mbps", "tiers")):
        return "instance caps not known (name it with --instance to plan it with the caps not applied)"
    if s.kind == "fixed" and (short := _fixed_short_of(cat, query, req, s)) is not None:
        return short
    if s.name not in cat.compute_prices:   # last: a shape the filters keep, planned without a price if need be
        return NO_COMPUTE_PRICE + cloud_of(cat.cloud).price_import_hint
    return None


def _fixed_short_of(cat: Catalog, query: ShapeQuery, req: Requirements, s: Shape) -> str | None:
    """What a fixed shape lacks of --memory and --cpus, or None."""
    if query.min_memory_gb is not None and (s.memory_gb or 0) < query.min_memory_gb - 1e-9:
        return "memory unknown" if s.memory_gb is None else "less memory than --memory"
    if query.min_vcpus is not None and (s.vcpus or 0) < query.min_vcpus:
        return "vCPUs unknown" if s.vcpus is None else "fewer vCPUs than --cpus"
    if req.vcpus_floor is not None and (s.vcpus or 0) < req.vcpus_floor:
        return "vCPUs unknown" if s.vcpus is None else "fewer vCPUs than the history's host"
    if not _count_within(cat, req, s):
        return "OCPU / vCPU count unknown or outside --cpus"
    return None


def _count_within(cat: Catalog, req: Requirements, s: Shape) -> bool:
    """A fixed shape's compute count within --cpus (always, without --cpus)."""
    if req.count_min is None and req.count_max is None:
        return True
    count = cloud_of(cat.cloud).compute_count(s)
    return count is not None and (req.count_min or 0) <= count <= (req.count_max or math.inf)


def _machine_types(cat: Catalog, series: str, req: Requirements) -> list[str]:
    """A GCP series as its predefined machine types within --ocpus / --min-vcpus (n2 -> n2-standard-2 ...
    n2-highcpu-96): each name fixes the vCPUs and memory, so each is priced, where the series is priced only at a
    memory given (--memory, --min-memory)."""
    shape = cat.shapes[series]
    lo, hi = req.count_min or 0.0, req.count_max or math.inf
    types = [f"{series}-{fam}-{v}" for fam, mf in shape.machine_families.items() for v in mf.vcpus if lo <= v <= hi]
    return types if shape.machine_families else [series]


def search_shapes(cat: Catalog, req: Requirements, names: list[str], left: dict[str, list[str]] | None = None,
                  offers: int = OFFERS) -> Outcome:
    """The cheapest point of the cheapest `offers` shapes among `names`, and of every shape within TIE_WINDOW of the
    cheapest (exact: equal to the cheapest of their per-shape searches), by branch and bound on compute price."""
    outcome = Outcome(shapes=len(names), left_out=dict(left or {}))
    entries: list[_Entry] = []
    for name in names:
        got = _entry(cat, req, name)
        if isinstance(got, str):
            outcome.left_out.setdefault(got, []).append(name)
        else:
            entries.append(got)
    entries.sort(key=lambda e: (e.floor, e.name))
    outcome.entries = {e.name: e for e in entries}
    outcome.best = _cheapest(entries, offers, outcome)
    return outcome


def _entry(cat: Catalog, req: Requirements, name: str) -> _Entry | str:
    """One shape ready for the branch and bound (its space, evaluator and compute floor), or why it is left out."""
    sreq = req.model_copy(update={"instance_shape": name, **OPEN_COUNT})
    space, problem = _space_or_problem(cat, sreq)
    if space is None:
        return f"cannot take the options ({problem})"
    if space.unknown_cap:   # unknown is not none: such a type does not compete here (named, it ranks last)
        space = dataclasses.replace(space, options=[o for o in space.options if o.type not in space.unknown_cap])
        if not space.options:
            return CAP_UNKNOWN
    ev = Evaluator(cat, sreq, space)   # member caps and prices: shared through the catalog
    floors = [j for j in (ev.instance_floor(o) for o in space.options) if j is not None]
    if not floors or not space.options:
        return "its instance caps cannot meet the targets"
    compute = ev.compute(space.ocpus[min(floors)])
    if compute is None or compute == math.inf:
        why = compute_cost(cat, name, space.ocpus[min(floors)], sreq.memory_gb).note if compute is None else ""
        return "compute price unknown at the counts that meet the targets" + (
            f" ({why.split(': ', 1)[-1]})" if why else "")
    return _Entry(name, sreq, space, ev, compute)


def _cheapest(entries: list[_Entry], offers: int, outcome: Outcome) -> list[tuple[Point, str]]:
    """Branch and bound over ENTRIES (cheapest compute floor first): each shape's cheapest point while its floor is
    under the `offers`-th best total (or the tie window of the best)."""
    best: list[tuple[Point, str]] = []
    solved: dict[tuple, Point] = {}           # fixed sizes with the same caps: their cheapest point carries over
    storage_above: dict[tuple, float] = {}    # ... or their storage is known to cost more than this
    for e in entries:
        bound = (max(best[offers - 1][0].cost, tie_window(best[0][0])) + 1e-9 if len(best) >= offers
                 else math.inf)
        if e.floor > bound:
            break
        found = _points(e, bound, solved, storage_above, outcome)
        if found:
            best.append((found[0], e.name))
            best.sort(key=lambda pn: (*rank_key(pn[0]), pn[1]))
            window = tie_window(best[0][0])
            best = best[:offers] + [pn for pn in best[offers:] if pn[0].cost <= window]
    return best


def _points(e: _Entry, bound: float, solved: dict[tuple, Point], storage_above: dict[tuple, float],
            outcome: Outcome) -> list[Point]:
    """The shape's cheapest point under BOUND (none: nothing under it), from a shape of the same caps when one
    was searched, else by its own search (counted in outcome.planned)."""
    key = _caps_key(e)
    if key is not None and key in solved:
        p = solved[key]
        again = e.ev.evaluate(p.option, p.members, p.size_gb, None)
        return [again] if again is not None and again.cost <= bound else []
    if key is not None and key in storage_above and e.floor + storage_above[key] > bound:
        return []
    outcome.planned += 1
    found = search(e.ev, e.space, keep=1, bound=bound)
    if key is not None and found:
        solved[key] = found[0]
    elif key is not None:
        storage_above[key] = max(bound - e.floor, 0.0)
    return found


def _caps_key(e: _Entry) -> tuple | None:
    """Fixed sizes whose instance caps, attachment limit and options are the same for every volume type have the
    same cheapest storage (compute is one price for the size): the search's result carries over."""
    if e.space.ocpus != [None]:
        return None
    caps = []
    for vtype in sorted({o.type for o in e.space.options}):
        try:
            c = e.ev.caps(None, vtype)
        except InputError:
            return None
        caps.append((vtype, c.iops, c.mbps, c.direction, c.attach_max, c.attach_pv_max, c.uhp_ok))
    return (tuple(caps), tuple(e.space.options), e.space.members[-1], tuple(sorted(e.space.unknown_price)))


def _space_or_problem(cat: Catalog, req: Requirements) -> tuple[SearchSpace | None, str | None]:
    """The shape's search space, or why it cannot take the options (a count, memory, interface, level)."""
    problem = option_problem(cat, req)
    if problem is not None:
        return None, problem
    try:
        return default_space(cat, req), None
    except InputError as exc:
        return None, str(exc)


def plan_shapes(req: Requirements, cat: Catalog, query: ShapeQuery) -> Plan:
    """plan over the shapes the query names: the cheapest shape's full plan, with the search said in
    `instance_search` and the notes; a plan with `infeasible` set when no shape meets the targets."""
    req = _search_requirements(req, cat, query)
    names, left = candidate_shapes(cat, query, req)
    record = InstanceSearch(query=query.text, families=query.families, min_memory_gb=query.min_memory_gb,
                            min_vcpus=query.min_vcpus, shapes=len(names), planned=0)
    what = "every current family" if query.text.lower() == ANY else f"family {query.text}"
    unpriced = [n for reason, ns in left.items() if reason.startswith(NO_COMPUTE_PRICE) for n in ns]
    outcome = search_shapes(cat, req, names, left) if names else None   # once: the same search answers both below
    if unpriced and (outcome is None or not outcome.best):
        plan = _unpriced_plan(req, cat, unpriced, what, left, record)
        if plan is not None:
            return plan
    if outcome is None:
        record.left_out = _reasons(left)
        return _infeasible(req, cat, record, f"no {cat.cloud} shape of {what} to plan on"
                           + (f": {'; '.join(record.left_out)}" if record.left_out else ""))
    return _searched_plan(req, cat, (names, what, unpriced), outcome, record)


def _search_requirements(req: Requirements, cat: Catalog, query: ShapeQuery) -> Requirements:
    """The requirements every shape of the search is planned with: the query's vCPU and memory floors in them,
    after the checks that are the user's error rather than every shape's."""
    if query.min_vcpus is not None:
        cloud_of(cat.cloud).check_vcpu_search(query.min_vcpus)
    selected_types(cat, req.levels, req.allow_hdd)   # a level the cloud lacks is the user's error, not every shape's
    if query.min_vcpus is not None and req.count_min is None:   # OCI refused above: the count is in vCPUs
        req = req.model_copy(update={"vcpus_min": float(query.min_vcpus)})   # GCP series: search from that count
    if query.min_memory_gb is not None:   # flexible shapes and GCP series are priced with at least that memory
        req = req.model_copy(update={"memory_gb": max(req.memory_gb or 0.0, query.min_memory_gb)})
    return req


def _unpriced_plan(req: Requirements, cat: Catalog, unpriced: list[str], what: str, left: dict[str, list[str]],
                   record: InstanceSearch) -> Plan | None:
    """A price that is unknown is never why a plan is infeasible ('--instance r7i' once said "infeasible: ... 11 no
    compute price"): the smallest unpriced shape whose layouts meet the targets, its compute unknown; None: none."""
    plan = _plan_without_compute_price(req, cat, unpriced, what)
    if plan is None:
        return None
    record.left_out = _reasons({r: ns for r, ns in left.items() if not r.startswith(NO_COMPUTE_PRICE)})
    record.unpriced = unpriced
    plan.instance_search = record
    return plan


def _searched_plan(req: Requirements, cat: Catalog, searched: tuple[list[str], str, list[str]], outcome: Outcome,
                   record: InstanceSearch) -> Plan:
    """The winner's full plan with the search in its notes, or the infeasible plan when no shape met the targets.
    SEARCHED: the shapes' names, the search in words, the shapes without a compute price."""
    names, what, unpriced = searched
    record.planned = outcome.planned
    record.unpriced = unpriced
    record.left_out = _reasons({r: ns for r, ns in outcome.left_out.items() if not r.startswith(NO_COMPUTE_PRICE)})
    if not outcome.best:
        head = (f"none of the {len(names)} {cat.cloud} shapes of {what} could be planned" if not outcome.planned else
                f"no layout on any of the {len(names)} {cat.cloud} shapes of {what} meets {_targets(req)}")
        return _infeasible(req, cat, record, head + (f" ({'; '.join(record.left_out)})" if record.left_out else ""))
    offers = _ranked_offers(cat, outcome)
    winner = offers[0][1]
    record.cheapest = [offer for _key, _name, offer in offers[:OFFERS]]
    plan = make_plan(req.model_copy(update={"instance_shape": winner, **OPEN_COUNT}), cat)
    others = ", ".join(f"{o.instance} {_dollars(o.cost)}" for o in record.cheapest[1:])
    plan.notes.insert(0, f"Searched {what} of the {cat.cloud} catalog {cat.version}: {len(names)} shapes, "
                         f"{outcome.planned} planned (the rest could not beat ${outcome.best[0][0].cost:,.2f}/month on "
                         f"compute price alone); cheapest {winner}" + (f"; next {others}" if others else "") + ".")
    plan.notes[1:1] = [f"Left out: {r}." for r in record.left_out] + ([_unpriced_note(cat, unpriced, winner)]
                                                                       if unpriced else [])
    plan.instance_search = record
    return plan


def _unpriced_note(cat: Catalog, names: list[str], winner: str) -> str:
    """Shapes without a compute price are not ranked, and the plan says so: their total is unknown, not high
    ('--instance any' once listed "144 no compute price" among the shapes left out, as if they had lost)."""
    return (f"Not ranked for want of a compute price: {fmt_count(len(names), 'shape')} of the {cat.cloud} catalog "
            f"{cat.version} (e.g. {', '.join(names[:3])}); any of them might cost less than {winner}. To rank "
            f"them, import {cloud_of(cat.cloud).price_list}: blockfit catalog import --cloud {cat.cloud} FILE --out "
            f"{cat.cloud}.toml, then plan with --catalog {cat.cloud}.toml.")


def _plan_without_compute_price(req: Requirements, cat: Catalog, names: list[str], what: str) -> Plan | None:
    """The plan on the smallest of these shapes (vCPUs, then memory) whose layouts meet the targets, its compute
    cost unknown, saying so and what to import; None when no layout on any of them meets the targets."""
    def size(name: str) -> tuple[float, float, str]:
        shape = cat.shapes[name]
        return (shape.vcpus or shape.ocpus or math.inf, shape.memory_gb or math.inf, name)
    for name in sorted(names, key=size):
        sreq = req.model_copy(update={"instance_shape": name, **OPEN_COUNT})
        try:
            space = default_space(cat, sreq)
        except InputError:
            continue
        if not ranked_points(Evaluator(cat, sreq, space), space, 1):
            continue
        plan = make_plan(sreq, cat)
        if not plan.feasible:
            continue
        hint = cloud_of(cat.cloud).price_import_hint
        plan.notes.insert(0, f"Searched {what} of the {cat.cloud} catalog {cat.version}: {len(names)} shapes with no "
                             f"compute price{hint}; planned on performance alone, the smallest that meets the "
                             f"targets: {name}, its compute cost unknown.")
        return plan
    return None


def _ranked_offers(cat: Catalog, outcome: Outcome) -> list[tuple[RankKey, str, ShapeOffer]]:
    """The shapes found, cheapest first, each with its offer. A shape within TIE_WINDOW of the cheapest is ranked by
    what its own plan recommends (the tie rule may pick a dearer layout with fewer volumes there), the others by their
    cheapest point (dearer than any tied shape's recommendation)."""
    window = tie_window(outcome.best[0][0])
    ranked = []
    for p, name in outcome.best:
        if len(outcome.best) > 1 and p.cost <= window:
            e = outcome.entries[name]
            first = ranked_points(e.ev, e.space)
            p = first[0] if first else p
        ranked.append((rank_key(p), name, _offer(cat, p, name)))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return ranked


def _infeasible(req: Requirements, cat: Catalog, record: InstanceSearch, reason: str) -> Plan:
    """The search's infeasible plan: no candidates, the reason, the search record (make_plan's contract)."""
    return Plan(blockfit_version=__version__, created=datetime.now(UTC), cloud=cat.cloud,
                catalog_version=cat.version.isoformat(), requirements=req, feasible=False, candidates=[],
                infeasible=Infeasible(reason=reason), instance_search=record,
                notes=[f"Left out: {r}." for r in record.left_out])


def _targets(req: Requirements) -> str:
    """The targets in words: '150,000 IOPS and 2,000 MB/s'."""
    parts = [f"{req.needed_gb:,.0f} GB"]
    if req.target_iops:
        parts.append(f"{req.target_iops:,.0f} IOPS")
    if req.target_mbps:
        parts.append(f"{req.target_mbps:,.0f} MB/s")
    if req.max_latency_ms is not None:
        parts.append(f"<= {req.max_latency_ms:g} ms mean latency")
    return " and ".join(parts)


def _dollars(cost: Cost) -> str:
    return "(price unknown)" if cost.total is None else f"${cost.total:,.2f}"


def _offer(cat: Catalog, p: Point, name: str) -> ShapeOffer:
    instance = name if p.ocpus is None else f"{name}:{p.ocpus:g}"
    layout = layout_spec(cat, Layout(members=p.members, volume=p.option.volume(cat.cloud, p.size_gb)))
    storage = None if p.storage is None else round(p.storage, 2)
    compute = None if p.compute is None else round(p.compute, 2)
    total = None if storage is None or compute is None else round(storage + compute, 2)
    return ShapeOffer(instance=instance, layout=layout,
                      cost=Cost(storage=storage, compute=compute, total=total, region=price_region(cat)))


def _reasons(left: dict[str, list[str]]) -> list[str]:
    return [f"{len(names)} {reason} (e.g. {', '.join(names[:3])})" for reason, names in left.items() if names]
