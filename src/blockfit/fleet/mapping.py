"""The mapping file (--hosts, TOML): each host's current layout and instance, read and checked once.

[defaults] applies to every host the file does not name. Series labels blockfit_layout / blockfit_instance serve
where the file is silent:

    [defaults]
    instance = "VM.Standard.E4.Flex:8"

    [hosts."db-01:9100"]          # the instance label, or the host without :port
    layout = "4x1000G@balanced"
    instance = "VM.Standard.E4.Flex:16"
    capacity = "3T"               # usable capacity to plan for (default: what the current layout holds)
    devices = "dm-3"              # this host's devices (a regular expression), instead of --devices / --mount

Capacities are parsed here, once, into GB: a bad one stops the run before the first request. Layouts and instances
stay spec strings until a host is planned, where the catalog parses them (a label from the server is one too).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from blockfit.errors import InputError, ValueProblem
from blockfit.fleet.query import INSTANCE_LABEL, LAYOUT_LABEL, FleetQuery, device_regex, lookup
from blockfit.units import parse_volume_gb

MAPPING_KEYS = ("layout", "instance", "capacity", "devices")


@dataclass(frozen=True)
class HostConfig:
    """What the user says about one host (every field optional; [defaults] fills the gaps)."""

    layout: str | None = None
    instance: str | None = None
    capacity_gb: float | None = None
    devices: str | None = None


@dataclass
class Mapping:
    path: Path | None = None
    defaults: HostConfig = field(default_factory=HostConfig)
    hosts: dict[str, HostConfig] = field(default_factory=dict)

    def config(self, host: str, labels: dict[str, str]) -> HostConfig:
        """The file's entry for HOST, then its series labels, then [defaults]."""
        own = lookup(self.hosts, host) or HostConfig()
        d = self.defaults
        return HostConfig(layout=own.layout or labels.get(LAYOUT_LABEL) or d.layout,
                          instance=own.instance or labels.get(INSTANCE_LABEL) or d.instance,
                          capacity_gb=own.capacity_gb or d.capacity_gb, devices=own.devices or d.devices)


def load_mapping(path: Path) -> Mapping:
    """Read the mapping FILE (TOML: [defaults] and [hosts."NAME"] tables of layout, instance, capacity, devices)."""
    from blockfit.inputs import read_text

    try:   # a regular file only, read against a cap (a FIFO waited forever, /dev/zero read until memory ran out)
        doc = tomllib.loads(read_text(path, str(path), "a TOML mapping of hosts to layouts"))
    except ValueProblem:
        raise
    except InputError as exc:   # read_text names the file: the CLI adds --hosts
        raise ValueProblem(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueProblem(f"{path}: not TOML ({exc})") from None
    unknown = [k for k in doc if k not in ("defaults", "hosts")]
    if unknown:
        raise ValueProblem(f"{path}: unknown table {unknown[0]!r}; expected [defaults] and [hosts.\"NAME\"]")
    hosts = doc.get("hosts", {})
    if not isinstance(hosts, dict):
        raise ValueProblem(f"{path}: 'hosts' must be a table of [hosts.\"NAME\"] entries")
    return Mapping(path=path, defaults=_entry(path, "defaults", doc.get("defaults", {})),
                   hosts={name: _entry(path, f'hosts."{name}"', entry) for name, entry in hosts.items()})


def _entry(path: Path, where: str, entry: object) -> HostConfig:
    if not isinstance(entry, dict):
        raise ValueProblem(f"{path}: [{where}] must be a table of {', '.join(MAPPING_KEYS)}")
    for key, value in entry.items():
        if key not in MAPPING_KEYS:
            raise ValueProblem(f"{path}: [{where}] unknown key {key!r}; expected {', '.join(MAPPING_KEYS)}")
        if not isinstance(value, str) or not value.strip():
            raise ValueProblem(f"{path}: [{where}] {key} must be a non-empty string, e.g. "
                               f"{_EXAMPLES[key]}")
    text = {k: str(v).strip() for k, v in entry.items()}
    capacity = text.get("capacity")
    try:
        capacity_gb = None if capacity is None else parse_volume_gb(capacity, f"{path}: [{where}] capacity")
    except InputError as exc:   # names the file and the entry: a problem of the file's value
        raise ValueProblem(str(exc)) from None
    devices = text.get("devices")
    try:   # checked as --devices is; a rule that is no regular expression was "no device matches" per host
        devices = None if devices is None else device_regex([devices])
    except ValueProblem as exc:
        raise ValueProblem(f"{path}: [{where}] devices {exc.bare}") from None
    return HostConfig(layout=text.get("layout"), instance=text.get("instance"), devices=devices,
                      capacity_gb=capacity_gb)


_EXAMPLES = {"layout": '"4x1000G@balanced"', "instance": '"VM.Standard.E4.Flex:8"', "capacity": '"3T"',
             "devices": '"dm-3"'}


def with_defaults(query: FleetQuery, mapping: Mapping) -> FleetQuery:
    """The query with the mapping's per-host device rules and the hosts it names."""
    overrides = {name: c.devices for name, c in mapping.hosts.items() if c.devices}
    return replace(query, overrides=overrides, wanted=sorted(mapping.hosts),
                   devices=query.devices or mapping.defaults.devices)
