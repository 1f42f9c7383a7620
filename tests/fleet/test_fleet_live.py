"""Issue 24's live acceptance: node_exporter scraping this machine (every second, by a Prometheus of our own) while
blockfit's measure/ runs fio on a loop device capped by cgroup-v1 blkio; `fleet --from prometheus+…` over a window
inside the run must give targets within 10 % of the IOPS fio measured in that same run.

About 50 s: a 40 s fio run, the plan over the 20 s that end 26 s after fio's first reads.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from blockfit.measure.calibrate import CalibrateOptions, measure_point
from blockfit.schema import MeasuredPoint
from blockfit.testbed.loopdev import BLKIO_ROOT, throttled_loops
from blockfit.testbed.promserver import NODE_EXPORTER, PROMETHEUS, node_exporter, prometheus_server
from support.fleet import run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("fio") is None or not (BLKIO_ROOT / "cgroup.procs").exists()
                       or shutil.which(PROMETHEUS) is None or shutil.which(NODE_EXPORTER) is None,
                       reason="needs root, fio, cgroup-v1 blkio, prometheus and prometheus-node-exporter"),
]

IOPS_CAP = 1500
RAMP_S, WINDOW_S = 2.0, 20
RUN_S = RAMP_S + WINDOW_S + 4 + 6  # fio runs past the window's end (+4 s), the 3 scrapes after it and a margin


def reads(device: str) -> int:
    for line in Path("/proc/diskstats").read_text().splitlines():
        fields = line.split()
        if fields[2] == device:
            return int(fields[3])
    return 0


def test_live_scrape_during_fio_matches_fio() -> None:
    with throttled_loops(1, 4 * 1024**3, read_iops=IOPS_CAP, name="fleet-live") as tl:
        dev = tl.devices[0]
        with node_exporter(f"^{dev.name}$") as port, \
                prometheus_server(scrape=[f"127.0.0.1:{port}"], scrape_interval_s=1) as srv:
            measured: dict[str, MeasuredPoint | BaseException] = {}

            def fio() -> None:
                try:
                    measured["point"] = measure_point([dev.path], CalibrateOptions(launcher=tl.cgroup.launcher()),
                                                      "small", 16, ramp_s=RAMP_S, runtime_s=RUN_S)
                except BaseException as exc:  # noqa: BLE001 - reported by the test below
                    measured["point"] = exc

            start = reads(dev.name)
            runner = threading.Thread(target=fio, daemon=True)
            runner.start()
            deadline = time.monotonic() + 60
            while reads(dev.name) - start < 100 and time.monotonic() < deadline and runner.is_alive():
                time.sleep(0.1)          # fio's first reads: the run (with its warm-up) has begun
            # the window is fixed from fio's first reads (after its warm-up, well before its end), not from when
            # the plan happens to run: a busy machine that delays the plan cannot slide it past fio's run
            until = time.time() + RAMP_S + WINDOW_S + 4
            time.sleep(max(0.0, until - time.time()) + 3)   # 3 scrapes past the window's end
            code, out, err = run_cli("fleet", "--from", srv.url, "--match", 'job="node"', "--devices", dev.name,
                                     "--range", f"{WINDOW_S}s", "--step", "2s", "--percentile", "50",
                                     "--until", f"{until:.3f}",
                                     "--instance", "VM.Standard.E4.Flex:2", "--capacity", "100G", "--json")
            runner.join(timeout=RUN_S + 120)
    point = measured.get("point")
    assert isinstance(point, MeasuredPoint), point
    assert code == 0, err
    r = json.loads(out)
    [host] = r["hosts"]
    t = host["targets"]
    print(f"\nlive: fio {point.iops:,.0f} IOPS (cap {IOPS_CAP}); node_exporter p50 of {t['samples']} 2 s steps "
          f"{t['iops']:,.0f} IOPS, ratio {t['iops'] / point.iops:.3f}; read share {t['read_pct']:.1f} %")
    assert abs(t["target_iops"] / point.iops - 1) <= 0.10
    assert t["sources"][0]["members"] == [dev.name] and t["read_pct"] > 99
    assert abs(t["mbps"] - point.iops * 8192 / 1e6) <= 0.10 * point.iops * 8192 / 1e6   # 8 KiB reads
