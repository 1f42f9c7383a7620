"""Suite-wide setup.

SIGINT as a terminal gives it: a job started in the background by a non-interactive shell (`cmd &`, as a CI
runner may start the suite) begins with SIGINT ignored, and an ignored signal stays ignored across fork and exec.
Every test that presses Ctrl-C on a child (calibrate, bench, lab) would then see it do nothing: the child runs
to completion and exits 0 (seen in a fresh-clone run started with `setsid nohup … &`). Installing Python's
handler here makes the children start with SIGINT at its default (exec resets a handled signal), and pytest
itself stoppable by Ctrl-C.

SIGHUP the same way: under nohup it begins ignored, the CLI rightly keeps ignoring a signal it was started
ignoring, and the fault suite's "build, new folder at the swap" ran on through its SIGHUP to exit 0 (a fresh-clone
run started with `nohup`, 2026-11-27). A handler that does nothing keeps the suite itself immune to a hangup, as
nohup asked, while its children start with SIGHUP at its default.

Two streams (`pytest -n 2`, README's command): the lab's tests (a qemu guest each, mostly waiting
on their emulated caps) in one, every other test in the other, in the order it has run alone. No two tests of the
same stream run at once, so the only tests ever side by side are a lab guest and a host test; both were written to
pass on a busy machine (figures against a reference measured in the same run).
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Under CI the property tests draw the same examples every run (derandomize): a clean clone that passed here passes
# in CI too, rather than CI meeting an input no run before it met (two such draws failed CI runs: an /OPTION error
# with a line break, and --match '\n'). Outside CI they draw afresh each run, to find the next one.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The suite renders as a piped run does (cli.output: 120 columns when no terminal and no COLUMNS), whatever runs it:
# xdist's workers start with COLUMNS=80, which squeezed tables under their longer tmp paths (popen-gwN/).
os.environ.pop("COLUMNS", None)

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, lambda signum, frame: None)


# The files whose tests boot the lab's guest (marked lab, or using small_lab): the "lab" stream. A lab test in any
# other file stops collection, so a new one is put in a stream on purpose.
LAB_FILES = frozenset({
    "tests/diagnose/test_diagnose_lab.py", "tests/lab/test_lab_bench.py", "tests/lab/test_lab_build.py",
    "tests/lab/test_lab_caps.py", "tests/lab/test_lab_clouds.py", "tests/lab/test_lab_part3.py",
    "tests/lab/test_lab_paths.py", "tests/lab/test_lab_raid10.py", "tests/lab/test_lab_stripe_depth.py",
    "tests/lab/test_lab_teardown.py",
    "tests/report/test_report_browser.py"})
LAB_FIXTURES = {"small_lab"}


def stream_of(nodeid: str) -> str:
    return "lab" if nodeid.split("::", 1)[0] in LAB_FILES else "host"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that boots a guest is in a file of the lab stream."""
    astray = [item.nodeid for item in items if stream_of(item.nodeid) != "lab"
              and (item.get_closest_marker("lab") is not None or LAB_FIXTURES & set(getattr(item, "fixturenames", ())))]
    if astray:
        raise pytest.UsageError(f"lab tests outside tests/conftest.py's LAB_FILES (add their files): {astray[:5]}")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`-n 2`: the two streams, one per worker, each in collection order (xdist's own loadgroup does not group
    under pytest 9: its group rides on a node id pytest no longer lets it change)."""
    from xdist.scheduler import LoadScopeScheduling

    class TwoStreams(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return stream_of(nodeid)

    return TwoStreams(config, log)


@pytest.fixture(scope="session")
def small_lab(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, Path]:
    """One small lab guest run, as a user runs it, that several tests read: 2 x 500 GB Balanced under mdadm RAID0
    and ext4 on VM.Standard.E3.Flex:12, 3 s windows, no single volume, with its --report page. Each guest run costs
    1.5-3 minutes under TCG, so the teardown test (built, checked, nothing left) and the report's browser test (the
    page draws) share this one. Returns (the result, its runs dir, the report page)."""
    if shutil.which("qemu-system-x86_64") is None:
        pytest.skip("needs qemu")
    from support.lab import run_lab_cli

    runs = tmp_path_factory.mktemp("small-lab") / "runs"
    html = runs.parent / "lab.html"
    result = run_lab_cli(runs, "--cloud", "oci", "--layout", "2x500G@balanced", "--instance", "VM.Standard.E3.Flex:12",
                         "--manager", "mdadm", "--fs", "ext4", "--runtime", "3s", "--no-single", "--report", str(html))
    return result, runs, html


@pytest.fixture
def inproc_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Any]:
    """`inproc_cli("plan", ...)` runs the CLI in this process and returns (returncode, stdout, stderr) as
    subprocess.run would: a subprocess per call cost its 1.5-2 s start-up, 25 times over in the plan CLI tests."""
    from support.inproc import runner

    return runner(capsys)
