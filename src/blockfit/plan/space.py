"""The search space plan explores: performance levels (with provisioning choices), member counts,
member sizes and OCPU counts. The brute-force enumerator walks exactly the same space."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from blockfit.catalog import Catalog
from blockfit.catalog.models import Shape, VolumeType
from blockfit.errors import InputError, ValueProblem
from blockfit.model.compute import check_memory
from blockfit.model.instance import (
    check_instance_options,
    find_shape,
    instance_at,
    instance_caps,
    machine_type,
    series_vcpus,
)
from blockfit.model.kinds import KINDS
from blockfit.model.kinds.clouds import cloud_of
from blockfit.schema import Instance, Requirements, Volume
from blockfit.schema.cost import COPIES

# Provisioning grids for types that sell IOPS / throughput separately (rounded steps a DBA would pick).
IOPS_GRID = [1000, 2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000, 16000, 20000, 25000, 32000, 40000,
             50000, 64000, 80000, 100000, 128000, 160000, 200000, 256000, 300000, 350000, 400000]
TPUT_GRID = [125, 250, 375, 500, 750, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 10000]
PROVISIONED_BOTH = ("aws_gp3", "azure_provisioned", "gcp_hyperdisk")
PROVISIONED_IOPS = ("aws_piops",)


@dataclass(frozen=True)
class LevelOption:
    """One purchasable performance choice: a volume type with its level or provisioned figures."""

    type: str
    vpu: int | None = None
    iops: int | None = None
    tput: float | None = None

    def volume(self, cloud: str, size_gb: int) -> Volume:
        return Volume(cloud=cloud, type=self.type, size_gb=size_gb, vpu_per_gb=self.vpu,
                      provisioned_iops=self.iops, provisioned_throughput=self.tput)


@dataclass
class SearchSpace:
    cloud: str
    shape: str
    options: list[LevelOption]
    members: list[int]
    sizes: dict[str, list[int]]
    ocpus: list[float | None]
    notes: list[str] = field(default_factory=list)
    unknown_price: set[str] = field(default_factory=set)   # types planned on performance: no price in the catalog
    unknown_cap: set[str] = field(default_factory=set)     # types whose per-VM cap here is unknown (not applied)


def instance_for(cat: Catalog, req: Requirements, shape: str, ocpus: float | None) -> Instance:
    """The instance plan evaluates: the shape and count, with the interface and EBS weighting asked for."""
    return instance_at(cat, shape, ocpus, interface=req.interface, ebs_weighting=req.ebs_weighting)


def sizes_for(vt: VolumeType) -> list[int]:
    if vt.kind == "azure_tiered" and vt.tiers:
        return sorted(int(t["size_gb"]) for t in vt.tiers)
    step = max(int(vt.size_step_gb), 1)
    return list(range(int(vt.min_gb), int(vt.max_gb) + 1, step))


def _sizes(cat: Catalog, key: str) -> list[int]:
    """sizes_for, kept with the catalog (a search over many shapes asks for the same list for each)."""
    found: list[int] = cat.derived(("sizes", key), lambda: sizes_for(cat.volume_types[key]))
    return found


def options_for(vt_key: str, vt: VolumeType) -> list[LevelOption]:
    """The levels or provisioning points plan searches for one volume type."""
    if vt.kind == "oci_vpu":
        return [LevelOption(vt_key, vpu=lv.vpu) for lv in vt.levels]
    if vt.kind in PROVISIONED_BOTH:
        return _provisioned_both(vt_key, vt)
    if vt.kind in PROVISIONED_IOPS:
        return [LevelOption(vt_key, iops=i) for i in IOPS_GRID if (vt.iops_min or 0) <= i <= (vt.iops_max or 0)]
    return [LevelOption(vt_key)]


def _provisioned_both(vt_key: str, vt: VolumeType) -> list[LevelOption]:
    """IOPS and throughput provisioned apart (gp3, premium-v2, ...): the included (or least) figure, then the grid
    up to the type's maximum, for each."""
    lo_i = vt.iops_included or vt.iops_min or 0
    iops = [lo_i] + [i for i in IOPS_GRID if lo_i < i <= (vt.iops_max or 0)]
    return [LevelOption(vt_key, iops=int(i), tput=t) for i in iops for t in _tput_points(vt)]


