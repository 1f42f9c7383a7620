"""report.build: a build section shows the scripts the result carries, in run order, and never opens a path."""

from __future__ import annotations

from pathlib import Path

from blockfit.report.build import section, summary
from blockfit.schema import BuildResult
from blockfit.schema.build import BuildStep


def _step(order: int, path: str, content: str | None, touches: bool = False) -> BuildStep:
    return BuildStep(order=order, name=path, path=path, kind="volume-manager", touches_devices=touches,
                     description=f"does {path}", content=content)


def _result(steps: list[BuildStep], **kw: object) -> BuildResult:
    base: dict[str, object] = {"out_dir": "out", "cloud": "oci", "manager": "lvm", "members": 2,
                               "stripe_size": 1 << 20, "devices": ["/dev/sdb", "/dev/sdc"],
                               "target_device": "/dev/vg/lv", "steps": steps}
    return BuildResult.model_validate({**base, **kw})


def test_scripts_are_shown_in_run_order_with_the_unordered_last() -> None:
    b = _result([_step(0, "provision.tf", "tf"), _step(2, "02-fs.sh", "mkfs"), _step(1, "01-lvm.sh", "lvcreate", True)])
    s = section(b, "build.json")
    assert [d.summary.split(":")[0] for d in s.details] == ["1. 01-lvm.sh", "2. 02-fs.sh", "provision.tf"]
    assert [d.text for d in s.details] == ["lvcreate", "mkfs", "tf"]
    assert s.details[0].summary.endswith("writes to devices") and not s.details[1].summary.endswith("devices")


def test_a_path_in_the_result_is_never_opened(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("TOKEN=hunter2")
    s = section(_result([_step(1, str(secret), None)]), "build.json")
    assert "hunter2" not in s.details[0].text and "does not carry" in s.details[0].text
    assert any("older blockfit" in n for n in s.notes)


def test_the_safety_checks_are_the_results_own_list() -> None:
    b = _result([_step(1, "01.sh", "x")], safety_checks=["refuses a mounted device"])
    s = section(b, "build.json")
    assert ("What the scripts check before they change anything, and what they never change",
            ["refuses a mounted device"]) in s.lists
    assert not s.notes


def test_the_summary_counts_what_runs_and_what_touches_devices() -> None:
    b = _result([_step(0, "p.tf", "x"), _step(1, "01.sh", "x", True), _step(2, "02.sh", "x")])
    text = summary(b)
    assert text.startswith("3 generated files build a stripe of 2 devices (/dev/sdb, /dev/sdc) with lvm")
    assert "run-all.sh runs 2 of them in order; 1 write to local block devices" in text
    one = summary(_result([_step(1, "01.sh", "x")], members=1, devices=["/dev/sdb"], stripe_size=None))
    assert "a single device (/dev/sdb)" in one
