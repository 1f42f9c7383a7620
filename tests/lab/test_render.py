"""The guest's scripts rendered from lab/templates/: valid bash, in the right order, and the guest's measure()
run here on the host."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.lab import assert_valid_bash, render_lab_script


def test_rendered_guest_script_is_valid_bash(tmp_path: Path) -> None:
    combos = [("lvm", "xfs", True), ("mdadm", "ext4", True), ("lvm", "ext4", False), ("mdadm", "xfs", False)]
    for manager, fs, use_build in combos:
        text = render_lab_script(tmp_path, use_build=use_build, rerun_check=use_build, manager=manager, fs=fs)
        assert_valid_bash(tmp_path / f"{manager}-{fs}.sh", text)
        # lifted for the build and the emulator's own speed, fitted before the capped windows
        order = [text.index(x) for x in ("lab-caps lift", "measure ref-single-iops", "measure ref-stripe-mbps",
                                         "lab-caps fit", "measure single-iops", "measure stripe-mbps")]
        assert order == sorted(order)


def test_rendered_lab_bench_script_is_valid_bash(tmp_path: Path) -> None:
    from blockfit.lab.session import TEMPLATES

    layouts = [{"label": "single", "serials": ["single1"], "devices": ["/dev/vda"], "mount": "/mnt/blockfit-single",
                "what": "1x4000G", "cap": "100:6"},
               {"label": "stripe", "serials": ["stripe1", "stripe2"], "devices": ["/dev/vdb", "/dev/vdc"],
                "mount": "/mnt/blockfit-stripe", "what": "2x2000G", "cap": "100:6"}]
    text = TEMPLATES.get_template("labbench.sh.j2").render(
        work=str(tmp_path), layouts=layouts, caps=str(tmp_path / "caps" / "lab-caps"), blockfit="/x/blockfit",
        workloads="oltp,dss", profile="quick", repeat=3)
    assert_valid_bash(tmp_path / "labbench.sh", text)
    assert "--dir /mnt/blockfit-single=single --cap single=100:6 --dir /mnt/blockfit-stripe=stripe" in text
    assert text.index("lab-caps lift") < text.index("build-single/run-all.sh")  # build and load uncapped


def test_rendered_guest_script_with_paths_builds_multipath_maps(tmp_path: Path) -> None:
    text = render_lab_script(tmp_path, expected_devices=["/dev/mapper/bfmp_m1", "/dev/mapper/bfmp_m2"], members=2,
                             member_serials=["m1", "m2"], stripe_kib=1024, paths=4)
    assert 'multipath 0 0 1 1 round-robin 0 4 1$table' in text and "BLOCKFIT_SKIP_MULTIPATH=0" in text
    assert_valid_bash(tmp_path / "paths.sh", text)


FAKE_FIO = """#!{python}
# a stand-in for fio: moves the device's counters (I/Os, sectors) every 20 ms until SIGINT, as fio's reads would
import os, signal, sys, time
stat, n = {stat!r}, 0


def stop(*_):
    with open({caps_log!r}, "a") as fh:  # when fio was stopped, among the cap requests
        fh.write("fio stopped\\n")
    sys.exit(0)


signal.signal(signal.SIGINT, stop)
while True:
    n += 40
    with open(stat + ".tmp", "w") as fh:
        fh.write(f"{{n}} 0 {{n * 16}} 0 0 0 0 0 0 0 0\\n")
    os.replace(stat + ".tmp", stat)
    time.sleep(0.02)
"""


LOGGED = """#!/bin/bash
echo "$(basename "$0")" >> {log}
exec {real} "$@"
"""


def test_a_measurement_waits_without_starting_a_process_per_wait(tmp_path: Path) -> None:
    """Under TCG every exec costs the guest 0.1-0.4 s of a loaded host: the waits inside a measurement (fio's first
    I/O, the ramp, each sub-window, the host's stop check) must not start one, or a 1 s reference sub-window
    becomes 4-5 s (ten `sleep 0.1` per stop check). The guest's own measure() runs here on the host over a fake
    device's counters and a stand-in fio; every process it starts is logged: a few per measurement, none per wait.
    The last measurement lifts the caps before it stops fio (its queue then drains at the emulator's speed); the
    one before it stops fio under the caps."""
    import shutil
    import sys

    from support.lab import render_lab_script

    text = render_lab_script(tmp_path)
    start, end = text.index("snap() {"), text.index("\n}\n", text.index("measure() {")) + 3
    helpers = text[start:end]
    assert '"/sys/dev/block/$1/stat"' in helpers  # the counters read: the fake device's instead
    helpers = helpers.replace('"/sys/dev/block/$1/stat"', '"$STATS/$1"')
    stats, shims, log, work = (tmp_path / d for d in ("stats", "shims", "execs.log", "work"))
    for d in (stats, shims, work):
        d.mkdir()
    (stats / "1:3").write_text("0 0 0 0 0 0 0 0 0 0 0\n")  # /dev/null's numbers stand for the measured device
    for name in ("sleep", "cut", "stat", "rm", "tail"):
        real = shutil.which(name)
        assert real is not None
        (shims / name).write_text(LOGGED.format(log=log, real=real))
    caps_log = tmp_path / "caps-requests.log"
    (tmp_path / "caps").mkdir()
    (tmp_path / "caps" / "lab-caps").write_text(f'#!/bin/bash\necho "$1" >> {caps_log}\n')
    (tmp_path / "caps" / "lab-caps").chmod(0o755)
    (shims / "fio").write_text(FAKE_FIO.format(python=sys.executable, stat=str(stats / "1:3"), caps_log=str(caps_log)))
    for shim in shims.iterdir():
        shim.chmod(0o755)
    (work / "fio-job.job").write_text("")
    harness = (f"set -uo pipefail\nW={work}\nSTATS={stats}\nPATH={shims}:$PATH\n"
               'progress() { :; }\nfail() { echo "FAIL: $*" >&2; exit 1; }\n'
               f"{helpers}\n"
               # RAMP 0.2 s, sub-windows of 0.2 s, at least 3, at most 5: two stop checks of up to ten naps each
               "measure ref-x job /dev/null 0.2 0.2 3 5\n"
               "measure last-x job /dev/null 0.2 0.2 3 3 lift\n")
    proc = subprocess.run(["bash", "-c", harness], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    snaps = (work / "rate-ref-x.txt").read_text().splitlines()
    assert len(snaps) == 6  # the window's start and five sub-windows: no stop file, so MOST of them
    ios = [int(line.split()[1]) for line in snaps]
    assert all(b > a for a, b in zip(ios, ios[1:], strict=False)), snaps  # the fake fio moved the counters throughout
    execs = log.read_text().split() if log.exists() else []
    assert sorted(execs) == ["rm", "rm", "stat", "stat"], execs  # once per measurement: its device, its old files
    assert caps_log.read_text().splitlines() == ["fio stopped", "lift", "fio stopped"]
    last = [line for line in text.splitlines() if line.startswith("measure ")][-4:]
    assert [line.endswith(" lift") for line in last] == [False, False, False, True], last  # the last window only
