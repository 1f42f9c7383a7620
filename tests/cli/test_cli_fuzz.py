"""CLI fuzz: every command and option, enumerated from the typer app (options added later are fuzzed too).

For each option the fuzzer draws values that are wrong for its kind (the ``KIND`` of its blockfit.cli.params
callback: NaN, ±inf, negatives, zero where meaningless, huge numbers, empty lists; free text: unicode, shell
metacharacters, control characters, very long strings; bench's and report's options and files by hand, see
SPECIAL), mutates them, and asserts: exit 2, one line on stderr naming the option (or the file), no traceback,
nothing written (the run's cwd stays empty; -o/--out targets are not created; the fixture files and directories
outside the cwd are unchanged). Every command also gets unknown options. Commands that only compute (model,
plan, catalog) also get arbitrary values, where any clean outcome (0, 2, 3) is right; report gets valid and
mutated result files with odd titles, where 0 (a page written) and 2 (nothing written) are right.

Commands that do real work on valid input (build writes, calibrate runs fio, lab boots qemu, diagnose samples,
bench starts PostgreSQL) get only invalid values, and guards make reaching that work a failure: bad input must
fail before any of it. bench is fuzzed around a real, reachable, empty --dir, so every value it is given must be
refused by the CLI or by dbbench.runner.validate(); its guard runs validate() and fails the test instead of
starting a server. Values bench takes as valid (any --label text, any --before-measure command, a --cap of 0)
are therefore drawn only as duplicates, mismatched counts or beside another bad input.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blockfit.cli import app, main
from blockfit.dbbench import runner
from blockfit.dbbench.profiles import PROFILES
from blockfit.report.load import RESULT_TYPES
from support.catalog_files import aws_type, aws_types, write

Param = Any  # a click parameter (typer vendors click; duck-typed here so either click works)

COMMAND = typer.main.get_command(app)
PURE = {"model", "plan", "catalog list", "catalog show"}  # commands that only compute: any value may be valid
OUTPUTS = {"--out", "--plot", "--record", "--report"}  # targets a failed run must not create
INPUTS = "\0inputs\0"  # stands for the example's own input directory in a drawn argv (argv cannot carry NUL)
DATA = Path(__file__).parents[1] / "data"


def scaled(n: int) -> int:
    """Examples per test; BLOCKFIT_FUZZ_SCALE=10 searches ten times as long (the default keeps the file ~1 min)."""
    return max(1, round(n * float(os.environ.get("BLOCKFIT_FUZZ_SCALE", "1"))))


def commands() -> dict[str, Any]:
    """Every leaf command of the app by its path ('plan', 'catalog show')."""
    out: dict[str, Any] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        if hasattr(cmd, "commands"):  # a group
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        else:
            out[" ".join(path)] = cmd
    walk(COMMAND, [])
    return out


COMMANDS = commands()


@dataclass(frozen=True)
class Fixtures:
    """Files and directories outside every run's cwd; a run must leave all of them as they were."""

    root: Path  # holds what follows except bench_dir; 0700 (pytest's), so the server user cannot reach into it
    plan: Path  # a valid plan (build's base)
    model: Path  # a valid result (report's base)
    recording: Path  # a valid diagnose recording
    file: Path  # a regular file holding user data
    busy: Path  # a directory whose blockfit-bench subdirectory holds a cluster
    private: Path  # a directory the server user cannot reach
    png: Path  # an empty directory (report's base --png)
    fifo: Path  # a named pipe: neither a file nor a directory
    bench_dir: Path  # an empty directory the server user can reach (bench's base --dir); stays empty


def base_args(path: str, fx: Fixtures) -> list[str] | None:
    """The smallest valid invocation of a known command (outputs inside the run's cwd); None: not known here."""
    from blockfit.schema import Plan

    members = Plan.model_validate_json(fx.plan.read_text()).candidates[0].layout_detail.members
    devices = ",".join(f"/dev/sd{chr(ord('a') + 10 + i)}" for i in range(members))  # one per member: sdk, sdl, ...
    known = {
        "model": ["--instance", "VM.Standard.E3.Flex:4"],
        "plan": ["--capacity", "1T", "--instance", "VM.Standard.E3.Flex:4", "--target-iops", "1000", "--out", "p.json"],
        # valid as it stands: nothing listens on port 1, so it ends at the first request (exit 4)
        "fleet": ["--from", "prometheus+http://127.0.0.1:1", "--devices", "dm-3", "--instance", "VM.Standard.E3.Flex:4",
                  "--capacity", "1T", "--out", "f.json", "--report", "f.html"],
        "build": ["--plan", str(fx.plan), "--manager", "lvm", "--devices", devices, "--out", "out"],
        "calibrate": ["/nonexistent-blockfit-fuzz-target", "--plot", "curve.png"],
        "lab": ["--cloud", "oci", "--layout", "1x50G@balanced", "--instance", "VM.Standard.E3.Flex:1"],
        "diagnose": ["--duration", "1s", "--interval", "1s", "--record", "cap.jsonl"],
        "catalog list": [],
        "catalog show": ["oci"],
        "catalog import": ["--cloud", "aws", str(fx.root / "types.json"), "--out", "cat.toml"],
        # valid as it stands: it would start PostgreSQL in bench_dir (the guard stops it), run the hook in the
        # cwd, write bench-out/ and bench.html there
        "bench": ["--dir", str(fx.bench_dir), "--workload", "oltp", "--before-measure", "touch hook-ran", "--out",
                  "bench-out", "--report", "bench.html"],
        "report": [str(fx.model), "-o", "r.html", "--png", str(fx.png)],
        "sql": ["oracle"],
        # valid as it stands: it reads this host's /sys, /proc and /dev (read-only) and writes inv.json
        "inspect": ["--out", "inv.json"],
        # valid as it stands: no server listens on that socket directory, so it ends at the connection attempt
        "record": ["--pg", "host=/nonexistent-blockfit-fuzz dbname=postgres", "--interval", "1s", "--duration", "1s",
                   "--out", "rec.jsonl"],
    }
    return known.get(path)


