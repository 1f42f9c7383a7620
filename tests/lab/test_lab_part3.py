"""The Part 3 case in the lab: 9 x 500 GB Balanced on VM.Standard.E3.Flex at 12 and 20 OCPUs, scaled.

One guest run per OCPU count (the CLI, as a user runs it) serves every assertion about that run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.lab import assert_matches_model, assert_nothing_left, run_lab_cli

pytestmark = [pytest.mark.slow, pytest.mark.lab]

_results: dict[int, tuple[dict[str, Any], Path]] = {}


def _run(ocpus: int, factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    """One guest run per OCPU count. The single 4.5 TB volume is measured at 12 OCPUs only: it is held by its own
    caps on both instances (25,000 IOPS and 480 MB/s are under either's network), so a second measurement of it
    would add a minute of TCG and say nothing new."""
    if ocpus not in _results:
        runs = factory.mktemp(f"lab-runs-{ocpus}")
        # the default 8 s window, as a user runs it; measured once: the figures are medians of sub-window rates,
        # windows added until the interval is narrow
        args = ("--cloud", "oci", "--layout", "9x500G@balanced", "--instance", f"VM.Standard.E3.Flex:{ocpus}")
        _results[ocpus] = (run_lab_cli(runs, *args, *(() if ocpus == 12 else ("--no-single",))), runs)
    result, runs = _results[ocpus]
    return ocpus, result, runs


@pytest.fixture(params=[12, 20], ids=["12ocpu", "20ocpu"])
def part3(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    return _run(int(request.param), tmp_path_factory)


@pytest.fixture
def part3_12(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    return _run(12, tmp_path_factory)


def test_stripe_within_10_percent_of_scaled_prediction(part3: tuple[int, dict[str, Any], Path]) -> None:
    _, r, _ = part3
    assert r["members"] == 9 and 0 < r["scale"] < 1
    assert_matches_model(r, "iops", 0.10)
    assert_matches_model(r, "mbps", 0.10)


def test_binding_limit_is_the_one_the_model_names(part3: tuple[int, dict[str, Any], Path]) -> None:
    ocpus, r, _ = part3
    assert r["limited_by"] == r["predicted_limited_by"]
    expected = "instance" if ocpus == 12 else "volume"
    assert r["limited_by"]["mbps"].startswith(expected)
    assert r["limited_by"]["iops"].startswith(expected)


def test_single_volume_within_5_percent_of_its_cap(part3_12: tuple[int, dict[str, Any], Path]) -> None:
    _, r, _ = part3_12
    s = r["single"]
    assert s is not None and s["members"] == 1 and s["layout"].startswith("1x4500G")
    assert_matches_model(s, "iops", 0.05)
    assert_matches_model(s, "mbps", 0.05)
    assert s["limited_by"] == s["predicted_limited_by"]


def test_stripe_was_built_and_checked_and_nothing_left(part3: tuple[int, dict[str, Any], Path]) -> None:
    _, r, runs = part3
    steps = {s["name"]: s for s in r["steps"]}
    assert all(s["ok"] for s in r["steps"]), r["steps"]
    assert steps["lvm stripe"]["detail"].startswith("lvs: 9 4096")
    assert "checksums match" in steps["xfs check"]["detail"]
    assert_nothing_left(runs)
