"""The fleet's PromQL, as text: pure functions of what is asked, never a request. Every expression blockfit sends
a metrics server is made here (the selector, per-host device rules, the subquery percentiles, the counts), and the
tests parse each with promtool; the conversation with the server is `query.py`'s.

Values from the user (a selector, a device regex, a host name) enter a query only as checked label matchers or as
PromQL string literals (`promql_str`), so none can end a selector or add an expression.
"""

from __future__ import annotations

import re
from typing import Protocol

from blockfit.errors import ValueProblem

READS = "node_disk_reads_completed_total"
WRITES = "node_disk_writes_completed_total"
READ_BYTES = "node_disk_read_bytes_total"
WRITE_BYTES = "node_disk_written_bytes_total"
METRICS = (READS, WRITES, READ_BYTES, WRITE_BYTES)
FILESYSTEM = "node_filesystem_size_bytes"
DM_INFO = "node_disk_device_mapper_info"
HOST_LABEL = "instance"
# labels a scrape config may attach to a host's series to name its current layout and instance
LAYOUT_LABEL, INSTANCE_LABEL = "blockfit_layout", "blockfit_instance"

_SPAN_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$")
_SPAN_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_span(text: str, minimum_s: float = 1, maximum_s: float = 400 * 86400) -> int:
    """'30d', '1m', '90s', '2w' → whole seconds (PromQL's units without ms and y), within the bounds."""
    m = _SPAN_RE.match(text or "")
    if not m:
        raise ValueProblem(f"{text!r}: expected a number with s, m, h, d or w (e.g. 30d, 1m)")
    seconds = float(m.group(1)) * _SPAN_UNITS[m.group(2)]
    if seconds != int(seconds) or not minimum_s <= seconds <= maximum_s:
        raise ValueProblem(f"{text!r}: expected whole seconds from {fmt_span(minimum_s)} to {fmt_span(maximum_s)}")
    return int(seconds)


def fmt_span(seconds: float) -> str:
    for unit in ("w", "d", "h", "m"):
        if seconds >= _SPAN_UNITS[unit] and seconds % _SPAN_UNITS[unit] == 0:
            return f"{int(seconds // _SPAN_UNITS[unit])}{unit}"
    return f"{seconds:g}s"


