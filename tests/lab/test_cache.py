"""Where the lab keeps its cache and its runs: folders qemu's options and the guest's command line can carry."""

from __future__ import annotations

import subprocess
import sys

import pytest

from blockfit.errors import InputError
from blockfit.lab.cache import cache_dir, runs_dir


@pytest.mark.parametrize(("variable", "value"), [("BLOCKFIT_LAB_RUNS", "/srv/lab,runs"),
                                                  ("BLOCKFIT_LAB_RUNS", "/srv/lab runs"),
                                                  ("BLOCKFIT_LAB_RUNS", "/srv/lab\nruns"),
                                                  ("BLOCKFIT_LAB_CACHE", "/srv/a,b"),
                                                  ("XDG_CACHE_HOME", "/home/x y/.cache")])
def test_a_folder_qemu_would_split_is_refused(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    """A comma split qemu's -virtfs/-blockdev options (`path=/srv/lab,runs/...` is a path and an option `runs/...`)
    and a blank the kernel command line's blockfit.work=: refused, naming where the folder came from."""
    for name in ("BLOCKFIT_LAB_RUNS", "BLOCKFIT_LAB_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    with pytest.raises(InputError, match=r"expected a folder path without commas, blanks or control characters"
                       ) as err:
        runs_dir()
    assert "\n" not in str(err.value)
    assert (variable if variable.startswith("BLOCKFIT") else "XDG_CACHE_HOME or HOME") in str(err.value)


def test_plain_folders_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLOCKFIT_LAB_CACHE", "/srv/lab-cache_1.0")
    monkeypatch.delenv("BLOCKFIT_LAB_RUNS", raising=False)
    assert str(cache_dir()) == "/srv/lab-cache_1.0" and str(runs_dir()) == "/srv/lab-cache_1.0/runs"


def test_the_cli_says_it_in_one_line_before_any_guest() -> None:
    run = subprocess.run([sys.executable, "-m", "blockfit", "lab", "--cloud", "oci", "--layout", "2x500G@balanced",
                          "--instance", "VM.Standard.E4.Flex:4", "--json"], capture_output=True, text=True,
                         timeout=120, env={"PATH": "/usr/bin:/bin", "BLOCKFIT_LAB_RUNS": "/srv/a,b", "HOME": "/root"})
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "BLOCKFIT_LAB_RUNS '/srv/a,b'" in run.stderr and not run.stdout
