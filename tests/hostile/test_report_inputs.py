"""Hostile results for `blockfit report` (issue 36): every string field of each result kind it reads is set to a
payload (markup, mathtext, paths of secrets, terminal escapes, rich markup) and the result rendered in this
process; a few CLI runs check the same end to end. A field the schema refuses (a kind, a date, a literal) must be
refused as input (exit 2, one line); every other one renders, and the page escapes it, reads no file named in it,
and holds nothing of the environment.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from blockfit.cli import main
from blockfit.documents import check_envelope, validate
from blockfit.errors import InputError
from blockfit.report import render
from blockfit.report.load import EXPECTED, Loaded, load
from blockfit.schema.kinds import RESULT_TYPES
from support.report import BLOCKFIT, check_self_contained

TESTS = Path(__file__).parents[1]
EXAMPLES = TESTS.parent / "docs" / "examples"
RECORDING = TESTS / "data" / "diagnose" / "lab_stripe_slow_member.jsonl"
CANARY = "BLOCKFIT_CANARY"
SECRET = f"canary-{os.urandom(6).hex()}"
PAYLOADS = {
    "html": "<script>alert(1)</script>",
    "mathtext": "$\\frac{$",
    "environ": "/proc/self/environ",
    "shadow": "../../../../etc/shadow",
    "terminal": "\x1b]0;x\x07",
    "rich": "[link=x]y[/link]",
}
Key = tuple[str | int, ...]


# ---------------------------------------------------------------- the results, one of each kind report reads

def _cli_json(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main([*args, "--json"])
        except SystemExit as exc:
            assert not exc.code, args
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def _fleet() -> dict[str, Any]:
    """Two hosts planned as `plan --from prometheus+…` plans them (no server: the histories are made here)."""
    from blockfit import __version__
    from blockfit.catalog import load_catalog
    from blockfit.fleet.hosts import FleetOptions, plan_host
    from blockfit.fleet.mapping import HostConfig
    from blockfit.fleet.query import HostHistory
    from blockfit.fleet.totals import summarize
    from blockfit.schema import Requirements
    from blockfit.schema.fleet import FleetHost, FleetProblem, FleetResult

    cat = load_catalog("oci")
    opts = FleetOptions(template=Requirements(cloud="oci", capacity_gb=1, instance_shape=""), percentile=99,
                        headroom_pct=20)
    hosts: list[FleetHost] = []
    problems: list[FleetProblem] = []
    for name, iops, layout in (("db-01", 30000.0, "1x500G@balanced"), ("db-02", 2000.0, "8x1000G@higher"),
                               ("db-03", 2000.0, None)):
        h = HostHistory(host=name, devices=["dm-3"], samples=100, expected=100, iops=iops, mbps=iops * 16384 / 1e6,
                        read_pct=70.0, resets=0, labels={}, device_rule="dm-3")
        got = plan_host(h, HostConfig(layout=layout, instance="VM.Standard.E4.Flex:8"), opts, cat, "test", 60)
        (hosts if isinstance(got, FleetHost) else problems).append(got)  # type: ignore[arg-type]
    now = datetime(2026, 11, 27, tzinfo=UTC)
    result = FleetResult(blockfit_version=__version__, created=now, cloud="oci", catalog_version=str(cat.version),
                         source="http://127.0.0.1:9090", match='{job="node"}', start=now, end=now, range_s=3600,
                         step_s=60, percentile=99, headroom_pct=20, hosts=hosts, problems=problems,
                         summary=summarize(hosts, problems))
    data: dict[str, Any] = json.loads(result.model_dump_json())
    return data


def _lab_bench() -> dict[str, Any]:
    """The lab-bench result the report tests assemble (tests/report/test_report_lab_bench.py), without a guest."""
    spec = importlib.util.spec_from_file_location("lab_bench_example", TESTS / "report" / "test_report_lab_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data: dict[str, Any] = json.loads(module.lab_bench_result(balance={"oltp-select": 0.7}).model_dump_json())
    return data


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    d = tmp_path_factory.mktemp("hostile")
    # the plan of the seeds' /u01 from its inventory: its current layout and migrations are on the page too
    plan = _cli_json("plan", "--inventory", str(EXAMPLES / "inventory.json"), "--target-iops", "150000",
                     "--out", str(d / "plan.json"))
    members = plan["candidates"][0]["prediction"]["layout_detail"]["members"]
    devices = ",".join(f"/dev/sd{chr(ord('b') + i)}" for i in range(members))
    return {
        "model": _cli_json("model", "--cloud", "oci", "--layout", "9x500G@balanced", "--instance",
                           "VM.Standard.E3.Flex:12", "--max-latency", "2ms"),
        "plan": plan,
        "build": _cli_json("build", "--plan", str(d / "plan.json"), "--manager", "lvm", "--devices", devices,
                           "--mount", "/u01", "--out", str(d / "build")),
        "diagnose": _cli_json("diagnose", "--replay", str(RECORDING)),
        "calibrate": json.loads((EXAMPLES / "calibrate.json").read_text()),
        "bench": json.loads((EXAMPLES / "bench.json").read_text()),
        "lab-bench": _lab_bench(),
        "fleet": _fleet(),
        "inventory": _inventory(),
    }


def _inventory() -> dict[str, Any]:
    """The seeds' /u01 as inspect finds it, with the model's prediction of it (inspect's own command is not run)."""
    from blockfit.model import predict
    from support.inventory import seed_inventory

    inv = seed_inventory(used_bytes=3 * 10**12)
    entry = inv.layouts[0]
    assert entry.layout is not None and entry.instance is not None
    entry.prediction = predict(entry.layout, entry.instance, with_curve=False)
    data: dict[str, Any] = json.loads(inv.model_dump_json())
    return data


# ---------------------------------------------------------------- mutation

def _strings(x: Any, key: Key = ()) -> Iterator[Key]:
    if isinstance(x, str):
        yield key
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _strings(v, (*key, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _strings(v, (*key, i))


def _set(data: Any, key: Key, value: Any) -> None:
    for part in key[:-1]:
        data = data[part]
    data[key[-1]] = value


def _get(data: Any, key: Key) -> Any:
    for part in key:
        data = data[part]
    return data


def _validate(data: dict[str, Any]) -> Any:
    return validate(check_envelope(data, "hostile.json", RESULT_TYPES, EXPECTED), data, "hostile.json")


def _mutate(original: dict[str, Any], payload: str) -> tuple[dict[str, Any], list[Key], list[Key]]:
    """The result with every string field the schema accepts set to payload; (it, fields set, fields refused).
    A refused field (a literal, a date, a pattern) is put back and the rest validated again."""
    keys = [k for k in _strings(original) if k not in (("kind",),)]
    refused: list[Key] = []
    while True:
        data = json.loads(json.dumps(original))
        for k in keys:
            if k not in refused:
                _set(data, k, payload)
        try:
            _validate(data)
        except InputError:
            import pydantic

            try:
                check_envelope(data, "x", RESULT_TYPES, EXPECTED).model_validate(data)
            except pydantic.ValidationError as exc:
                bad = {tuple(e["loc"]) for e in exc.errors()}
            new = [k for k in keys if k not in refused and any(k[:len(b)] == b or b[:len(k)] == k for b in bad)]
            assert new, f"refused at {sorted(bad)[:3]} but no string field there"
            refused += new
            continue
        return data, [k for k in keys if k not in refused], refused


# ---------------------------------------------------------------- what the page may hold, and what it may open

_opened: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _opened is not None and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@contextlib.contextmanager
def _watch_opens() -> Iterator[list[str]]:
    """Every file opened in this process meanwhile (Python's audit events)."""
    global _opened
    _opened = []
    try:
        yield _opened
    finally:
        _opened = None


def _outside(paths: list[str]) -> list[str]:
    """Opened paths that are not the libraries' own files (fonts, templates) or matplotlib's cache."""
    allowed = (sys.prefix, sys.base_prefix, str(Path(__file__).parents[2] / "src"), os.path.expanduser("~/.cache"),
               os.path.expanduser("~/.config/matplotlib"), "/usr/share/fonts", "/usr/share/matplotlib")
    return [p for p in paths if not os.path.realpath(p).startswith(allowed)]


def _check_page(html: str, payload: str) -> None:
    check_self_contained(html)
    assert SECRET not in html and CANARY not in html
    assert "<script" not in html and "\x1b" not in html and "\x07" not in html
    assert "root:" not in html  # /etc/shadow's first line


# ---------------------------------------------------------------- the tests

@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_every_string_field_set_to_a_payload_renders_safely(results: dict[str, dict[str, Any]], name: str,
                                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = PAYLOADS[name]
    monkeypatch.setenv(CANARY, SECRET)
    assert set(results) == set(RESULT_TYPES) - {"lab"}  # lab needs a guest run: its strings are in lab-bench's
    for kind, original in results.items():
        data, mutated, refused = _mutate(original, payload)
        assert len(mutated) >= 5, (kind, len(mutated), refused[:5])
        for key in refused[:20]:  # each refused field alone: an input error, not a crash
            one = json.loads(json.dumps(original))
            _set(one, key, payload)
            with pytest.raises(InputError):
                _validate(one)
        src = tmp_path / f"{kind}.json"
        src.write_text(json.dumps(data))
        with _watch_opens() as opened:
            html = render([load(src)])
        assert _outside(opened) == [os.path.realpath(src)] or _outside(opened) == [str(src)], (kind, opened)
        _check_page(html, payload)
        if name == "html":  # shown, escaped
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, kind


def test_build_result_naming_secrets_renders_from_the_result(results: dict[str, dict[str, Any]],
                                                             tmp_path: Path) -> None:
    """The path fields of a build result name secrets; the page holds the scripts' text, nothing it names."""
    data = json.loads(json.dumps(results["build"]))
    data["out_dir"] = "/"
    for step, target in zip(data["steps"], ["proc/self/environ", "etc/shadow", "dev/zero"] * 9, strict=False):
        step["path"] = target
    src = tmp_path / "build.json"
    src.write_text(json.dumps(data))
    with _watch_opens() as opened:
        html = render([load(src)])
    assert _outside(opened) in ([str(src)], [os.path.realpath(src)]), opened
    _check_page(html, "")
    assert all(str(escape(step["content"].splitlines()[0])) in html for step in data["steps"])


@pytest.mark.parametrize("kind, name", [("build", "environ"), ("plan", "mathtext"), ("diagnose", "terminal")])
def test_cli_on_a_hostile_result_exits_0_or_2_without_a_traceback(results: dict[str, dict[str, Any]], kind: str,
                                                                 name: str, tmp_path: Path) -> None:
    data, _, _ = _mutate(results[kind], PAYLOADS[name])
    src = tmp_path / "hostile.json"
    src.write_text(json.dumps(data))
    out = tmp_path / "r.html"
    proc = subprocess.run([*BLOCKFIT, "report", str(src), "-o", str(out)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env={**os.environ, CANARY: SECRET})
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "\x1b" not in proc.stdout + proc.stderr
    if proc.returncode == 0:
        _check_page(out.read_text(), PAYLOADS[name])
    else:
        assert proc.stderr.count("\n") == 1 and not out.exists()


def test_a_recording_with_hostile_device_names_replays_safely(tmp_path: Path) -> None:
    """The diagnose recording is the one input that is not a result: its device names get the payloads too."""
    text = RECORDING.read_text()
    names = sorted(set(re.findall(r'"(vd[a-z]|dm-\d)"', text)))
    for payload in (PAYLOADS["terminal"], PAYLOADS["mathtext"], PAYLOADS["html"]):
        swapped = text
        for i, dev in enumerate(names):
            swapped = swapped.replace(f'"{dev}"', json.dumps(f"{payload}{i}"))
        src = tmp_path / "capture.jsonl"
        src.write_text(swapped)
        try:
            loaded: Loaded = load(src)
        except InputError:
            continue  # refused as input: fine
        with _watch_opens() as opened:
            html = render([loaded])
        assert _outside(opened) == [], opened
        _check_page(html, payload)


# ---------------------------------------------------------------- labels of any length, in every figure

_LABELS = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=200),
    st.builds(lambda c, n: c * n, st.sampled_from("Wm$\\_-./:\u202e\u4e2d\x1b é"), st.integers(37, 4096)),
)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(label=_LABELS)
@example(label="L" * 110)   # the probe's limit and device name
def test_every_figure_lays_out_a_label_of_any_length_and_characters(results: dict[str, dict[str, Any]],
                                                                     label: str) -> None:
    """Every string field of every result kind set to LABEL and the page rendered with every figure: each plot
    stays inside its figure with room to draw (a 110-character limit name made the margin wider than the figure: a
    ValueError), and a label cut short in a figure is given whole in its caption."""
    from blockfit.report import figures

    drawn: list[tuple[str, list[tuple[float, float, float, float]]]] = []
    add = figures.FigureSink.add

    def spy(self: figures.FigureSink, fig: Any, name: str, caption: str) -> figures.ReportFigure:
        out = add(self, fig, name, caption)
        drawn.append((out.caption, [tuple(ax.get_position().bounds) for ax in fig.axes]))
        return out

    figures.FigureSink.add = spy  # type: ignore[method-assign]
    try:
        for kind, original in results.items():
            data, mutated, _refused = _mutate(original, label)
            render([Loaded(Path(f"{kind}.json"), _validate(data))])
    finally:
        figures.FigureSink.add = add  # type: ignore[method-assign]
    assert drawn
    for caption, boxes in drawn:
        for x0, y0, w, h in boxes:
            assert 0 <= x0 and x0 + w <= 1 and 0 <= y0 and y0 + h <= 1, (caption, boxes)
            assert w >= 0.05 and h >= 0.02, (caption, boxes)
        whole = " ".join(label.split())
        if "Shortened in the figure" in caption and len(whole) > figures.LABEL_CHARS:
            assert whole in caption, caption