def is_option(param: Param) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def numeric(param: Param) -> bool:
    if hasattr(param, "bare_type"):  # typer >= 0.20
        bare = param.bare_type()  # a type, or its name (typer 0.29 returns 'int')
        return getattr(bare, "__name__", bare) in ("int", "float")
    return getattr(param.type, "name", "") in ("integer", "float")


def kind(param: Param) -> str | None:
    return getattr(param.callback, "KIND", None)


NUMBERS_BAD = ["nan", "NaN", "inf", "-inf", "Infinity", "-1", "-0.001", "1e999", "-1e999", "9" * 400]
BAD: dict[str, list[str]] = {
    "positive": [*NUMBERS_BAD, "0"],
    "growth": [*NUMBERS_BAD[:5], "-1", "1e999", "1001"],
    "count": ["0", "-1", "1.5", "nan", "inf", "1000001", "9" * 40],
    "index": ["-1", "1.5", "nan", "1000001", "9" * 40],
    "percent": ["-1", "101", "nan", "inf", "1e999", "-5%", "101%"],
    "percentile": ["0", "100", "-5", "nan", "inf", "100%", "1e999"],
    "history_percentile": ["0", "100.5", "-5", "nan", "inf", "101%", "1e999", "p0", "peak2", "p"],
    "peak_factor": ["0", "0.5", "-1", "nan", "inf", "101", "1e999"],
    "io_size": ["0", "-8k", "nan", "inf", "8q", "100", "2g", "8.5", "9" * 400 + "k", "1e3k"],
    "byte_size": ["0", "-1G", "nan", "100", "4Q", "9" * 400 + "G"],
    "volume_size": ["0G", "-1T", "nan", "500", "infT", "9" * 400 + "T", "1e3G"],
    "duration": ["0", "0s", "-1s", "nan", "inf", "1e999s", "8d", "1000000h", "9" * 400 + "s"],
    "latency": ["0", "0ms", "-1ms", "nan", "inf", "1e999", "9" * 400, "2x"],
    "list": [",", " , ", "a,,b", ",a", "a,", ""],
    "choice": ["", "LVM", "lvm ", " xfs", "zfs", "oci_cli", "none\n"],   # one of an enum's spellings, exactly
    # issue 39's merged options: both sizes of --io-sizes, a capacity with its growth, a compute floor or range
    "io_sizes": ["8k", "8k,", ",1m", "8k,1m,2m", "0,1m", "8k,2g", "nan,1m", "8q,1m", "", "8k;1m", "8k,,1m", "-8k,1m",
                 "8k,inf"],
    "capacity": ["0G", "-1T", "nan", "500", "1T+", "1T+-5%", "1T+nan", "1T+1001%", "1T+0.3", "+20%", "1T+20%+5%",
                 "1T+inf", "infT+5%", "9" * 400 + "T+5%"],
    "cpus": ["0", "0-4", "8-4", "1.5", "nan", "-", "a-b", "9" * 40, "8--9", "1e3", "", "8-nan", "inf-"],
}
JUNK = st.text(st.sampled_from(list(";|&$`()<>\"'\\!*?[]{}~^💥\u202e\u00a0")), min_size=1, max_size=4)
# what argv can carry: any character but NUL; bytes that are not UTF-8 arrive as lone surrogates U+DC80..U+DCFF
# (Python's surrogateescape), no other surrogate can
ARGV_CHARS = st.one_of(st.characters(exclude_characters="\x00", exclude_categories=["Cs"]),
                       st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF))
# free text that no name, path, spec or choice accepts: whitespace or a control character inside, or too long
POISON = st.one_of(
    st.builds(lambda a, b: f"{a}\n{b}", st.text(ARGV_CHARS, max_size=20), st.text(ARGV_CHARS, max_size=20)),
    st.builds(lambda a, b: f"{a} ;rm -rf {b}", st.text(ARGV_CHARS, max_size=10), st.text(ARGV_CHARS, max_size=10)),
    st.builds(lambda a: f"$(touch pwned){a}\t", st.text(ARGV_CHARS, max_size=10)),
    st.builds(lambda n: "é" * n + " x", st.integers(300, 5000)),
    st.just("\x1b[31m red \x1b[0m"),
)


def invalid_value(param: Param) -> st.SearchStrategy[str]:
    k = kind(param)
    if k is None:
        return POISON
    bad = st.sampled_from(BAD[k])
    if k == "list":
        return bad
    return st.one_of(bad, st.builds(lambda v, j: v + j, bad, JUNK))


