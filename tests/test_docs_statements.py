"""Statements of fact in the docs' prose, checked against what the code does today (the console examples are
run by test_docs_examples.py; these are the figures and claims written in sentences)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blockfit.catalog import CLOUDS, load_catalog
from support.inproc import run

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_model_page_gives_the_queue_depth_32_figure_model_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """model.md said 23,801 for Part 1's Balanced volume at --queue-depth 32 while model printed 23,804."""
    text = " ".join((DOCS / "commands" / "model.md").read_text().split())
    said = re.search(r"`--queue-depth 32` gives ([\d,]+)", text)
    assert said is not None
    code, out, err = run(["model", "--cloud", "oci", "--layout", "1x4.5T@balanced", "--instance",
                          "VM.Standard.E3.Flex:12", "--queue-depth", "32", "--json"], capsys)
    assert code == 0, err
    assert f"{json.loads(out)['max_iops']:,.0f}" == said.group(1)


def test_plan_page_names_no_shipped_type_as_unpriced() -> None:
    """plan.md said Premium SSD v2, Ultra and Hyperdisk had no price after the catalogs priced them."""
    unpriced = [f"{c}:{k}" for c in CLOUDS for k, v in load_catalog(c).volume_types.items()
                if v.price_per_gb is None and not v.price_tiers]
    text = (DOCS / "commands" / "plan.md").read_text()
    assert unpriced == [] and "every type the shipped catalogs carry is priced" in text


def test_build_pages_say_asm_redundancy_is_written_not_refused() -> None:
    """build.md said ASM normal/high redundancy is refused; the build writes NORMAL/HIGH REDUNDANCY disk groups."""
    for page in (DOCS / "commands" / "build.md", DOCS / "build.md"):
        text = " ".join(page.read_text().split())
        assert "normal/high redundancy is refused" not in text.lower(), page
    assert "NORMAL/HIGH REDUNDANCY" in (DOCS / "commands" / "build.md").read_text()


def test_readme_names_the_schema_version_results_carry() -> None:
    from blockfit.schema.result import SCHEMA_VERSION

    text = (DOCS.parent / "README.md").read_text()
    versions = set(re.findall(r"schema version (\d+)", text))
    assert versions == {str(SCHEMA_VERSION)}, versions


def test_build_page_describes_the_multipath_drop_in_the_script_writes(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """build.md described a `device ORACLE/BlockVolume` section with rr_min_io_rq 1 in blockfit-oci-multipath.conf;
    the script writes one `multipaths` entry per WWID, grouping and selector only, in blockfit-VG.conf."""
    code, _, err = run(["build", "--layout", "2x1T@120vpu", "--cloud", "oci", "--instance", "VM.Standard.E4.Flex:16",
                        "--manager", "lvm", "--devices", "/dev/oracleoci/oraclevdb,/dev/oracleoci/oraclevdc",
                        "--out", str(tmp_path / "b")], capsys)
    assert code == 0, err
    script = (tmp_path / "b" / "11-oci-multipath.sh").read_text()
    page = " ".join((DOCS / "commands" / "build.md").read_text().split())
    assert "blockfit-blockfit_vg.conf" in script and "/etc/multipath/conf.d/blockfit-VG.conf" in page
    for setting in ("path_grouping_policy", "path_selector", "rr_min_io_rq", "wwid"):
        assert (setting in script.lower()) == (setting in page.lower()), setting


@pytest.mark.parametrize("level,measured", [("higher", 468), ("balanced", 448)])
def test_model_page_calibrate_io_gap_is_the_note_model_prints(level: str, measured: int,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """model.md says Part 1's volumes give the cap where CALIBRATE_IO measured less, and that a note says so."""
    text = " ".join((DOCS / "commands" / "model.md").read_text().split())
    code, out, err = run(["model", "--cloud", "oci", "--layout", f"1x3.5T@{level}", "--instance",
                          "VM.Standard.E3.Flex:6", "--queue-depth", "32", "--json"], capsys)
    assert code == 0, err
    p = json.loads(out)
    said = re.search(r"gives (\d+) MB/s, the published per-volume cap, where CALIBRATE_IO measured (\d+) "
                     r"\(Balanced: (\d+) against (\d+)\)", text)
    assert said is not None
    cap, seen = (said.group(1), said.group(2)) if level == "higher" else (said.group(3), said.group(4))
    assert (f"{p['max_mbps']:.0f}", str(measured)) == (cap, seen)
    note = next(n for n in p["notes"] if n.startswith("CALIBRATE_IO measured"))
    assert f"max_mbps {measured}" in note and f"{p['max_mbps'] - measured:,.0f} under" in note


def test_plan_page_says_how_the_history_sizes_compute(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """plan.md quotes the two notes a plan from history writes about its compute: each is what plan writes."""
    text = " ".join((DOCS / "commands" / "plan.md").read_text().split())
    quoted = re.findall(r'\("(Compute [^".]*?) \.\.\."\)', text)
    assert len(quoted) == 2
    csv = tmp_path / "h.csv"
    csv.write_text("timestamp,read IOPS,write IOPS,read MB/s,write MB/s\n"
                   + "".join(f"2026-11-23T10:{i:02d}:00,900,100,20,5\n" for i in range(5)))
    code, out, err = run(["plan", "--from", str(csv), "--cloud", "oci", "--capacity", "1T", "--json"], capsys)
    assert code == 0, err
    assert any(n.startswith(quoted[1]) for n in json.loads(out)["notes"])
    samples = DOCS.parents[1] / "shared" / "samples" / "awr" / "awr18c_prdg1_rac_237812_237837.html"
    if samples.is_file():
        code, out, err = run(["plan", "--from", str(samples), "--cloud", "oci", "--capacity", "2T", "--json"], capsys)
        assert code == 0, err
        assert any(n.startswith(quoted[0]) for n in json.loads(out)["notes"])


def test_model_page_ultra_on_a_bursting_vm_prints_no_burst(capsys: pytest.CaptureFixture[str]) -> None:
    """model.md says Ultra Disk on a VM that bursts prints no burst equal to sustained: model prints what it says."""
    text = " ".join((DOCS / "commands" / "model.md").read_text().split())
    said = re.search(r"\(`(1x\S+@ultra\S*)` on (\S+): the VM bursts.*?the line says \"(burst: none \([^.]*) \.\.\.\)\"",
                     text)
    assert said is not None
    code, out, err = run(["model", "--cloud", "azure", "--layout", said.group(1), "--instance", said.group(2)], capsys)
    assert code == 0, err
    flat = " ".join(out.split())
    assert said.group(3) in flat and "; sustained" not in flat
