"""The light install: the built wheel, in a fresh venv without the dev extras, runs plan, build and report.

Offline: the wheel is built without build isolation (hatchling is a dev dependency) and installed with
--no-index. Its runtime dependencies are given to the fresh venv as links to the very distributions the
dev venv holds, and only those, found by walking blockfit's declared requirements; `pip check` then proves
the declared requirements are all it needs. pytest, hypothesis, ruff, mypy, ... must not be importable there.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _runtime_closure() -> list[Distribution]:
    """blockfit's runtime requirements and theirs, as installed here (no extras, environment markers obeyed)."""
    from packaging.requirements import Requirement

    seen: dict[str, Distribution] = {}
    todo = [Requirement(r) for r in distribution("blockfit").requires or []]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if name in seen:
            continue
        try:
            dist = distribution(req.name)
        except PackageNotFoundError:
            continue  # an optional dependency not installed here; pip check says if it is needed
        seen[name] = dist
        todo.extend(Requirement(r) for r in dist.requires or [])
    return list(seen.values())


def _link_into(dist: Distribution, site: Path) -> None:
    """Link each top-level entry of an installed distribution (its packages, modules, .dist-info) into SITE."""
    tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
    base = Path(str(dist.locate_file("")))
    for top in tops:
        target = site / top
        if not target.exists() and (base / top).exists():
            target.symlink_to(base / top)


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([str(venv / "bin" / "blockfit"), *args], capture_output=True, text=True, cwd=cwd,
                         timeout=120)
    assert out.returncode == 0, (args, out.stderr)
    return out


def test_the_wheel_runs_plan_build_and_report_without_the_dev_extras(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "-q", "-w", str(dist), str(ROOT)], check=True, timeout=300)
    (wheel,) = dist.glob("blockfit-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    fresh = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; "
                                 "print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True,
                                check=True).stdout.strip())
    assert fresh != Path(sysconfig.get_paths()["purelib"])
    for d in _runtime_closure():
        _link_into(d, fresh)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    subprocess.run([*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True, timeout=300)
    subprocess.run([*pip, "check"], check=True, timeout=120)  # the declared requirements are all it needs

    for dev_only in ("pytest", "hypothesis", "ruff", "mypy", "mkdocs", "psycopg"):
        probe = subprocess.run([str(venv / "bin" / "python"), "-c", f"import {dev_only}"], capture_output=True)
        assert probe.returncode != 0, f"{dev_only} is importable in the fresh venv"
    installed = subprocess.run([str(venv / "bin" / "python"), "-c", "import blockfit; print(blockfit.__file__)"],
                               capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert installed.startswith(str(venv)), installed  # the wheel's copy, not this checkout's

    work = tmp_path / "work"
    work.mkdir()
    shown = _run(venv, "plan", "--example", "part3", cwd=work)
    assert "Recommended: 6x768G@balanced" in shown.stdout
    _run(venv, "plan", "--example", "part3", "--out", "plan.json", cwd=work)
    assert json.loads((work / "plan.json").read_text())["kind"] == "plan"
    members = 6  # the recommended layout's member count, as asserted above
    devices = ",".join(f"/dev/oracleoci/oraclevd{chr(ord('b') + i)}" for i in range(members))
    _run(venv, "build", "--plan", "plan.json", "--manager", "lvm", "--devices", devices, "--mount", "/u01",
         "--out", "scripts", cwd=work)
    assert (work / "scripts" / "run-all.sh").exists() and (work / "scripts" / "20-lvm.sh").exists()
    _run(venv, "report", "plan.json", "-o", "report.html", cwd=work)
    page = (work / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "6x768G@balanced" in page
