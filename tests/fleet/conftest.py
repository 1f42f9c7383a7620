"""The fleet tests' servers: the generated fleet (support.fleet_history) served by Prometheus and by
VictoriaMetrics, one start per engine per session, and the one CLI run several tests read."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit.testbed.promserver import create_blocks, prometheus_server, victoria_metrics_server
from support.fleet import run_cli
from support.fleet_history import ENGINES, NEEDS, RANGE, Fleet, History, fleet_args, generate


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> History:
    return generate(tmp_path_factory.mktemp("fleet"))


@pytest.fixture(scope="session", params=ENGINES)
def fleet(request: pytest.FixtureRequest, generated: History) -> Iterator[Fleet]:
    """The generated fleet served by each engine in turn (one start per engine per session)."""
    engine = str(request.param)
    missing = [tool for tool in NEEDS[engine] if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (scripts/setup.sh)")
    fields = {k: getattr(generated, k) for k in History.__dataclass_fields__}
    if engine == "victoria-metrics":
        with victoria_metrics_server(generated.work / "history.jsonl") as vm:
            yield Fleet(**fields, engine=engine, url=vm.url)
        return
    data = generated.work / "data"
    if not data.exists():
        create_blocks(generated.work / "history.om", data, RANGE)
        create_blocks(generated.work / "stale.om", data, 3 * 3600)
    with prometheus_server(data) as srv:
        yield Fleet(**fields, engine=engine, url=srv.url, data=data)


@pytest.fixture(scope="session")
def fleet_json(fleet: Fleet, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, str, Path]:
    report = tmp_path_factory.mktemp("fleet-report") / "fleet.html"
    code, out, err = run_cli(*fleet_args(fleet, "--devices", "dm-3", "--json", "--report", str(report)))
    return code, json.loads(out), err, report