def fuzzable(path: str, param: Param) -> bool:
    """Options whose wrong values we can draw: boolean flags have none; outputs are checked, not fuzzed (except
    where SPECIAL draws bad places for them)."""
    if (path, name_of(param)) in SPECIAL or (is_option(param) and name_of(param) in SHARED):
        return True
    if is_option(param) and (param.is_flag or param.opts[0] in OUTPUTS):
        return False
    if path == "calibrate" and not is_option(param):
        return False  # a path that exists would be measured; the base names one that does not
    return kind(param) is not None or path in BASED


def name_of(param: Param) -> str:
    return str(param.opts[0]) if is_option(param) else str(param.name)


# ---- hand-made bad values: Case = (argv after the command, names one of which the error must show, files) ----
# files: name → bytes, written into the example's own input directory (INPUTS in argv) before the run

Case = tuple[list[str], tuple[str, ...], dict[str, bytes]]


def with_option(args: list[str], name: str, *values: str, replace: bool = True) -> list[str]:
    """args with every NAME VALUE pair dropped (replace) and NAME VALUE added per value."""
    out, i = [], 0
    while i < len(args):
        if replace and args[i] == name:
            i += 2
            continue
        out.append(args[i])
        i += 1
    for v in values:
        out += [name, v]
    return out


def too_long(base: str = "") -> st.SearchStrategy[str]:
    """A path with a component over NAME_MAX (255 bytes), or a whole path over PATH_MAX."""
    return st.one_of(st.builds(lambda n, c: base + c * n, st.integers(256, 600), st.sampled_from("aé💥")),
                     st.builds(lambda n: base + "/".join(["d" * 200] * n), st.integers(21, 40)))


def bad_places(fx: Fixtures, suffix: str = "") -> st.SearchStrategy[str]:
    """Where no file can be written: a directory, under a file or a missing directory, a pipe, a name too long."""
    return st.one_of(
        st.sampled_from([str(fx.root), str(fx.file / f"x{suffix}"), str(fx.fifo),
                         str(fx.root / "missing" / f"x{suffix}"), str(fx.fifo / f"x{suffix}")]),
        st.builds(lambda t: f"no-such-dir-{t}/x{suffix}", st.text(ARGV_CHARS, max_size=20)),
        too_long(str(fx.root) + "/").map(lambda p: p + suffix),
    )


def report_option_cases(fx: Fixtures, base: list[str]) -> st.SearchStrategy[Case]:
    """--report FILE.html (every command's): not .html, or a bad place."""
    bad = st.one_of(bad_places(fx, ".html"), st.sampled_from(["r.txt", "r", "r.html.bak", str(fx.file)]),
                    st.builds(lambda t: f"r{t}.pdf", st.text(ARGV_CHARS, max_size=10)))
    return st.builds(lambda v: (with_option(base, "--report", v), ("--report",), {}), bad)


# -- report: its RESULT.json files --

JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), st.text(max_size=20))
JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                    max_leaves=12)


def foreign_json(fx: Fixtures) -> st.SearchStrategy[bytes]:
    """JSON that is no blockfit result: any value without a known kind, a known kind from a newer blockfit, or a
    known kind with none of its fields."""
    kinds = st.sampled_from(sorted(RESULT_TYPES))
    no_kind = JSON.filter(lambda v: not (isinstance(v, dict) and v.get("kind") in RESULT_TYPES))
    return st.one_of(
        no_kind.map(lambda v: json.dumps(v).encode()),
        st.builds(lambda k, v: json.dumps({"kind": k, "schema_version": v}).encode(), kinds,
                  st.one_of(st.integers(2, 10**6), st.text(max_size=5), st.floats(), st.none())),
        st.builds(lambda k, extra: json.dumps({**extra, "kind": k}).encode(), kinds,
                  st.dictionaries(st.text(max_size=8), JSON_LEAF, max_size=3)),
        st.builds(lambda k: json.dumps({**json.loads(fx.model.read_text()), "kind": k}).encode(),
                  kinds.filter(lambda k: k != "model")),  # a model's figures under another kind
    )


def truncated(source: Path) -> st.SearchStrategy[bytes]:
    text = source.read_bytes().rstrip()
    return st.integers(0, len(text) - 1).map(lambda k: text[:k])


def report_file_cases(fx: Fixtures) -> st.SearchStrategy[tuple[str, dict[str, bytes]]]:
    """(the bad path as given, files to create): paths that cannot be read, and files that hold no result."""
    def made(content: st.SearchStrategy[bytes], name: str = "bad.json") -> st.SearchStrategy[tuple[str, dict]]:
        return st.builds(lambda c: (f"{INPUTS}/{name}", {name: c}), content)
    lines = fx.recording.read_bytes().splitlines(keepends=True)
    return st.one_of(
        st.builds(lambda t: (f"no-such-{t}", {}), st.text(ARGV_CHARS, max_size=40)),  # relative: the cwd is empty
        st.builds(lambda t: (str(fx.root / "missing" / t), {}), st.text(ARGV_CHARS, max_size=40)),
        POISON.map(lambda v: (v, {})),
        too_long().map(lambda v: (v, {})),
        st.sampled_from([(str(fx.file / "x.json"), {}), (str(fx.root), {}), (str(fx.file), {})]),
        made(st.binary(max_size=300)),
        made(st.text(ARGV_CHARS, max_size=300).map(str.encode)),
        made(truncated(fx.model)),
        made(truncated(fx.plan), "plan.json"),
        made(foreign_json(fx)),
        made(st.builds(lambda n, junk: b"".join(lines[:n]) + junk, st.integers(1, len(lines)),
                       st.binary(min_size=1, max_size=40).filter(lambda b: b.strip() != b"")), "rec.jsonl"),
        made(st.just(lines[0] + lines[1]), "two-lines.jsonl"),  # a header and one sample: too short
    )


