"""Every host's I/O history from Prometheus (node_exporter's diskstats), reduced to plan targets by PromQL itself:
the conversation with the server, and the data types it fills. The PromQL text is `promql.py`'s.

A fleet's history is hundreds of hosts × weeks × a sample a minute (500 × 30 days × 1 min is 21.6 million points
per metric): blockfit asks the server for the numbers a plan needs, per host, and never for the samples. The
percentile of a host's total IOPS is `quantile_over_time(φ, (sum by (instance) (rate(reads[S])) + sum by
(instance) (rate(writes[S])))[RANGE:S])`: the rate over each step S, summed over the host's devices, then the
percentile over the range, which is what `plan --from FILE` does client-side with an iostat interval of S.
A Thanos, Mimir or VictoriaMetrics behind the same API spreads that work over its own nodes: every query is an
aggregation `by (instance)` at its outermost (Thanos shards those vertically, by host), and the percentile is
`quantile_over_time` over a subquery, the form Mimir's query sharding splits as it is. The tests run every
query against Prometheus and VictoriaMetrics.

Hosts go to the server in batches (each host its own selector, joined by `or`), a few batches at a time
(bounded concurrency); a batch the server cannot finish (422, a timeout) is halved and only that query retried.
Results stream out per batch, so memory does not grow with the fleet. Full series (`query_range`) are fetched
only for a host's detail (`host_series`), in slices under the server's points limit.

Hosts are `instance` labels. Their devices: a regular expression over node_exporter's `device` label (--devices,
or per host in the mapping file), or the device holding a mount point (--mount), read from
`node_filesystem_size_bytes` and, for /dev/mapper names, `node_disk_device_mapper_info`.
"""

from __future__ import annotations

import math
import queue
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from blockfit.errors import ValueProblem
from blockfit.fleet.promapi import Client, QueryRefused, TooBig
from blockfit.fleet.promql import (
    DM_INFO,
    FILESYSTEM,
    HOST_LABEL,
    INSTANCE_LABEL,
    LAYOUT_LABEL,
    METRICS,
    READ_BYTES,
    READS,
    WRITE_BYTES,
    WRITES,
    Queries,
    check_selector,
    device_regex,
    disk_series,
    fmt_span,
    mount_series,
    parse_span,
    selector,
)

# points a batch's subqueries may hold at once (Prometheus's --query.max-samples is 50 million by default). The
# server's CPU per host is the same from 5 to 100 hosts a batch, its memory is not: at 30 days of 1-minute steps,
# batches of 57 hosts (5 million points) took Prometheus to 1.8 GiB, batches of 11 (1 million) to a fraction
BATCH_POINTS = 1_000_000
MAX_BATCH = 64
# hosts in one run: each costs a plan (25 ms of CPU) and, when it cannot be planned, a line on stderr
MAX_HOSTS = 5_000
T = TypeVar("T")


class SelectorProblem(ValueProblem):
    """The selector's value, found wrong mid-run (the server refused it, or it matched no host): the CLI names
    --match for these alone, not for every problem met while the fleet is planned."""
def parse_until(text: str | None, now: float) -> float:
    """The end of the history: ISO 8601 (2026-11-01T00:00Z, UTC unless it says otherwise) or Unix seconds; None is
    now. A time in the future is refused (the range would hold no samples yet)."""
    if text is None:
        return now
    import datetime as dt
    stripped = text.strip()
    try:
        t = float(stripped)
    except ValueError:
        try:
            stamp = dt.datetime.fromisoformat(stripped.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise ValueProblem(f"{text!r}: expected a time as ISO 8601 (e.g. 2026-11-01T00:00Z) or Unix "
                               "seconds") from None
        t = (stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)).timestamp()
    if not math.isfinite(t) or t <= 0 or t > now + 60:
        raise ValueProblem(f"{text!r}: expected a time after 1970 and not in the future")
    return t


@dataclass(frozen=True)
class Window:
    """The range and step every query uses: END on the step grid, the range ending there."""

    end: int
    range_s: int
    step_s: int

    @property
    def start(self) -> int:
        return self.end - self.range_s

    @property
    def steps(self) -> int:
        return self.range_s // self.step_s


