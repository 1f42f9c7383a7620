"""report of an inventory and of plan/build --inventory: the layout the host has, the recommendation beside it,
and each migration's duration with its arithmetic, all from the results themselves and escaped."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from blockfit.report import load, render
from support.inproc import run
from support.inventory import SEED_LV_BYTES, seed_inventory, write_inventory


def test_an_inventory_and_its_plan_show_now_beside_the_recommendation_and_the_durations(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = seed_inventory(used_bytes=3 * 10**12)
    inv.hostname = "<b>ebsdb</b>\x1b[31m"   # text from a hostile file: shown, never markup nor a terminal escape
    inv_path = write_inventory(tmp_path / "inventory.json", inv)
    code, out, err = run(["plan", "--inventory", str(inv_path), "--target-iops", "150000", "--json"], capsys)
    assert code == 0, err
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(out)
    page = render([load(inv_path), load(plan_path)])
    text = html.unescape(page)
    assert "<b>ebsdb</b>" not in page and "&lt;b&gt;ebsdb&lt;/b&gt;" in page and "\\x1b[31m" in page
    assert "The layout under each mount point" in text and "1x4.5T@balanced" in text
    assert f"{SEED_LV_BYTES:,}" in text                       # the LV's bytes, from /sys as inspect read them
    assert "The layout the host has (from its inventory) and the recommendation" in text
    assert "now: /u01" in text and "25,000" in text and "6x768G@balanced" in text
    assert "How long the move takes, per method" in text
    for words in ("offline, block copy", "offline, filesystem copy", "online, LVM mirror", "2 h 50 min",
                  "the source's reads", "1 region of 2 MiB in flight"):
        assert words in text, words
    assert "https://github.com/torvalds/linux/blob/master/drivers/md/dm-raid1.c" in text


def test_report_cli_takes_an_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv_path = write_inventory(tmp_path / "inventory.json", seed_inventory())
    code, _, err = run(["report", str(inv_path), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 0, err
    assert "Inventory: ebsdb" in (tmp_path / "r.html").read_text()
