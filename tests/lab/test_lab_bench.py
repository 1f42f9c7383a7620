"""`blockfit lab --bench`: two layouts in one guest, PostgreSQL on each, the model's ratio beside the database's."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import time
from pathlib import Path

import pytest

from blockfit.lab.bench import LabBenchRequest, sides
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.run import resolve
from support.lab import BLOCKFIT, assert_nothing_left, interrupt_lab_when, lab_env, lab_request, run_lab_cli
from support.report import check_self_contained, kinds_in_order, section_html

OCI = ("--cloud", "oci", "--instance", "VM.Standard.E3.Flex:12")
# 4 x 1000 GB balanced: each member at OCI's per-volume cap of 25,000 IOPS, so the 4,000 GB single volume (also
# at that cap) has a quarter of the stripe's aggregate caps at the same total size.
FOUR = ("--layout", "4x1000G@balanced")


@pytest.mark.parametrize(("args", "needle"), [
    (("--bench", "oltp,fast"), "fast"),
    (("--bench", "oltp", "--repeat", "0"), "--repeat"),
    (("--bench", "oltp", "--bench-vs", "zfs"), "--bench-vs"),
    (("--bench", "oltp", "--bench-vs", "lvm"), "--bench-vs lvm"),  # lvm is already --manager
    (("--bench", "oltp", "--profile", "huge"), "--profile"),
    (("--bench-vs", "mdadm"), "--bench"),  # bench options without --bench
])
def test_bad_bench_input_is_one_line_exit_2_and_creates_nothing(tmp_path: Path, args: tuple[str, ...],
                                                                  needle: str) -> None:
    runs = tmp_path / "runs"
    proc = subprocess.run([BLOCKFIT, "lab", *OCI, *FOUR, *args], capture_output=True, text=True,
                          env=lab_env(runs), stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not runs.exists() or not list(runs.iterdir())


def test_sides_single_against_stripe_and_manager_against_manager() -> None:
    lab = lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12")
    subject = resolve(lab)
    base, other = sides(LabBenchRequest(lab=lab, versus="single"), subject)
    assert (base.members, base.manager, base.size_gb) == (1, "none", 4000)
    assert (other.members, other.manager, other.size_gb) == (4, "lvm", 1000)
    assert other.iops == pytest.approx(4 * base.iops)  # over the rate caps the lab emulates
    base, other = sides(LabBenchRequest(lab=dataclasses.replace(lab, manager="mdadm"), versus="lvm"),
                        subject)
    assert (base.label, base.manager, other.label, other.manager) == ("mdadm", "mdadm", "lvm", "lvm")
    assert base.members == other.members == 4
    assert base.names != other.names  # the two build script sets name their VG / array apart


def test_lab_bench_script_gives_the_bench_the_instance_cap(tmp_path: Path) -> None:
    """The stripe's members share the instance's throttle group; the bench's evidence can only name that cap (the
    stripe's DSS writes are held there, its members at ~60 % of their own) if it is told it."""
    from blockfit.lab.session import TEMPLATES
    from support.lab import assert_valid_bash

    layouts = [{"label": "single", "serials": ["single1"], "devices": ["/dev/vda"], "mount": "/mnt/blockfit-single",
                "what": "1x4000G", "cap": "50:7.68"}]
    for instance_cap, expected in (("480:23.04", "--instance-cap 480:23.04 "), (None, None)):
        text = TEMPLATES.get_template("labbench.sh.j2").render(
            work=str(tmp_path), layouts=layouts, caps=str(tmp_path / "lab-caps"), blockfit="/x/blockfit",
            workloads="oltp-select,dss,load", profile="quick", repeat=None, instance_cap=instance_cap)
        assert_valid_bash(tmp_path / "labbench.sh", text)
        assert (re.search(r"--instance-cap \d", text) is not None) == (expected is not None)
        if expected:
            assert expected in text


# Storage held the run: a known cap, or the layout's own device busy with a queue below it (the emulator's throttles
# delivered 76-100 % of the stripe's instance cap to DSS from run to run, its dm-0 busy all the while).
IO_HELD = ("iops_cap", "mbps_cap", "instance_cap", "device_busy")