def _tput_points(vt: VolumeType) -> list[float | None]:
    if not vt.tput_provisionable:
        return [None]
    lo_t = vt.tput_included or vt.tput_min or 0
    points: list[float | None] = [lo_t]
    return points + [t for t in TPUT_GRID if lo_t < t <= (vt.tput_max or 0)]


def selected_types(cat: Catalog, levels: list[str] | None, allow_hdd: bool = False) -> list[LevelOption]:
    """All options of the cloud, or those the user named with --levels (OCI level names or NNvpu, type keys).
    Unnamed, OCI boot volumes (they hold the OS, not a data layout) and HDD types (unless allow_hdd: AWS counts
    every random I/O of up to 1 MiB as 1 MiB of an st1/sc1 volume's throughput) are left out."""
    if not levels:
        return [opt for key, vt in cat.volume_types.items() if vt.levels_from is None and (vt.ssd or allow_hdd)
                for opt in options_for(key, vt)]
    out: list[LevelOption] = []
    for name in levels:
        key = cat.aliases.get(name.lower(), name.lower())
        if key in cat.volume_types:
            out += options_for(key, cat.volume_types[key])
        elif (level_type := cloud_of(cat.cloud).level_type) is not None:
            try:
                vpu = cloud_of(cat.cloud).level_vpu(cat.volume_types[level_type], name)
            except InputError as exc:   # the level's own words ("level 'x': ..."), a problem of the value
                raise ValueProblem(str(exc)) from None
            out.append(LevelOption(level_type, vpu=vpu))
        else:
            raise ValueProblem(f"level {name!r}: expected one of {', '.join(cat.volume_types)} for {cat.cloud}")
    return list(dict.fromkeys(out))


def _price_known(cat: Catalog, option: LevelOption, size: int) -> bool | None:
    """Whether this option at this size has a known monthly price (None: the size is not valid for it)."""
    vt = cat.volume_types[option.type]
    kind = KINDS[vt.kind]
    try:
        vol = kind.normalize(cat, vt, option.volume(cat.cloud, size))
    except InputError:
        return None
    return all(item.monthly is not None for item in kind.cost(cat, vt, vol))


def priced_sizes(cat: Catalog, option: LevelOption, sizes: list[int]) -> list[int]:
    """The sizes plan can rank by cost. Tiered types price each tier (some tiers have no known price);
    for the others the price does not depend on size, so one valid size decides for all. Kept with the catalog:
    a search over many shapes asks the same for each."""
    key = ("priced_sizes", option, len(sizes), sizes[0] if sizes else None, sizes[-1] if sizes else None)
    found: list[int] = cat.derived(key, lambda: _priced_sizes(cat, option, sizes))
    return found