def report_cases(fx: Fixtures, param: Param) -> st.SearchStrategy[Case]:
    base = list(base_args("report", fx) or [])
    options, good = base[1:], base[0]
    if not is_option(param):  # the files: a bad one alone, or after a good one
        return st.builds(lambda f, after: ([*options, "--", *([good] if after else []), f[0]], (f[0],), f[1]),
                         report_file_cases(fx), st.booleans())
    name = name_of(param)
    if name == "--title":  # any title is valid: odd ones beside a bad file, which must still be the error named
        return st.builds(lambda t, f: ([*with_option(options, "--title", t), "--", f[0]], (f[0],), f[1]),
                         st.one_of(POISON, st.text(ARGV_CHARS, max_size=50)), report_file_cases(fx))
    # --png makes a missing directory (as build --out does): only places no directory can be are bad there
    bad = bad_places(fx, ".html") if name == "-o" else st.one_of(
        st.sampled_from([str(fx.file), str(fx.file / "x"), str(fx.fifo), str(fx.fifo / "x")]),
        too_long(str(fx.root) + "/"))
    return st.builds(lambda v: ([*with_option(options, name, v), "--", good], (name, "--out"), {}), bad)


# -- bench --

def bad_dirs(fx: Fixtures) -> st.SearchStrategy[str]:
    """--dir values validate() refuses: missing (with metacharacters, unicode), a file, under a file, a busy one,
    one the server user cannot reach, a name too long; some as PATH=LABEL."""
    plain = st.one_of(
        st.builds(lambda t: f"no-such-dir-{t}", st.text(ARGV_CHARS, max_size=40)),  # relative: the cwd is empty
        st.builds(lambda t: str(fx.root / "missing" / t), st.text(ARGV_CHARS, max_size=40)),
        st.builds(lambda t: f"no-such-dir-{t}", JUNK),
        st.sampled_from([str(fx.file), str(fx.file / "x"), str(fx.busy), str(fx.private), str(fx.fifo), ""]),
        too_long(),
    )
    return st.one_of(plain, plain.filter(bool).map(lambda p: p + "=bad"))


def bench_cases(fx: Fixtures, param: Param | None) -> st.SearchStrategy[Case]:
    base = list(base_args("bench", fx) or [])
    good = str(fx.bench_dir)
    name = name_of(param) if param is not None else ""
    if name == "--dir":
        return st.builds(lambda d, keep: (with_option(base, "--dir", *([good] if keep else []), d), ("--dir",), {}),
                         bad_dirs(fx), st.booleans())
    if name == "--workload":
        junk = st.text(st.characters(exclude_characters=",\x00"), max_size=20).filter(
            lambda t: t.strip() not in runner.WORKLOADS)
        items = st.lists(st.one_of(st.sampled_from(sorted(runner.WORKLOADS)), junk), max_size=4)
        value = st.builds(lambda a, j, b: ",".join([*a, j, *b]), items, junk, items)
        return st.builds(lambda v: (with_option(base, name, v), (name,), {}), value)
    if name == "--profile":
        value = st.one_of(st.text(ARGV_CHARS, max_size=20), POISON).filter(lambda t: t not in PROFILES)
        return st.builds(lambda v: (with_option(base, name, v), (name,), {}), value)
    if name == "--label":
        label = st.text(ARGV_CHARS, min_size=1, max_size=30)
        return st.one_of(
            st.builds(lambda t: (with_option(base, "--dir", good, good) + ["--label", t, "--label", t], (name,), {}),
                      label),  # the same label twice (A/A of one directory)
            st.builds(lambda ts, n: (with_option(base, "--dir", *[good] * n) + [a for t in ts for a in ("--label", t)],
                                     (name,), {}),
                      st.lists(label, min_size=1, max_size=4), st.integers(1, 3)).filter(
                lambda c: c[0].count("--label") != c[0].count("--dir")),  # not one per --dir
            st.builds(lambda n: (with_option(base, "--dir", *[good] * n) + ["--label", ""] * n, (name,), {}),
                      st.integers(1, 2)),
        )
    if name in ("--cap", "--instance-cap"):
        figures = st.sampled_from(["nan", "inf", "-inf", "-1", "-0.5", "1e999", "9" * 400, "lots", "", ":", "0x10",
                                   "1,000", "300:nan", "nan:40", "300:-1", "300:inf", "300:40:5", "300::"])
        bad = st.builds(lambda lab, f, j: lab + f + j, st.sampled_from(["", "A=", "Z="]), figures,
                        st.one_of(st.just(""), JUNK))
        unknown = st.builds(lambda t: f"{t}=300", st.text(ARGV_CHARS, min_size=1, max_size=10).filter(
            lambda t: t != "A" and "=" not in t))
        return st.builds(lambda v, keep: (base + (["--cap", "300"] if keep else []) + [name, v], (name,), {}),
                         st.one_of(bad, unknown), st.booleans())
    if name == "--before-measure":  # any command is valid: beside another bad input, and never run
        hook = st.one_of(POISON, st.text(ARGV_CHARS, max_size=40), st.just("touch hook-ran; rm -rf /nonexistent"))
        other = st.sampled_from(["--dir", "--workload", "--profile", "--label", "--cap"]).flatmap(
            lambda o: bench_cases(fx, BENCH_PARAMS[o]))
        return st.builds(lambda h, c: (with_option(c[0], name, h), c[1], c[2]), hook, other)
    if name == "--out":
        bad = st.one_of(st.sampled_from([str(fx.file), str(fx.file / "sub"), str(fx.fifo), str(fx.fifo / "sub")]),
                        too_long(str(fx.root) + "/"))
        return st.builds(lambda v: (with_option(base, name, v), (name,), {}), bad)
    if name == "--report":
        return report_option_cases(fx, base)
    if name in BURST_TRIO:   # the cloud layout bench judges its windows against: bad values, or one alone
        return burst_trio_cases(base, name)
    if kind(param) is not None:  # --repeat: the shared parser's bad values
        return st.builds(lambda v: (with_option(base, name, v), (name,), {}), invalid_value(param))
    raise AssertionError(f"bench {name}: no bad values drawn here")


