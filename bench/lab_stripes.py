"""Lab fidelity: for stripes of 1, 2, 4 and 8 members, measured / predicted in the emulated guest.

The prediction is the model's figure times the lab's scale; the measurement is what the capped virtio
disks deliver through LVM under TCG. A ratio near 1 means the lab reproduces the plan's limits (the
emulated "physical limit"); the target is >= 0.90 for every stripe, IOPS and MB/s alike.

Run: .venv/bin/python -m bench.lab_stripes [--runtime 6] [--members 1,2,4,8]
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from blockfit.catalog import load_catalog
from blockfit.lab import LabRequest, run_lab
from blockfit.lab.target import from_specs

TARGET = 0.90


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", type=int, default=6, help="measurement window per test, seconds")
    ap.add_argument("--members", default="1,2,4,8")
    ap.add_argument("--instance", default="VM.Standard.E3.Flex:40", help="roomy enough that the volumes bind")
    args = ap.parse_args()
    console = Console(width=170)  # the table is the result: never fold it, even when piped
    table = Table(title="blockfit lab: measured / predicted (scaled) per stripe width", title_justify="left")
    for col in ("members", "scale", "IOPS pred", "IOPS meas", "ratio", "MB/s pred", "MB/s meas", "ratio",
                "limit (model)", "limit (lab)", "guest s"):
        table.add_column(col, justify="left" if col.startswith("limit") else "right")
    worst = 10.0
    cat = load_catalog("oci")
    for n in (int(x) for x in args.members.split(",")):
        t0 = time.monotonic()
        target = from_specs(cat, f"{n}x500G@balanced", args.instance)
        r = run_lab(LabRequest(target=target, runtime_s=args.runtime, single=False),
                    progress=lambda msg, n=n: console.log(f"[{n} members] {msg}"))
        worst = min(worst, r.iops_ratio, r.mbps_ratio)
        table.add_row(str(n), f"{r.scale:g}", f"{r.predicted_iops:,.0f}", f"{r.measured_iops:,.0f}",
                      f"{r.iops_ratio:.3f}", f"{r.predicted_mbps:.1f}", f"{r.measured_mbps:.1f}", f"{r.mbps_ratio:.3f}",
                      f"{r.predicted_limited_by.iops} / {r.predicted_limited_by.mbps}",
                      f"{r.limited_by.iops} / {r.limited_by.mbps}", f"{time.monotonic() - t0:.0f}")
    console.print(table)
    verdict = "meets" if worst >= TARGET else "MISSES"
    console.print(f"worst ratio {worst:.3f}: {verdict} the {TARGET:.2f} target")


if __name__ == "__main__":
    main()
