"""The report a DBA forwards (issue 37 item 6), opened in Debian's headless chromium at 1,280 px: no page scrolls
sideways (nor any table run past it), and a page with a greyed or starred row says what grey and * mean.

Pages: a plan with rows that miss a target (grey, *) and its unpriced layouts listed apart, an infeasible plan, a
fleet with an infeasible host, a model (a log axis), a build. One browser launch for all of them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog
from blockfit.plan import make_plan
from blockfit.report import report
from blockfit.schema import Requirements
from support.browser import CHROMIUM
from support.fleet import run_cli

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")]

WIDTH = 1280
NO_STORAGE_PRICE = {"price_per_gb": None, "price_per_vpu_gb": None, "price_per_iops": None, "price_iops_tiers": [],
                    "price_tiers": [], "price_per_tput": None}

# every table: its caption, whether it has grey rows / starred cells, and how far it reaches
MEASURE = """() => ({
  scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
  tables: [...document.querySelectorAll('table')].map(t => ({
    caption: t.caption ? t.caption.textContent : '',
    right: t.getBoundingClientRect().right, scroll: t.scrollWidth, client: t.parentElement.clientWidth,
    muted: t.querySelectorAll('tr.muted').length,
    starred: [...t.querySelectorAll('td')].filter(td => td.textContent.trim().endsWith(' *')).length})),
})"""


def _plan_pages(d: Path) -> list[Path]:
    azure = load_catalog("azure")
    vts = {k: v.model_copy(update=NO_STORAGE_PRICE) if k in ("premium-v2", "ultra") else v
           for k, v in azure.volume_types.items()}
    azure = azure.model_copy(update={"volume_types": vts})   # unpriced in process: the catalogs gain prices
    mixed = make_plan(Requirements(cloud="azure", capacity_gb=4096, target_iops=60_000,
                                   instance_shape="Standard_E48s_v5", levels=["premium-v1", "premium-v2", "ultra"]),
                      azure)
    assert any(not c.price_known for c in mixed.candidates)
    infeasible = make_plan(Requirements(cloud="oci", capacity_gb=4608, target_iops=500_000,
                                        instance_shape="VM.Standard.E3.Flex", instance_ocpus=12),
                           load_catalog("oci"))
    assert not infeasible.feasible
    pages = []
    for name, plan in (("plan-mixed", mixed), ("plan-infeasible", infeasible)):
        (d / f"{name}.json").write_text(plan.model_dump_json())
        pages.append(d / f"{name}.json")
    return pages


def _fleet(d: Path) -> Path:
    """Hosts planned as `fleet plan` plans them (the histories made here, no server), one of them infeasible."""
    from blockfit import __version__
    from blockfit.fleet.hosts import FleetOptions, plan_host
    from blockfit.fleet.mapping import HostConfig
    from blockfit.fleet.query import HostHistory
    from blockfit.fleet.totals import summarize
    from blockfit.schema.fleet import FleetHost, FleetProblem, FleetResult

    cat = load_catalog("oci")
    opts = FleetOptions(template=Requirements(cloud="oci", capacity_gb=1, instance_shape=""), percentile=99,
                        headroom_pct=20)
    hosts: list[FleetHost] = []
    problems: list[FleetProblem] = []
    for name, iops, layout in (("db-01.prod.example.internal:9100", 30000.0, "1x500G@balanced"),
                               ("db-02.prod.example.internal:9100", 2000.0, "8x1000G@higher"),
                               ("db-03.prod.example.internal:9100", 2000.0, None),
                               ("db-04.prod.example.internal:9100", 900_000.0, "2x1T@balanced")):
        h = HostHistory(host=name, devices=["dm-3"], samples=100, expected=100, iops=iops, mbps=iops * 16384 / 1e6,
                        read_pct=70.0, resets=0, labels={}, device_rule="dm-3")
        got = plan_host(h, HostConfig(layout=layout, instance="VM.Standard.E4.Flex:8"), opts, cat, "test", 60)
        (hosts if isinstance(got, FleetHost) else problems).append(got)  # type: ignore[arg-type]
    assert any(h.infeasible for h in hosts)
    now = datetime(2026, 11, 27, tzinfo=UTC)
    result = FleetResult(blockfit_version=__version__, created=now, cloud="oci", catalog_version=str(cat.version),
                         source="http://127.0.0.1:9090", match='{job="node",instance=~"db-.*"}', start=now, end=now,
                         range_s=3600, step_s=60, percentile=99, headroom_pct=20, hosts=hosts, problems=problems,
                         summary=summarize(hosts, problems))
    (d / "fleet.json").write_text(result.model_dump_json())
    return d / "fleet.json"


def _cli_pages(d: Path) -> list[Path]:
    out = []
    for name, args in (("model", ["model", "--cloud", "aws", "--layout", "4x12788G@st1", "--instance", "m6i.xlarge"]),
                       ("model-oci", ["model", "--cloud", "oci", "--layout", "9x500G@balanced", "--instance",
                                      "VM.Standard.E3.Flex:12", "--max-latency", "2ms"]),
                       ("plan-part3", ["plan", "--example", "part3"])):
        code, text, err = run_cli(*args, "--json")
        assert code == 0, err
        (d / f"{name}.json").write_text(text)
        out.append(d / f"{name}.json")
    members = json.loads((d / "plan-part3.json").read_text())["candidates"][0]["prediction"]["layout_detail"]["members"]
    devices = ",".join(f"/dev/oracleoci/oraclevd{chr(ord('b') + i)}" for i in range(members))
    code, text, err = run_cli("build", "--plan", str(d / "plan-part3.json"), "--manager", "lvm", "--devices", devices,
                              "--mount", "/u01", "--provision", "terraform", "--out", str(d / "build"), "--json")
    assert code == 0, err
    (d / "build.json").write_text(text)
    return [*out, d / "build.json"]


def test_no_report_page_scrolls_sideways_at_1280px_and_grey_rows_have_a_legend(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    inputs = [*_plan_pages(tmp_path), _fleet(tmp_path), *_cli_pages(tmp_path)]
    pages = []
    for path in inputs:
        html = tmp_path / f"{path.stem}.html"
        report([path], html)
        pages.append(html)
    seen: dict[str, dict] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            for html in pages:
                page.goto(html.resolve().as_uri(), wait_until="load")
                seen[html.stem] = page.evaluate(MEASURE)
        finally:
            browser.close()
    for name, m in seen.items():
        assert m["inner"] == WIDTH
        assert m["scroll"] <= m["inner"], f"{name}: the page scrolls sideways ({m['scroll']} > {m['inner']} px)"
        for t in m["tables"]:
            assert t["right"] <= WIDTH and t["scroll"] <= t["client"] + 1, f"{name}: {t['caption']!r} runs past"
            if t["muted"]:
                assert "grey" in t["caption"], f"{name}: grey rows without a legend: {t['caption']!r}"
            if t["starred"]:
                assert "* " in t["caption"], f"{name}: starred rows without a legend: {t['caption']!r}"
    # the cases the page set was built for are there
    tables = [t for m in seen.values() for t in m["tables"]]
    assert any(t["muted"] for t in seen["plan-mixed"]["tables"]) and any(t["starred"] for t in tables)
    assert any(t["muted"] for t in seen["plan-infeasible"]["tables"])