BURST_TRIO = {"--cloud": "aws", "--layout": "1x400G@gp3", "--instance": "m6a.xlarge"}


def burst_trio_cases(base: list[str], name: str) -> st.SearchStrategy[Case]:
    """--cloud, --layout, --instance: one of them bad beside two good ones, or one given alone."""
    bad = st.one_of(st.text(ARGV_CHARS, max_size=30), POISON, JUNK).filter(
        lambda t: t.strip().lower() not in ("aws", "azure", "gcp", "oci"))
    full = [a for k, v in BURST_TRIO.items() for a in (k, v)]
    return st.one_of(
        st.builds(lambda v: (with_option(base + full, name, v), (name,), {}), bad),
        st.builds(lambda v: (with_option(base, name, v), tuple(BURST_TRIO), {}),
                  st.one_of(bad, st.just(BURST_TRIO[name]))))


BENCH_PARAMS = {name_of(p): p for p in COMMANDS["bench"].params}
SPECIAL: dict[tuple[str, str], Callable[[Fixtures, Param], st.SearchStrategy[Case]]] = {
    **{("bench", n): bench_cases for n, p in BENCH_PARAMS.items() if not (is_option(p) and p.is_flag)},
    **{("report", name_of(p)): report_cases for p in COMMANDS["report"].params if not (is_option(p) and p.is_flag)},
}
SHARED = {"--report"}  # every command's --report goes through one callback: bad places for all of them
BASED = {path for path in COMMANDS if path not in ("bench", "report")}  # the generic fuzz knows their base