def window(now: float, range_s: int, step_s: int) -> Window:
    if range_s < 2 * step_s:
        raise ValueProblem(f"{fmt_span(range_s)}: expected at least two steps of {fmt_span(step_s)} (the step)")
    return Window(end=int(now // step_s) * step_s, range_s=range_s, step_s=step_s)


@dataclass
class HostSeries:
    """What the series index says about one host: each device's metric names, and its blockfit_* labels."""

    host: str
    devices: dict[str, set[str]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HostHistory:
    """One host's history reduced by the server: the percentile of total IOPS and MB/s per step, the read share."""

    host: str
    devices: list[str]
    samples: int
    expected: int
    iops: float
    mbps: float
    read_pct: float
    resets: int
    labels: dict[str, str]
    device_rule: str


@dataclass(frozen=True)
class HostProblem:
    """A host that cannot be planned, in one line; cause 'input' (exit 2) or 'server' (exit 4)."""

    host: str
    message: str
    cause: str = "input"


@dataclass
class FleetQuery:
    """What to ask: whose history (selector, per-host device rules), over which window, which percentile."""

    match: str
    window: Window
    percentile: float
    devices: str | None = None          # global regex (--devices)
    mount: str | None = None            # or the device under this mount point (--mount)
    overrides: dict[str, str] = field(default_factory=dict)   # host → device regex (mapping file)
    wanted: list[str] = field(default_factory=list)           # hosts the mapping names (reported when absent)
    concurrency: int = 4

    def sel(self, metric: str, *matchers: str) -> str:
        return selector(self.match, metric, *matchers)


def discover(client: Client, q: FleetQuery) -> dict[str, HostSeries]:
    """Every host the selector matches with disk series in the window or the range before it (the series index
    only, no samples): a host whose history stopped before the window is reported, not silently left out."""
    try:
        rows = client.series([disk_series(q.match)], q.window.start - q.window.range_s,
                             q.window.end)
    except QueryRefused as exc:
        raise SelectorProblem(f"{q.match!r}: the server refused the selector ({exc})") from None
    hosts: dict[str, HostSeries] = {}
    for labels in rows:
        host, device, name = labels.get(HOST_LABEL), labels.get("device"), labels.get("__name__")
        if host is None or device is None or name is None:
            continue
        if host not in hosts and len(hosts) == MAX_HOSTS:
            raise SelectorProblem(f"{q.match!r}: more than {MAX_HOSTS:,} hosts on {client.source.display}; "
                               "narrow the selector, or run the fleet in parts")
        hs = hosts.setdefault(host, HostSeries(host))
        hs.devices.setdefault(device, set()).add(name)
        for key in (LAYOUT_LABEL, INSTANCE_LABEL):
            if key in labels:
                hs.labels[key] = labels[key]
    return hosts


def _mount_devices(client: Client, q: FleetQuery, hosts: list[str]) -> dict[str, list[str] | str]:
    """Per host the diskstats name(s) of the device under --mount, or why it cannot be told."""
    assert q.mount is not None
    try:
        fs_selector, dm_selector = mount_series(q.match, q.mount)
        fs = client.series([fs_selector], q.window.start, q.window.end)
        dm = client.series([dm_selector], q.window.start, q.window.end)
    except QueryRefused as exc:
        raise SelectorProblem(f"{q.match!r}: the server refused the selector with mount point {q.mount!r} "
                           f"({exc})") from None
    dm_names: dict[tuple[str, str], str] = {(d.get(HOST_LABEL, ""), d.get("name", "")): d.get("device", "")
                                           for d in dm}
    found: dict[str, set[str]] = {}
    for labels in fs:
        found.setdefault(labels.get(HOST_LABEL, ""), set()).add(labels.get("device", ""))
    out: dict[str, list[str] | str] = {}
    for host in hosts:
        if host not in found:
            out[host] = (f"no {FILESYSTEM} series for mount point {q.mount} (is it mounted there, and node_exporter's "
                         "filesystem collector on?)")
            continue
        names = []
        for dev in sorted(found[host]):
            name = _diskstats_name(dev, host, dm_names)
            if name is None:
                out[host] = (f"cannot tell which dm-N device {dev} (under {q.mount}) is: node_exporter exports "
                             f"{DM_INFO} from udev data; or name the device with devices = \"dm-N\" in --hosts")
                break
            names.append(name)
        else:
            out[host] = names
    return out


def _diskstats_name(fs_device: str, host: str, dm_names: dict[tuple[str, str], str]) -> str | None:
    """/dev/mapper/vg-data → dm-3 (through the device-mapper info), /dev/md0 → md0, /dev/sdb1 → sdb1."""
    if fs_device.startswith("/dev/mapper/"):
        return dm_names.get((host, fs_device.removeprefix("/dev/mapper/"))) or None
    if fs_device.startswith("/dev/"):
        return fs_device.removeprefix("/dev/")
    return None


def host_rules(client: Client, q: FleetQuery, found: dict[str, HostSeries]) -> tuple[dict[str, str], list[HostProblem]]:
    """Each host's device regex (mapping, --devices or --mount) and the devices it selects; a host whose devices lack
    a metric or match nothing is a problem, not a query."""
    problems: list[HostProblem] = []
    rules: dict[str, str] = {}
    where = f"from {fmt_span(q.window.range_s)} before {_iso(q.window.end)} matching --match {q.match!r}"
    for key in q.wanted:
        if not any(same_host(key, host) for host in found):
            problems.append(HostProblem(key, f"{key}: no node_disk series {where} (named in --hosts)"))
    need_mount = [h for h in found if lookup(q.overrides, h) is None and q.devices is None and q.mount is not None]
    mounts = _mount_devices(client, q, need_mount) if need_mount else {}
    for host, hs in sorted(found.items()):
        got = _rule_for(host, q, mounts)
        problem = got if isinstance(got, str) else _selection_problem(host, hs, *got)
        if problem is not None:
            problems.append(HostProblem(host, problem))
        elif not isinstance(got, str):
            rules[host] = got[0]
    return rules, problems


def _rule_for(host: str, q: FleetQuery, mounts: dict[str, list[str] | str]) -> tuple[str, str] | str:
    """The host's device regex and where it came from (the mapping, --devices, --mount), or why it has none."""
    override = lookup(q.overrides, host)
    if override is not None:
        return override, f"devices {override!r} (--hosts)"
    if q.devices is not None:
        return q.devices, f"--devices {q.devices!r}"
    if host in mounts:
        got = mounts[host]
        if isinstance(got, str):
            return f"{host}: {got}"
        return "|".join(re.escape(d) for d in got), f"--mount {q.mount} ({', '.join(got)})"
    return f"{host}: no devices to sum (give --devices or --mount, or devices = \"…\" for it in --hosts)"


def _selection_problem(host: str, hs: HostSeries, rule: str, what: str) -> str | None:
    """Why the devices RULE selects cannot be summed (none match, or one lacks a metric), or None."""
    chosen = sorted(d for d in hs.devices if _fullmatch(rule, d))
    if not chosen:
        have = ", ".join(sorted(hs.devices)[:12])
        return f"{host}: no device matches {what} (it has {have})"
    missing = [m for m in METRICS if not all(m in hs.devices[d] for d in chosen)]
    if missing:
        devs = ", ".join(d for d in chosen if not all(m in hs.devices[d] for m in METRICS))
        return (f"{host}: no {', '.join(missing)} series for {devs} (node_exporter's diskstats collector exports all "
                "four); not planned")
    return None


def same_host(key: str, host: str) -> bool:
    """A mapping key names a host by its instance label, or by that label without its :port."""
    return key == host or key == host.rsplit(":", 1)[0]


def lookup(mapping: dict[str, T], host: str) -> T | None:
    """The entry for HOST: its exact instance label first, then the name without the port."""
    if host in mapping:
        return mapping[host]
    return mapping.get(host.rsplit(":", 1)[0])


def _fullmatch(rule: str, device: str) -> bool:
    try:
        return re.fullmatch(rule, device) is not None
    except re.error:
        return False


def batches(rules: dict[str, str], steps: int, concurrency: int = 1) -> list[list[str]]:
    """Hosts in batches whose subqueries stay under BATCH_POINTS (steps × hosts) and MAX_BATCH hosts, and at least
    CONCURRENCY batches where there are enough hosts (a query runs on one server core)."""
    hosts = sorted(rules)
    size = max(1, min(MAX_BATCH, BATCH_POINTS // max(1, 2 * steps), -(-len(hosts) // max(1, concurrency))))
    return [hosts[i:i + size] for i in range(0, len(hosts), size)]


def _per_host(client: Client, q: FleetQuery, queries: Queries, what: str, hosts: list[str],
              failed: dict[str, str]) -> dict[str, float]:
    """One quantity for HOSTS; a query the server cannot finish is split in halves, down to one host."""
    expr = queries.all(hosts)[what]
    try:
        return {labels.get(HOST_LABEL, ""): v for labels, v in client.query(expr, q.window.end)}
    except TooBig as exc:
        if len(hosts) == 1:
            failed[hosts[0]] = str(exc)
            return {}
        half = len(hosts) // 2
        return {**_per_host(client, q, queries, what, hosts[:half], failed),
                **_per_host(client, q, queries, what, hosts[half:], failed)}
    except QueryRefused as exc:
        raise SelectorProblem(f"{q.match!r}: the server refused the query of the hosts' devices ({exc})") from None


def _batch(client: Client, q: FleetQuery, queries: Queries, hosts: list[str],
           found: dict[str, HostSeries]) -> list[HostHistory | HostProblem]:
    failed: dict[str, str] = {}
    got = {what: _per_host(client, q, queries, what, hosts, failed)
           for what in ("iops", "mbps", "scrapes", "reads", "writes", "resets")}
    out: list[HostHistory | HostProblem] = []
    for host in hosts:
        if host in failed:
            out.append(HostProblem(host, f"{host}: the server could not answer for this host alone ({failed[host]})",
                                   cause="server"))
            continue
        # the steps the percentile ran over: every step while the counter was scraped at least once a step
        # (a count of the subquery's steps would cost a third subquery), fewer where it was scraped less
        devices = max(1, len([d for d in found[host].devices if _fullmatch(queries.rules[host], d)]))
        samples = min(q.window.steps, max(0, int(got["scrapes"].get(host, 0)) // devices - 1))
        if samples == 0 or host not in got["iops"] or host not in got["mbps"]:
            out.append(HostProblem(host, f"{host}: no samples from {_iso(q.window.start)} to {_iso(q.window.end)} "
                                         f"(none scraped in the range, or fewer than two per --step "
                                         f"{fmt_span(q.window.step_s)})"))
            continue
        reads, writes = max(0.0, got["reads"].get(host, 0.0)), max(0.0, got["writes"].get(host, 0.0))
        share = read_share(reads, writes)
        if share is None:
            out.append(HostProblem(host, f"{host}: the server's read and write counts ({reads:g}, {writes:g}) give no "
                                         "read share (their sum is not a finite number)"))
            continue
        hs = found[host]
        rule = queries.rules[host]
        out.append(HostHistory(
            host=host, devices=sorted(d for d in hs.devices if _fullmatch(rule, d)), samples=samples,
            expected=q.window.steps, iops=max(0.0, got["iops"][host]), mbps=max(0.0, got["mbps"][host]),
            read_pct=share,
            resets=int(got["resets"].get(host, 0)), labels=dict(hs.labels), device_rule=rule))
    return out


def read_share(reads: float, writes: float) -> float | None:
    """Reads as a percentage of all I/O (100 without any); None where the sum overflows (100 × 1e308 / inf was a
    NaN read share)."""
    total = reads + writes
    if not math.isfinite(total):
        return None
    return 100.0 * (reads / total) if total > 0 else 100.0


@dataclass
class Prepared:
    """The hosts found, each plannable host's device rule, and the hosts that cannot be queried (with why)."""

    found: dict[str, HostSeries]
    rules: dict[str, str]
    problems: list[HostProblem]

    def device_counts(self) -> dict[str, int]:
        return {h: len([d for d in self.found[h].devices if _fullmatch(rule, d)]) for h, rule in self.rules.items()}


def prepare(client: Client, q: FleetQuery) -> Prepared:
    """Discover the hosts and their device rules. A selector matching no host at all is a ValueProblem (nothing to
    plan); a server that cannot be reached or answers garbage an EnvironmentProblem."""
    found = discover(client, q)
    if not found and not q.wanted:
        raise SelectorProblem(f"{q.match!r}: no {READS} series from {_iso(q.window.start)} to {_iso(q.window.end)} "
                           f"on {client.source.display}")
    rules, problems = host_rules(client, q, found)
    return Prepared(found, rules, problems)


def stream(client: Client, q: FleetQuery, prepared: Prepared) -> Iterator[HostHistory | HostProblem]:
    """Every plannable host's reduced history (or its problem), as batches finish, at most q.concurrency batches at
    once. Worker threads are daemons: Ctrl-C does not wait for a slow query to come back."""
    queries = Queries(q, prepared.rules, prepared.device_counts())
    todo = batches(prepared.rules, q.window.steps, q.concurrency)
    results: queue.Queue[tuple[bool, object]] = queue.Queue()
    running = 0

    def work(hosts: list[str]) -> None:
        try:
            results.put((True, _batch(client, q, queries, hosts, prepared.found)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            results.put((False, exc))

    while todo or running:
        while todo and running < max(1, q.concurrency):
            threading.Thread(target=work, args=(todo.pop(0),), daemon=True, name="blockfit-prom").start()
            running += 1
        ok, value = _get(results)
        running -= 1
        if not ok:
            assert isinstance(value, BaseException)
            raise value
        assert isinstance(value, list)
        yield from value


def _get(results: queue.Queue[tuple[bool, object]]) -> tuple[bool, object]:
    """Wait for a batch in short slices: a Ctrl-C delivered to another thread still reaches this one promptly."""
    while True:
        try:
            return results.get(timeout=0.2)
        except queue.Empty:
            continue


def fleet_history(client: Client, q: FleetQuery) -> Iterator[HostHistory | HostProblem]:
    """prepare + stream: every host's reduced history or its problem."""
    prepared = prepare(client, q)
    yield from prepared.problems
    yield from stream(client, q, prepared)


def host_series(client: Client, q: FleetQuery, rules: dict[str, str], host: str,
                what: str = "iops") -> list[tuple[float, float]]:
    """One host's full series (total IOPS or MB/s per step) over the window: the client-side view of what the
    server's percentile ran over, fetched with query_range in slices under the points limit."""
    queries = Queries(q, rules)
    expr = queries.iops([host]) if what == "iops" else queries.mbps([host])
    try:
        got = client.query_range(expr, q.window.start, q.window.end, q.window.step_s)
    except QueryRefused as exc:
        raise SelectorProblem(f"{q.match!r}: the server refused the query ({exc})") from None
    for key, values in got.items():
        if dict(key).get(HOST_LABEL) == host:
            return sorted(values)
    return []


def envelope(values: list[tuple[float, float]], buckets: int) -> list[tuple[float, float]]:
    """The maximum per bucket of a long series (a figure shows peaks, and 43,200 points do not fit a page)."""
    if not values:
        return []
    n = max(1, math.ceil(len(values) / buckets))
    return [(values[i][0], max(v for _, v in values[i:i + n])) for i in range(0, len(values), n)]


def _iso(t: float) -> str:
    import datetime as dt
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%MZ")


__all__ = ["DM_INFO", "FILESYSTEM", "HOST_LABEL", "INSTANCE_LABEL", "LAYOUT_LABEL", "METRICS", "READS", "READ_BYTES",
           "WRITES", "WRITE_BYTES", "FleetQuery", "HostHistory", "HostProblem", "HostSeries", "Queries",
           "SelectorProblem", "Window", "check_selector", "device_regex", "fleet_history", "fmt_span", "host_series",
           "parse_span", "parse_until", "prepare", "stream", "window"]   # the PromQL names are promql.py's