def _priced_sizes(cat: Catalog, option: LevelOption, sizes: list[int]) -> list[int]:
    if cat.volume_types[option.type].kind == "azure_tiered":
        return [s for s in sizes if _price_known(cat, option, s) is not False]
    step = max(len(sizes) // 32, 1)
    for size in [sizes[-1], *sizes[::step]]:
        known = _price_known(cat, option, size)
        if known is not None:
            return sizes if known else []
    return []   # valid at none of the probed sizes: nothing plan could price


def default_space(cat: Catalog, req: Requirements) -> SearchSpace:
    """Every option plan searches for these requirements: the levels the shape can attach, the member counts, the
    sizes with a price (or named with --levels), and the OCPU / vCPU counts; notes say what was left out."""
    shape = find_shape(cat, req.instance_shape)
    for check in space_checks(cat, req).values():
        check()
    notes: list[str] = []
    options = _attachable(cat, shape, req, notes)
    max_members = req.max_volumes or shape.attach_max or 32
    least = COPIES[req.redundancy]   # mirroring keeps each copy on another volume (ASM failure group, RAID10 leg)
    fixed_name = machine_type(cat, req.instance_shape) is not None   # n2-standard-16: the name fixes the vCPUs
    ocpus = _ocpu_counts(cat, shape, req, fixed_name)
    kept, sizes, unknown_price = _priced(cat, req, options, notes)
    name = req.instance_shape.lower() if fixed_name else shape.name
    unknown_cap = cap_unknown_types(cat, req, name, ocpus, {o.type for o in kept})
    notes += [f"{t}: the per-VM cap of {name} is not in the {cat.cloud} catalog {cat.version}; its layouts are "
              "planned with the instance cap not applied, a group of their own after those whose caps are known"
              for t in sorted(unknown_cap)]
    return SearchSpace(cloud=cat.cloud, shape=name, options=kept, members=list(range(least, max_members + 1)),
                       sizes=sizes, ocpus=ocpus, notes=notes, unknown_price=unknown_price, unknown_cap=unknown_cap)


def space_checks(cat: Catalog, req: Requirements) -> dict[str, Callable[[], object]]:
    """Each check of the requirements one shape's search space depends on, by the field it is about; the command
    line names the option that carried it (a search over shapes leaves out a shape that fails one)."""
    shape = find_shape(cat, req.instance_shape)
    fixed_name = machine_type(cat, req.instance_shape) is not None
    return {"levels": lambda: _check_levels(cat, shape, req), "max_volumes": lambda: _check_members(shape, req),
            "instance": lambda: _check_instance(cat, shape, req, fixed_name),
            "cpus": lambda: _ocpu_counts(cat, shape, req, fixed_name),
            "memory": lambda: _check_memory_fits(cat, shape.name, _ocpu_counts(cat, shape, req, fixed_name),
                                                 req.memory_gb)}


def option_problem(cat: Catalog, req: Requirements) -> str | None:
    """The first space check REQ fails, in words that name its field ("max volumes 40: ..."): a search over shapes
    leaves the shape out with it. None: every check passes."""
    for fields, check in space_checks(cat, req).items():
        try:
            check()
        except ValueProblem as exc:
            return f"{fields.replace('_', ' ')} {exc}"
    return None


def _check_levels(cat: Catalog, shape: Shape, req: Requirements) -> None:
    """Levels the user names: the cloud's, and ones this shape can attach."""
    options = selected_types(cat, req.levels, req.allow_hdd)
    cannot = sorted({o.type for o in options} - set(shape.volume_types)) if shape.volume_types else []
    if cannot and req.levels and any(cat.aliases.get(n.lower(), n.lower()) in cannot for n in req.levels):
        raise ValueProblem(f"{shape.name} cannot attach {', '.join(cannot)} ({cat.cite(shape, 'volume_types')})")


def _attachable(cat: Catalog, shape: Shape, req: Requirements, notes: list[str]) -> list[LevelOption]:
    """The options named (or all), less those the shape cannot attach and, unless asked for, HDD types."""
    options = selected_types(cat, req.levels, req.allow_hdd)
    if shape.volume_types:   # a type the series cannot attach: refused when named (_check_levels), else left out
        cannot = sorted({o.type for o in options} - set(shape.volume_types))
        notes += [f"{t}: not considered, {shape.name} cannot attach it" for t in cannot]
        options = [o for o in options if o.type in shape.volume_types]
    if not req.levels and not req.allow_hdd:
        hdd = sorted(k for k, vt in cat.volume_types.items() if not vt.ssd)
        if hdd:
            notes.append(f"HDD types ({', '.join(hdd)}) left out: every small random I/O costs them a large "
                         "I/O's share of throughput; --allow-hdd or --levels to consider them")
    return options


def _check_members(shape: Shape, req: Requirements) -> None:
    """The most volumes a layout may have: room for its mirror's copies, within what the shape attaches."""
    max_members = req.max_volumes or shape.attach_max or 32
    least = COPIES[req.redundancy]
    if max_members < least:
        raise ValueProblem(f"{max_members}: {req.redundancy} redundancy keeps {least} copies of every block on "
                           f"different volumes: expected at least {least}")
    if req.max_volumes and shape.attach_max and req.max_volumes > shape.attach_max:
        raise ValueProblem(f"{req.max_volumes}: {shape.name} attaches at most {shape.attach_max} volumes")


def _check_instance(cat: Catalog, shape: Shape, req: Requirements, fixed_name: bool) -> None:
    """The instance's /OPTION, and a series whose sizes the catalog knows."""
    check_instance_options(shape, req.interface, req.ebs_weighting)
    if req.instance_count is None and shape.kind == "vcpu_tiers" and not fixed_name and not _tier_sizes(shape):
        raise ValueProblem(f"{shape.name}: its sizes and per-VM limits are not in the {cat.cloud} catalog "
                           f"{cat.version}; give a vCPU count, e.g. {shape.name}:16")


def _tier_sizes(shape: Shape) -> list[float | None]:
    """The smallest size a vCPU-tier series comes in within each cap tier."""
    vcpu_sizes = series_vcpus(shape)
    return sorted({min((v for v in vcpu_sizes if t["vcpus_min"] <= v <= t.get("vcpus_max", 10**6)),
                       default=t["vcpus_min"]) for t in shape.tiers})


def _ocpu_counts(cat: Catalog, shape: Shape, req: Requirements, fixed_name: bool) -> list[float | None]:
    """The OCPU (vCPU) counts to search: the one asked for, none for a fixed size, else the shape's within --cpus."""
    if req.instance_count is not None:
        return [req.instance_count]
    if shape.kind == "fixed" or fixed_name:
        return [None]
    ocpus: list[float | None]
    if shape.kind == "vcpu_tiers":   # the smallest size the series comes in within each cap tier
        ocpus = _tier_sizes(shape)
    else:
        assert shape.ocpus_min is not None and shape.ocpus_max is not None
        ocpus = [float(c) for c in shape.ocpu_counts] or list(range(int(shape.ocpus_min), int(shape.ocpus_max) + 1))
    if (req.count_min, req.count_max) != (None, None):
        ocpus = bounded_ocpus(shape.name, ocpus, req.count_min, req.count_max)
    return ocpus if req.vcpus_floor is None else vcpu_floored(cat, shape.name, ocpus, req.vcpus_floor)


def vcpu_floored(cat: Catalog, shape: str, counts: list[float | None], floor: float) -> list[float | None]:
    """The counts of SHAPE with at least FLOOR vCPUs (OCI: OCPUs x the shape's vCPUs per OCPU); none left is an
    input error naming the floor."""
    unit = cloud_of(cat.cloud)
    kept: list[float | None] = [c for c in counts
                                if c is not None and (unit.count_fields(shape, c)["vcpus"] or 0) >= floor - 1e-9]
    if not kept:
        raise ValueProblem(f"{floor:g} vCPUs (the history's host): no count of {shape} has that many")
    return kept


def _priced(cat: Catalog, req: Requirements, options: list[LevelOption],
            notes: list[str]) -> tuple[list[LevelOption], dict[str, list[int]], set[str]]:
    """(options kept, sizes per type, types planned without a price): an option without a priced size is left
    out, unless --levels named its type (then planned on performance alone); notes say which. Kept with the catalog
    per option list and --levels (all it depends on): a search over shapes asks it of each, mostly the same."""
    key = ("priced-options", tuple(options), tuple(req.levels or ()))
    kept, sizes, unknown_price, said = cat.derived(key, lambda: _priced_options(cat, req, options))
    notes += said
    return list(kept), dict(sizes), set(unknown_price)


def _priced_options(cat: Catalog, req: Requirements, options: list[LevelOption]
                    ) -> tuple[list[LevelOption], dict[str, list[int]], set[str], list[str]]:
    """_priced, computed: its three values and its notes."""
    all_sizes: dict[str, list[int]] = {key: _sizes(cat, key) for key in {o.type for o in options}}
    kept, sizes, unpriced_options = _split_priced(cat, options, all_sizes)
    # a type is without a price only when none of its options has one (one gp3 provisioning option with
    # no priced size once flagged all of gp3 "no price" beside a table pricing gp3 at $246.40)
    unpriced = {o.type for o in unpriced_options} - {o.type for o in kept}
    named = _named_types(cat, req)
    unknown_price: set[str] = set()
    for o in options:   # a type named with --levels is planned on performance even without a price
        if o.type in unpriced and o.type in named and o not in kept:
            kept.append(o)
            sizes[o.type] = all_sizes[o.type]
            unknown_price.add(o.type)
    notes = [f"{t}: no price in the {cat.cloud} catalog {cat.version}; planned on performance alone, its cost "
             "unknown: after the known compute cost, the fewest volumes, then the smallest size and provisioning "
             "that meet the targets" for t in sorted(unknown_price)]
    notes += [f"{t}: not considered, no price in the {cat.cloud} catalog {cat.version} (name it with --levels "
              "to plan it on performance)" for t in sorted(unpriced) if t not in sizes]
    return kept, sizes, unknown_price, notes


def _split_priced(cat: Catalog, options: list[LevelOption], all_sizes: dict[str, list[int]]
                  ) -> tuple[list[LevelOption], dict[str, list[int]], list[LevelOption]]:
    """(the options with a priced size, the priced sizes per type over its options, the options without)."""
    sizes: dict[str, list[int]] = {}
    kept: list[LevelOption] = []
    unpriced: list[LevelOption] = []
    for o in options:
        priced = priced_sizes(cat, o, all_sizes[o.type])
        if not priced:
            unpriced.append(o)
            continue
        kept.append(o)
        known = sizes.get(o.type)
        sizes[o.type] = priced if known is None or known is priced else sorted(set(known) | set(priced))
    return kept, sizes, unpriced


def _named_types(cat: Catalog, req: Requirements) -> set[str]:
    """The volume types --levels names (on a cloud of levels, a level names its type)."""
    named = {cat.aliases.get(n.lower(), n.lower()) for n in req.levels or []}
    level_type = cloud_of(cat.cloud).level_type
    if level_type is not None and req.levels:
        named.add(level_type)
    return named


def cap_unknown_types(cat: Catalog, req: Requirements, shape: str, ocpus: list[float | None],
                      types: set[str]) -> set[str]:
    """The types whose instance IOPS or MB/s cap on this shape is unknown at some count plan searches. Unknown is not
    none: such a layout's figures may be more than the VM delivers (GCP Hyperdisk on a 1-vCPU VM "40,000 IOPS")."""
    out = set()
    for vtype in types:
        for count in ocpus:
            try:
                caps = instance_caps(cat, instance_for(cat, req, shape, count), vtype)
            except InputError:   # a count that cannot attach the type: the search skips it too
                continue
            if caps.iops is None or caps.mbps is None:
                out.add(vtype)
                break
    return out


def _check_memory_fits(cat: Catalog, shape: str, ocpus: list[float | None], memory_gb: float | None) -> None:
    """--memory that no OCPU count of the shape sells is an input error (plan would otherwise find nothing)."""
    counts = [o for o in ocpus if o is not None]
    if memory_gb is not None and counts:
        check_memory(cat, shape, max(counts), memory_gb)


def bounded_ocpus(shape: str, ocpus: list[float | None], lo: float | None, hi: float | None) -> list[float | None]:
    """The shape's OCPU (vCPU) counts within --cpus MIN-MAX; none left is an input error."""
    kept = [o for o in ocpus if o is not None and (lo is None or o >= lo) and (hi is None or o <= hi)]
    if not kept:
        have = f"{ocpus[0]:g}-{ocpus[-1]:g}" if ocpus and ocpus[0] is not None else "a fixed count"
        bounds = f"{'' if lo is None else f'{lo:g}'}-{'' if hi is None else f'{hi:g}'}"
        raise ValueProblem(f"{bounds}: {shape} offers {have}; no count in that range")
    return list(kept)