def unknown_option(path: str, fx: Fixtures) -> st.SearchStrategy[Case]:
    """Every command, even one without a value to fuzz (catalog list): an option it does not have."""
    known = {o for p in COMMANDS[path].params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    name = st.from_regex(r"\A--[a-z][a-z0-9-]{0,20}\Z").filter(lambda o: o not in known)
    base = list(base_args(path, fx) or [])
    return st.builds(lambda o, v: ([*base, o, v], (o,), {}), name, st.text(ARGV_CHARS, max_size=10))


def invalid_case(path: str, param: Param | None, fx: Fixtures) -> st.SearchStrategy[Case]:
    if param is None:
        return unknown_option(path, fx)
    special = SPECIAL.get((path, name_of(param)))
    if special is not None:
        return special(fx, param)
    if is_option(param) and name_of(param) in SHARED:
        return report_option_cases(fx, list(base_args(path, fx) or []))
    names = tuple(param.opts) if is_option(param) else ()
    return st.builds(lambda v: (argv_for(path, param, v, fx)[len(path.split()):], names, {}), invalid_value(param))


TARGETS = [(path, p) for path, cmd in COMMANDS.items() for p in cmd.params if fuzzable(path, p)]


@contextlib.contextmanager
def no_real_work() -> Iterator[None]:
    """Reaching fio, the lab guest, live sampling or PostgreSQL with bad input is the bug this test exists to
    find. bench's guard runs the runner's own validation first: what it refuses is a clean refusal."""
    def forbidden(*_a: object, **_k: object) -> None:
        raise AssertionError("bad input reached real work")

    def bench_guard(request: runner.BenchRequest, *_a: object, **_k: object) -> None:
        runner.validate(request)
        raise AssertionError("bad input passed validation: a real bench would start PostgreSQL now")

    sigterm = signal.getsignal(signal.SIGTERM)  # bench installs its own handler before it runs
    try:
        with mock.patch("blockfit.measure.calibrate.run_fio", forbidden), \
                mock.patch("blockfit.lab.run.ensure_kernel", forbidden), \
                mock.patch("blockfit.lab.session.run_script", forbidden), \
                mock.patch("blockfit.lab.disks.create", forbidden), \
                mock.patch("blockfit.diagnose.sampler.run_live", forbidden), \
                mock.patch("blockfit.cli.bench.run_bench", bench_guard), \
                mock.patch("blockfit.dbbench.cluster.initdb", forbidden), \
                mock.patch("blockfit.dbbench.cluster.start", forbidden):
            yield
    finally:
        signal.signal(signal.SIGTERM, sigterm)


def run_cli(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run the CLI in-process in ``cwd``; an exception escaping main() is a traceback a user would see."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                mock.patch.dict(os.environ, {"BLOCKFIT_LAB_RUNS": str(cwd / "lab-runs")}):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def argv_for(path: str, param: Param, value: str, fx: Fixtures) -> list[str]:
    args = list(base_args(path, fx) or [])
    if not is_option(param):
        return [*path.split(), value, *args[1:]] if args else [*path.split(), value]
    name = param.opts[0]
    if name in args:
        args[args.index(name) + 1] = value
    else:
        args += [name, value]
    return [*path.split(), *args]


def tree(*roots: Path) -> list[tuple[str, int, int]]:
    """What a run must leave alone: every entry under the roots, its type and size."""
    out = []
    for root in roots:
        for p in [root, *root.rglob("*")]:
            st_ = p.lstat()
            out.append((str(p), stat.S_IFMT(st_.st_mode), st_.st_size if stat.S_ISREG(st_.st_mode) else 0))
    return sorted(out)


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixtures]:
    root = tmp_path_factory.mktemp("fuzz-fixtures")
    code, out, err = run_cli(["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex:4", "--target-iops",
                              "20000", "--json"], root)
    assert code == 0, err
    (root / "plan.json").write_text(out)
    code, out, err = run_cli(["model", "--instance", "VM.Standard.E3.Flex:4", "--json"], root)
    assert code == 0, err
    (root / "model.json").write_text(out)
    shutil.copy(DATA / "diagnose" / "lab_stripe_slow_member.jsonl", root / "recording.jsonl")
    (root / "afile").write_text("user data\n")
    write(root / "types.json", aws_types([aws_type("r7i.2xlarge", 8, 65536, 312.5, 12000, 1250, 40000)]))
    (root / "busy" / "blockfit-bench").mkdir(parents=True)
    (root / "busy" / "blockfit-bench" / "PG_VERSION").write_text("15\n")
    (root / "private").mkdir()
    (root / "png").mkdir()
    os.mkfifo(root / "fifo")
    bench_dir = Path(tempfile.mkdtemp(prefix="blockfit-fuzz-bench-", dir="/var/tmp"))
    bench_dir.chmod(0o755)  # reachable by the server user, as a real --dir must be
    try:
        yield Fixtures(root=root, plan=root / "plan.json", model=root / "model.json",
                       recording=root / "recording.jsonl", file=root / "afile", busy=root / "busy",
                       private=root / "private", png=root / "png", fifo=root / "fifo", bench_dir=bench_dir)
    finally:
        shutil.rmtree(bench_dir)


def shown(text: str) -> str:
    """How the CLI's one error line shows a name (non-printable characters escaped)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def assert_clean_rejection(code: int, out: str, err: str, cwd: Path, what: str, names: tuple[str, ...] = ()) -> None:
    assert code == 2, (what, code, err[-500:])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("blockfit: error: "), (what, err[-500:])
    assert "Traceback" not in err and out == "", what
    assert list(cwd.iterdir()) == [], (what, list(cwd.iterdir()))
    if names:
        forms = {f for n in names for f in (shown(n), shown(str(Path(n))) if n else "''", repr(n)[1:-1])}
        forms |= {n.lstrip("-") + " " for n in names if n.startswith("--")}  # 'layout ...' names --layout
        assert any(f in lines[0] for f in forms), (what, names, lines[0][:500])


def test_every_numeric_option_goes_through_a_shared_parser() -> None:
    """An int or float option without a blockfit.cli.params callback would accept NaN, inf or negatives."""
    loose = [f"{path} {p.opts[0]}" for path, cmd in COMMANDS.items() for p in cmd.params
             if is_option(p) and not p.is_flag
             and numeric(p) and kind(p) is None]
    assert loose == []


def test_every_command_is_fuzzed() -> None:
    """Every command of the app (a new one too), and every value bench and report take."""
    assert {path for path, _ in TARGETS} | {"catalog list"} == set(COMMANDS)  # catalog list: unknown options only
    for path in ("bench", "report"):
        takes_values = {name_of(p) for p in COMMANDS[path].params if not (is_option(p) and p.is_flag)}
        assert takes_values <= {name_of(p) for c, p in TARGETS if c == path}, path


def run_case(case: Case, tmp_path_factory: pytest.TempPathFactory, fx: Fixtures, path: str) -> None:
    args, names, files = case
    inputs = tmp_path_factory.mktemp("fuzz-in")
    for name, content in files.items():
        (inputs / name).write_bytes(content)

    def sub(text: str) -> str:
        return text.replace(INPUTS, str(inputs))
    argv = [*path.split(), *map(sub, args)]
    cwd = tmp_path_factory.mktemp("fuzz-cwd")
    before = tree(fx.root, fx.bench_dir, inputs)
    with no_real_work():
        code, out, err = run_cli(argv, cwd)
    assert_clean_rejection(code, out, err, cwd, repr(argv)[:2000], tuple(map(sub, names)))
    assert tree(fx.root, fx.bench_dir, inputs) == before, argv


EXAMPLES = {"bench": 120, "report": 120}  # the others: 30 each (about 2 s)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_invalid_values_fail_cleanly_before_any_work(path: str, fx: Fixtures,
                                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    targets: list[Param | None] = [None, *(p for c, p in TARGETS if c == path)]

    @settings(max_examples=scaled(EXAMPLES.get(path, 30)), deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        param = data.draw(st.sampled_from(targets), label="option")
        case = data.draw(invalid_case(path, param, fx), label="case")
        run_case(case, tmp_path_factory, fx, path)
    fuzz()


ANY = st.one_of(st.text(ARGV_CHARS, max_size=30), st.floats().map(repr), st.integers().map(str), st.sampled_from(
    ["nan", "inf", "-1", "0", "1e999", "", ",", "8k", "1T", "20ms", "95", "oci", "VM.Standard.E3.Flex:2"]))


@settings(max_examples=scaled(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_computing_commands_take_any_value_without_a_traceback(data: st.DataObject, fx: Fixtures,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    path, param = data.draw(st.sampled_from([(c, p) for c, p in TARGETS if c in PURE
                                             and name_of(p) not in SHARED]), label="option")
    value = data.draw(ANY, label="value")
    cwd = tmp_path_factory.mktemp("fuzz-cwd")
    argv = argv_for(path, param, value, fx)
    code, out, err = run_cli(argv, cwd)
    assert code in (0, 2, 3), (argv, code, err[-500:])
    assert "Traceback" not in err
    if code == 2:
        assert_clean_rejection(code, out, err, cwd, repr(argv))
    elif code == 3:   # infeasible: since schema v2 a plan result (feasible false) in --out, and nothing else
        for left in cwd.iterdir():
            assert left.is_file() and json.loads(left.read_text())["feasible"] is False, argv


def mutate(value: Any, data: st.DataObject) -> Any:
    """value with one leaf (a number, text, true/false, null) replaced by any JSON value."""
    leaves: list[tuple[Any, Any]] = []

    def walk(v: Any) -> None:
        for k, child in (v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else []):
            if isinstance(child, (dict, list)) and child:
                walk(child)
            elif k != "kind":
                leaves.append((v, k))
    walk(value)
    if leaves:
        parent, key = data.draw(st.sampled_from(leaves), label="leaf")
        parent[key] = data.draw(st.one_of(JSON_LEAF, st.sampled_from([math.nan, math.inf, -1, 0, 1e308, [], {}])),
                                label="new value")
    return value


@settings(max_examples=scaled(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_report_writes_a_page_or_refuses_cleanly(data: st.DataObject, fx: Fixtures,
                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """Valid and mutated results, odd titles: a page written (escaped, nothing else), or exit 2 and nothing.
    (About 1 s an example: the page's figures are drawn.)"""
    inputs = tmp_path_factory.mktemp("fuzz-in")
    files = []
    for i, source in enumerate([data.draw(st.sampled_from([fx.model, fx.plan, fx.recording]), label="source")]):
        text = source.read_text()
        if data.draw(st.booleans(), label="mutate"):
            if source.suffix == ".jsonl":
                lines = text.splitlines()
                n = data.draw(st.integers(0, len(lines) - 1), label="line")
                lines[n] = json.dumps(mutate(json.loads(lines[n]), data))
                text = "\n".join(lines) + "\n"
            else:
                text = json.dumps(mutate(json.loads(text), data))
        files.append(inputs / f"{i}{source.suffix}")
        files[-1].write_text(text)
    title = data.draw(st.one_of(st.none(), POISON, st.text(ARGV_CHARS, max_size=60),
                                st.just("</title><script>alert(1)</script>&amp;")), label="title")
    cwd = tmp_path_factory.mktemp("fuzz-cwd")
    (cwd / "png").mkdir()
    png = ["--png", "png"] if data.draw(st.booleans(), label="png") else []
    argv = ["report", "-o", "r.html", *png, *(["--title", title] if title is not None else []), "--",
            *map(str, files)]
    code, out, err = run_cli(argv, cwd)
    assert code in (0, 2), (argv, code, err[-800:])
    assert "Traceback" not in err
    if code == 2:
        (cwd / "png").rmdir()  # empty: no figure written for a page that was not
        assert_clean_rejection(code, out, err, cwd, repr(argv))
        return
    page = (cwd / "r.html").read_text()
    assert "<script" not in page and page.startswith("<!DOCTYPE html>"), argv
    assert sorted(p.name for p in cwd.iterdir()) == ["png", "r.html"], argv


@pytest.mark.parametrize("argv,option", [
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--target-iops", "nan"], "--target-iops"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--levels", ","], "--levels"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex:2.5"], "--instance"),
    (["model", "--instance", "VM.Standard.E3.Flex:2.5"], "--instance"),
    (["lab", "--cloud", "oci", "--layout", "1x50G@balanced", "--instance", "VM.Standard.E3.Flex:2.5"], "--instance"),
    (["diagnose", "--layout", "1x50G@balanced", "--cloud", "oci", "--instance", "VM.Standard.E3.Flex:2.5"],
     "--instance"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--growth", "nan"], "--growth"),
    (["plan", "--capacity", "1T+nan", "--instance", "VM.Standard.E3.Flex"], "--capacity"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--cpus", "8-4"], "--cpus"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--ocpus", "8"], "--ocpus"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex/nvme/ebs-1/scsi"], "--instance"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex", "--interface", "sata"], "--interface"),
    (["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex:4", "--io-sizes", "8k"], "--io-sizes"),
    (["model", "--instance", "VM.Standard.E3.Flex:4", "--io-sizes", "8k,1m,4m"], "--io-sizes"),
    (["model", "--instance", "VM.Standard.E3.Flex:4/turbo"], "--instance"),
    (["calibrate", "/nonexistent-blockfit", "--io-sizes", "1m,8k"], "--io-sizes"),
    (["calibrate", "/dev/null", "--duration", "inf"], "--duration"),
    (["build", "--plan", "p.json", "--manager", "lvm", "--devices", ",", "--out", "o"], "--devices"),
    (["bench", "--dir", "/var/tmp", "--cap", "nan"], "--cap"),
    (["bench", "--dir", "/var/tmp", "--instance-cap", "300:-1"], "--instance-cap"),
    (["bench", "--dir", "/var/tmp", "--cap", "="], "--cap"),
    (["bench", "--dir", "/var/tmp", "--label", ""], "--label"),
    (["bench", "--dir", ""], "--dir"),
    (["bench", "--dir", "/" + "a" * 300], "--dir"),
    (["bench", "--dir", "/var/tmp", "--out", "/" + "a" * 300], "--out"),
    (["bench", "--dir", "/var/tmp", "--out", "/etc/hostname/sub"], "--out"),
    (["bench", "--dir", "/var/tmp", "--report", "/" + "a" * 300 + "/r.html"], "--report"),
    (["lab", "--cloud", "oci", "--layout", "1x50G@balanced", "--instance", "VM.Standard.E3.Flex:1", "--bench", "tpcc"],
     "--bench"),
    (["report", "/nonexistent.json", "-o", "/" + "a" * 300], "-o"),
    (["report", "/nonexistent.json", "--png", "/" + "a" * 300], "--png"),
])
def test_named_cases_say_which_option(argv: list[str], option: str, tmp_path: Path) -> None:
    with no_real_work():
        code, out, err = run_cli(argv, tmp_path)
    assert_clean_rejection(code, out, err, tmp_path, repr(argv))
    assert err.startswith(f"blockfit: error: {option} "), err