def promql_str(text: str) -> str:
    """A PromQL double-quoted string literal holding TEXT exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# one PromQL label matcher: a label name, an operator, a quoted value ("…", '…' or `…`)
_MATCHER = r"""\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:=~|!~|!=|=)\s*(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`)\s*"""
_SELECTOR_RE = re.compile(rf"(?:{_MATCHER}(?:,{_MATCHER})*,?\s*)?")


def check_selector(match: str | None) -> str:
    """The selector as label matchers without braces ('job="node",instance=~"db-.*"'); '' selects every host.
    Checked for PromQL's matcher grammar here, so a typo is one line (the CLI names --match) before any request."""
    text = (match or "").strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if not _SELECTOR_RE.fullmatch(text) or any(not c.isprintable() for c in match or ""):   # '\n' is not ''
        raise ValueProblem(f"{match!r}: expected label matchers, e.g. 'job=\"node\",instance=~\"db-.*\"'")
    return text.rstrip().rstrip(",")


def device_regex(devices: list[str] | None) -> str | None:
    """The device names or regular expressions (RE2) as one anchored alternation."""
    if not devices:
        return None
    items = [d.removeprefix("/dev/") for d in devices]
    for item in items:
        try:
            re.compile(item)
        except re.error as exc:
            raise ValueProblem(f"{item!r}: not a regular expression ({exc})") from None
    return items[0] if len(items) == 1 else "|".join(f"(?:{d})" for d in items)


def disk_series(match: str) -> str:
    """The series-index selector of every host's diskstats series the user's selector matches."""
    return selector(match, "", f"__name__=~{promql_str('|'.join(METRICS))}")


def mount_series(match: str, mount: str) -> tuple[str, str]:
    """The series-index selectors of the filesystem mounted at MOUNT and of the device-mapper names."""
    return selector(match, FILESYSTEM, f"mountpoint={promql_str(mount)}"), selector(match, DM_INFO)


class _Window(Protocol):
    @property
    def range_s(self) -> int: ...

    @property
    def step_s(self) -> int: ...


class Asked(Protocol):
    """What the queries read of a FleetQuery: its selector, window and percentile."""

    @property
    def match(self) -> str: ...

    @property
    def window(self) -> _Window: ...

    @property
    def percentile(self) -> float: ...


def selector(match: str, metric: str, *matchers: str) -> str:
    """METRIC{the user's matchers, MATCHERS}: the user's selector (checked) ahead of blockfit's own matchers."""
    parts = [p for p in (match, *matchers) if p]
    return f"{metric}{{{','.join(parts)}}}"


class Queries:
    """The PromQL for one batch of hosts: each host (or hosts sharing a device rule) its own selector, joined by or."""

    def __init__(self, q: Asked, rules: dict[str, str], devices: dict[str, int] | None = None) -> None:
        self.q, self.rules = q, rules
        self.devices = devices or {}   # host → how many devices its rule selects

    def _terms(self, metric: str, hosts: list[str], fn: str, span: str, summed: bool = True) -> str:
        by_rule: dict[str, list[str]] = {}
        for h in hosts:
            by_rule.setdefault(self.rules[h], []).append(h)
        terms = []
        for rule, group in by_rule.items():
            inst = (f"{HOST_LABEL}={promql_str(group[0])}" if len(group) == 1
                    else f"{HOST_LABEL}=~{promql_str('|'.join(re.escape(h) for h in group))}")
            terms.append(f"{fn}({selector(self.q.match, metric, inst, f'device=~{promql_str(rule)}')}[{span}])")
        joined = " or ".join(terms)
        return f"sum by ({HOST_LABEL}) ({joined})" if summed else (joined if len(terms) == 1 else f"({joined})")

    def _step(self) -> str:
        return fmt_span(self.q.window.step_s)

    def _total(self, first: str, second: str, hosts: list[str]) -> str:
        """FIRST + SECOND per host and step. With one device per host the two rates are added series by series (the
        reads and writes of a device carry the same labels): no aggregation per step, half the server's work."""
        s = self._step()
        if all(self.devices.get(h) == 1 for h in hosts):
            a = self._terms(first, hosts, "rate", s, summed=False)
            b = self._terms(second, hosts, "rate", s, summed=False)
            return f"({a} + on ({HOST_LABEL}, device) {b})"
        return f"{self._terms(first, hosts, 'rate', s)} + {self._terms(second, hosts, 'rate', s)}"

    def iops(self, hosts: list[str]) -> str:
        return self._total(READS, WRITES, hosts)

    def bytes(self, hosts: list[str]) -> str:
        return self._total(READ_BYTES, WRITE_BYTES, hosts)

    def mbps(self, hosts: list[str]) -> str:
        return f"({self.bytes(hosts)}) / 1e6"

    def _sub(self, inner: str) -> str:
        return f"({inner})[{fmt_span(self.q.window.range_s)}:{self._step()}]"

    @staticmethod
    def _outer(expr: str) -> str:
        """EXPR (one series per host already) under an outer `by (instance)` aggregation: a no-op here, and what
        lets a Thanos query frontend shard the query vertically, by host (it shards only aggregations that keep
        the grouping label). Mimir shards the quantile_over_time over a subquery below as it is."""
        return f"max by ({HOST_LABEL}) ({expr})"

    def all(self, hosts: list[str]) -> dict[str, str]:
        phi = f"{self.q.percentile / 100:.10g}"
        r = fmt_span(self.q.window.range_s)
        # the two subqueries are the work; the rest reads the raw samples once. MB/s is scaled after the
        # percentile (the percentile of a scaled series is the scaled percentile): a division per step inside
        # the subquery cost the server a fifth more CPU on the MB/s query
        return {
            "iops": self._outer(f"quantile_over_time({phi}, {self._sub(self.iops(hosts))})"),
            "mbps": self._outer(f"quantile_over_time({phi}, {self._sub(self.bytes(hosts))})") + " / 1e6",
            "scrapes": self._terms(READS, hosts, "count_over_time", r),
            "reads": self._terms(READS, hosts, "increase", r),
            "writes": self._terms(WRITES, hosts, "increase", r),
            "resets": self._terms(READS, hosts, "resets", r),
        }
