"""The public AWR and Statspack reports in ../shared/samples/awr, read there (never copied into the project)."""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "awr"
if not SAMPLES.is_dir():
    SAMPLES = Path("/work/shared/samples/awr")
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="the public AWR samples (../shared/samples/awr)")
AWR = ["awr19c_rmgtibp_72337_72338.html", "awr18c_prdg1_rac_237812_237837.html", "awr122_bpsc_2668_2669.txt",
       "awr11204_orcl1_rac_2_3.txt", "awr11204_orcl2_rac_2_3.txt"]
STATSPACK = ["sp121_clinprd1_70371_70372.txt"]


def sample(name: str) -> tuple[Path, str]:
    path = SAMPLES / name
    return path, path.read_text(encoding="utf-8", errors="replace")


def snapshots_in_name(name: str) -> tuple[str, str]:
    """The begin and end snapshot ids the file's name carries (…_BEGIN_END.ext)."""
    begin, end = Path(name).stem.split("_")[-2:]
    return begin, end