def test_report_never_replaces_a_device_or_pipe_and_writes_no_figure_for_a_refused_page(fx: Fixtures,
                                                                                         tmp_path: Path) -> None:
    """-o naming a pipe (as /dev/null would be) was renamed over: as root that replaced /dev/null with a regular
    file. And a bad -o failed only after --png had written the figures."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    pngs = tmp_path / "pngs"
    pngs.mkdir()
    for target in (fifo, tmp_path / "missing" / "r.html"):
        code, out, err = run_cli(["report", str(fx.model), "-o", str(target), "--png", str(pngs)], fx.png)
        assert code == 2 and err.startswith("blockfit: error: -o "), err
        assert stat.S_ISFIFO(fifo.lstat().st_mode) and list(pngs.iterdir()) == []
    code, out, err = run_cli(["plan", "--capacity", "1T", "--instance", "VM.Standard.E3.Flex:4", "--out", str(fifo)],
                             fx.png)
    assert code == 2 and err.startswith("blockfit: error: --out ") and stat.S_ISFIFO(fifo.lstat().st_mode), err


def test_report_takes_names_and_titles_that_are_not_utf8(fx: Fixtures, tmp_path: Path) -> None:
    """A byte that is not UTF-8 in argv reaches Python as a lone surrogate; writing the page raised
    UnicodeEncodeError (a traceback). It is written escaped."""
    named = tmp_path / "m\udcff.json"  # the file name as Python sees b'm\xff.json'
    shutil.copy(fx.model, named)
    code, out, err = run_cli(["report", "--title", "t\udcff", "-o", "r\udcff.html", "--", str(named)], tmp_path)
    assert code == 0, err
    page = (tmp_path / "r\udcff.html").read_text()
    assert "<title>t\\udcff</title>" in page and "m\\udcff.json" in page


def test_a_valid_plan_still_writes_its_out_file(fx: Fixtures, tmp_path: Path) -> None:
    """The guard against false alarms: the same base invocation with valid values succeeds and writes."""
    code, out, err = run_cli(argv_for("plan", COMMANDS["plan"].params[0], "oci", fx), tmp_path)
    assert code == 0, err
    assert json.loads((tmp_path / "p.json").read_text())["kind"] == "plan"


def test_the_bench_guard_stops_a_valid_bench(fx: Fixtures, tmp_path: Path) -> None:
    """The guard against a vacuous bench fuzz: its base invocation passes validation (and would run)."""
    with pytest.raises(AssertionError, match="would start PostgreSQL"), no_real_work():
        run_cli(["bench", *(base_args("bench", fx) or [])], tmp_path)
    assert list(tmp_path.iterdir()) == [] and list(fx.bench_dir.iterdir()) == []