@pytest.mark.slow
@pytest.mark.lab
def test_stripe_beats_single_volume_on_oltp_and_dss_quick_profile_all_three_workloads(tmp_path: Path) -> None:
    """Issue 12's lab acceptance, quick profile, the three workloads (select-only OLTP, DSS, load): single volume vs
    a 4-way stripe with 4x its aggregate caps. The stripe wins OLTP and DSS with CIs above 1, each layout's DSS runs
    held by an I/O cap (not CPU), the model's ratio beside each measured one, its members' select-only load even;
    load completes with rows/s per step (fsync-bound: no winner is expected). TPC-B is not run: nothing asserts it,
    and it cost CI minutes. --repeat 3: one look after 3 pairs, where select-only and DSS were decided in every
    recorded run ([3.70, 3.85], [2.21, 3.16]; one look needs no Bonferroni share, so its interval is the narrower),
    and load, which always runs to --repeat, runs 3 pairs instead of 5."""
    runs = tmp_path / "runs"
    started = time.monotonic()
    report = tmp_path / "lab-bench.html"
    r = run_lab_cli(runs, *OCI, *FOUR, "--bench", "oltp-select,dss,load", "--repeat", "3", "--report", str(report),
                    timeout=5400)  # the guest's own safety net: 90 min
    wall = time.monotonic() - started
    bench = r["bench"]
    bindings = {(lay["label"], m["measure"]): [x["evidence"]["binding"] for x in m["runs"] if x.get("evidence")]
                for lay in bench["layouts"] for m in lay["measures"]}
    print(f"lab bench quick, single vs 4-way stripe, oltp-select,dss,load: {wall:.0f} s wall "
          f"(guest {r['guest_seconds']:.0f} s)")
    for x in r["ratios"]:
        print(f"  {x['measure']}: model {x['predicted_ratio']:.2f}, measured {x['measured_ratio']:.2f} "
              f"[{x['ci_low']:.2f}, {x['ci_high']:.2f}], members delivered {x['device_ratio']:.2f} (cap use "
              f"{x['other_cap_use']:.3f} / {x['baseline_cap_use']:.3f}), {x['verdict']}, "
              f"I/O-bound runs {x['io_bound_runs']}")
    print(f"  bindings: {bindings}; stripe member balance {r['other']['member_balance']}")
    assert r["kind"] == "lab-bench"
    assert r["cap_changes"] == ["lift ok", "apply ok"]  # loaded uncapped, measured capped
    ratios = {x["measure"]: x for x in r["ratios"]}
    # the model's ratio beside the measured one: IOPS for OLTP (4x), MB/s for DSS (the stripe's 4 x 480 MB/s meets
    # the instance's 1,440: 3x)
    for measure, predicted in (("oltp-select", 4.0), ("dss", 3.0)):
        x = ratios[measure]
        assert x["verdict"] == "faster", x  # the stripe (the other layout) wins, its CI excluding "no difference"
        assert x["ci_low"] > 1.0, x
        assert x["predicted_ratio"] == pytest.approx(predicted, rel=0.01)
        assert x["device_ratio"] > 1.0, x  # the stripe's members delivered more: the win is theirs
        assert x["other_cap_use"] <= 1.05 and x["baseline_cap_use"] <= 1.05, x  # no layout ran past its caps
    # select-only's 8 sessions keep a read queued at the single volume: by the bench's own evidence (the median of a
    # run's intervals at >= 90 % of the cap) its runs are held at the IOPS cap. Not the run-wide mean against the cap:
    # that is an absolute rate, and a host test beside the guest (CI's other stream) starves the emulator for moments
    # (one CI run: a mean of 0.83 of the cap while each of its 3 runs was held at the cap by this evidence)
    held = bindings[("single", "oltp-select")]
    assert sum(b == "iops_cap" for b in held) * 2 > len(held), held
    # I/O-bound by the bench's own evidence, not by assumption: each layout's DSS runs mostly held by storage (the
    # single volume at its MB/s cap, the stripe at the instance's or its dm device busy below it), so the win is the
    # layout's, not the CPU's
    for label in ("single", "stripe"):
        held = bindings[(label, "dss")]
        assert sum(b in IO_HELD for b in held) * 2 > len(held), (label, held)
    load = ratios["load"]
    assert load["verdict"] not in ("failed",), load  # completes; a winner is not expected (fsync-bound)
    for lay in bench["layouts"]:
        m = next(m for m in lay["measures"] if m["measure"] == "load")
        assert m["runs"] and all(s["rows_per_s"] > 0 for x in m["runs"] for s in x["steps"]), lay["label"]
    # 8 KiB random reads spread over all 4 members: least / most by I/O counts. The bench stripes with a unit
    # scaled with its data (256 KiB here: 206 units of the 54 MB pgbench_accounts_pkey, 1,288 of the 322 MB heap),
    # not the plan's 4 MiB (13.5 units of the pkey gave 0.65-0.88); measured 0.925 and 0.913.
    assert r["other"]["stripe_size"] == 256 * 1024, r["other"]
    assert r["other"]["member_balance"]["oltp-select"] >= 0.8, r["other"]
    html = report.read_text()  # --report wrote the lab-bench section beside the printed JSON
    check_self_contained(html)
    assert kinds_in_order(html) == ["lab-bench"]
    assert "lab-bench-ratios" in section_html(html, "lab-bench")
    assert_nothing_left(runs)


@pytest.mark.slow
@pytest.mark.lab
@pytest.mark.parametrize("phase", ["building"])
def test_interrupt_at_any_phase_leaves_nothing(tmp_path: Path, phase: str) -> None:
    """Ctrl-C while the layouts are built: no qemu, socket, disk file or work dir left."""
    ensure_kernel()
    qmp_before = set(Path("/tmp").glob("blockfit-qmp-*"))
    runs = tmp_path / "runs"
    code, err = interrupt_lab_when(runs, [*OCI, "--layout", "2x500G@balanced", "--bench", "oltp", "--json"],
                                   phase, 900)
    assert code == 130, err
    assert_nothing_left(runs)
    assert set(Path("/tmp").glob("blockfit-qmp-*")) <= qmp_before, "a QMP socket dir outlived the run"
