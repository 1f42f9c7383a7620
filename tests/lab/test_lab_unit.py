"""Fast checks of the lab's pieces that need no guest: scale, qemu command line, initramfs, templates, CLI input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import InputError
from blockfit.lab.bench import LabBenchRequest, member_balance
from blockfit.lab.disks import Disk, Throttle, create, disk_bytes
from blockfit.lab.figures import emulated_limit, nearest_limit
from blockfit.lab.initramfs import newc_archive
from blockfit.lab.qemu import VmConfig, command
from blockfit.lab.run import iodepth_for, resolve
from blockfit.lab.scale import IOPS_BUDGET, MBPS_BUDGET, choose_scale, parse_scale
from blockfit.schema.bench import (
    BenchResult,
    BenchRun,
    BenchSettings,
    DeviceEvidence,
    LayoutInfo,
    MeasureResult,
    RunEvidence,
)
from blockfit.units import KIB
from support.lab import assert_valid_bash, lab_request, render_lab_script

rates = st.floats(min_value=1.0, max_value=5e6, allow_nan=False)


@given(st.lists(rates, min_size=1, max_size=4), st.lists(rates, min_size=1, max_size=4))
def test_scale_keeps_totals_within_budget_and_is_not_needlessly_small(iops: list[float], mbps: list[float]) -> None:
    f = choose_scale(iops, mbps)
    assert 0 < f <= 1
    assert max(iops) * f <= IOPS_BUDGET * (1 + 1e-9)
    assert max(mbps) * f <= MBPS_BUDGET * (1 + 1e-9)
    if f < 1:  # rounded down to two significant digits: never more than ~10 % below the exact factor
        exact = min(IOPS_BUDGET / max(iops), MBPS_BUDGET / max(mbps))
        assert f >= exact * 0.9 - 1e-12


@pytest.mark.parametrize("bad", ["0", "-1", "1.5", "fast", ""])
def test_parse_scale_rejects_bad_factors(bad: str) -> None:
    with pytest.raises(InputError, match=r"expected ('auto' or )?a factor in \(0, 1\]") as caught:
        parse_scale(bad)
    assert str(caught.value).startswith(repr(bad))   # the value; the command line names --scale


def test_parse_scale_auto_and_number() -> None:
    assert parse_scale("auto") is None
    assert parse_scale("0.02") == 0.02


def _cfg(tmp_path: Path, n: int, instance: Throttle | None) -> VmConfig:
    disks = [Disk(f"m{i}", tmp_path / f"m{i}.raw", 1 << 28, Throttle(f"vol_m{i}", 100 + i, 1_000_000, 262144))
             for i in range(1, n + 1)]
    return VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                    script=tmp_path / "script.sh", disks=disks, instance=instance, console_log=tmp_path / "c.log")


def test_qemu_stacks_a_volume_and_a_shared_instance_throttle_on_every_disk(tmp_path: Path) -> None:
    argv = command(_cfg(tmp_path, 3, Throttle("instance", 250, 2_000_000)))
    joined = " ".join(argv)
    assert "-accel tcg,thread=multi" in joined and "-cpu max" in joined
    groups = [argv[i + 1] for i, a in enumerate(argv) if a == "-object"]
    assert sum(g.startswith("throttle-group,id=instance,") for g in groups) == 1  # one shared instance group
    assert "throttle-group,id=vol_m2,x-iops-total=102,x-bps-total=1000000,x-iops-size=262144" in groups
    nodes = [argv[i + 1] for i, a in enumerate(argv) if a == "-blockdev" and "driver=throttle" in argv[i + 1]]
    assert len(nodes) == 6  # two throttle filter nodes per disk
    for i in range(3):  # the instance node sits on top of the volume node, and the device uses the top node
        assert f"driver=throttle,node-name=d{i}v,throttle-group=vol_m{i + 1},file=d{i}r" in nodes
        assert f"driver=throttle,node-name=d{i}i,throttle-group=instance,file=d{i}v" in nodes
        assert f"virtio-blk-pci,drive=d{i}i,serial=m{i + 1}" in argv


def test_qemu_without_instance_cap_uses_the_volume_node(tmp_path: Path) -> None:
    argv = command(_cfg(tmp_path, 2, None))
    assert "virtio-blk-pci,drive=d1v,serial=m2" in argv
    assert not any("throttle-group=instance" in a for a in argv)


@pytest.mark.skipif(not shutil.which("cpio"), reason="cpio not installed")
def test_newc_archive_is_read_back_by_cpio(tmp_path: Path) -> None:
    data = newc_archive([("bin", 0o040755, b"", 0), ("bin/hello", 0o100755, b"echo hi\n", 0),
                         ("odd-name.x", 0o100644, b"x" * 1001, 0)])
    proc = subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"], input=data, cwd=tmp_path,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "bin" / "hello").read_bytes() == b"echo hi\n"
    assert (tmp_path / "odd-name.x").stat().st_size == 1001
    assert (tmp_path / "bin" / "hello").stat().st_mode & 0o777 == 0o755


def test_iodepth_grows_with_members_within_bounds() -> None:
    assert iodepth_for(1, "iops") == 32
    assert iodepth_for(9, "iops") == 144
    assert iodepth_for(64, "iops") == 256
    assert iodepth_for(9, "mbps") == 72


def test_disk_sizes_are_clamped() -> None:
    assert disk_bytes(1) == 512 << 20
    assert disk_bytes(600) == 600 << 20
    assert disk_bytes(10**6) == 16 << 30


def test_nearest_limit_names_the_model_limit_the_rate_sits_on() -> None:
    subject = resolve(lab_request(cloud="oci", layout="9x500G@balanced", instance="VM.Standard.E3.Flex:20"))
    p = subject.stripe
    f = 0.01
    # the lab compares against the limits it emulates (rate caps); queueing limits depend on cloud latency
    (iops_name, iops_value), (mbps_name, mbps_value) = emulated_limit(p, "iops"), emulated_limit(p, "mbps")
    assert iops_name.startswith(("volume", "instance")) and mbps_name.startswith(("volume", "instance"))
    assert iops_value >= p.max_iops and mbps_value >= p.max_mbps
    assert nearest_limit(p, iops_value * f * 1.015, "iops", f, None, None) == iops_name
    assert nearest_limit(p, mbps_value * f * 0.98, "mbps", f, None, None) == mbps_name
    instance_row = next(r for r in p.limits if r.name == "instance_mbps")
    assert nearest_limit(p, instance_row.mbps * f, "mbps", f, None, None) == "instance_mbps"


def test_bench_stripe_unit_is_the_smallest_whole_unit_io_the_mbps_cap_holds() -> None:
    """4x1000G@balanced at the bench's scales: 50 IOPS and 7.68 MB/s a member, so an I/O costs an IOPS slot before
    it costs bandwidth up to 150 KiB; 256 KiB is the first power of two past that (the plan's 4 MiB left the 54 MB
    pkey in 13.5 units over 4 members)."""
    from blockfit.lab.bench import _member_cap, bench_stripe, sides
    from blockfit.lab.scale import Scale
    from blockfit.units import KIB, MIB

    lab = lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12")
    subject = resolve(lab)
    _base, other = sides(LabBenchRequest(lab=lab), subject)
    cap = _member_cap(other, Scale(iops=0.002, mbps=0.016))
    assert (cap.iops, cap.bps) == (50, 7_680_000)
    unit = bench_stripe(cap)
    assert unit == 256 * KIB
    assert unit * cap.iops > cap.bps > unit // 2 * cap.iops  # a whole unit is MB/s-bound, half of one is not
    assert bench_stripe(Throttle("m", None, 10**6)) == 64 * KIB  # no IOPS cap: the planner's floor
    assert bench_stripe(Throttle("m", 1, 10**9)) == 4 * MIB  # never beyond the plan's unit
    assert subject.stripe_size == 4 * MIB  # raw lab keeps the plan's unit


def test_stripe_size_reaches_the_plan_and_the_build_scripts(tmp_path: Path) -> None:
    """--stripe-size replaces the plan's unit; `blockfit build` stripes and aligns the filesystem with it."""
    from blockfit.lab.buildscripts import plan_for

    subject = resolve(lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12",
                                 stripe_size=256 << 10))
    assert subject.stripe_size == 256 << 10
    plan = tmp_path / "plan.json"
    plan.write_text(plan_for(subject).model_dump_json())
    out = tmp_path / "build"
    proc = _cli("build", "--plan", str(plan), "--manager", "lvm", "--devices", "/dev/vdb,/dev/vdc,/dev/vdd,/dev/vde",
                "--fs", "xfs", "--mount", "/mnt/blockfit-stripe",
                "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    scripts = "".join(p.read_text() for p in out.glob("*.sh"))
    assert "STRIPE_BYTES=262144" in scripts and "STRIPES=4" in scripts
    assert "su=256k,sw=4" in scripts
    with pytest.raises(InputError, match="^98304: expected a power of two"):   # the CLI names --stripe-size
        resolve(lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12",
                           stripe_size=96 << 10))


def test_single_alternative_is_one_volume_of_the_same_total_size() -> None:
    subject = resolve(lab_request(cloud="oci", layout="9x500G@balanced", instance="VM.Standard.E3.Flex:12"))
    assert subject.single is not None
    assert subject.single.layout_detail.members == 1
    assert subject.single.layout_detail.volume.size_gb == 4500


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


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "blockfit"), *args], capture_output=True, text=True)


@pytest.mark.parametrize("args,needle", [
    (["--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--fs", "zfs"], "--fs"),
    (["--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--manager", "asm"],
     "--manager"),
    (["--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--scale", "2"],
     "--scale"),
    (["--cloud", "oci", "--layout", "9x500G@balanced"], "--instance"),
    (["--cloud", "nope", "--layout", "9x500G@balanced", "--instance", "x"], "--cloud"),
    (["--plan", "/nonexistent/plan.json"], "--plan"),
    *[(["--cloud", "oci", "--layout", "4x1000G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--stripe-size",
        size, *bench], "--stripe-size")
      for size in ("96k", "32k", "8m", "4k", "0") for bench in ((), ("--bench", "oltp"))],
])
def test_cli_bad_input_is_one_line_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    proc = _cli("lab", *args)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_guest_device_names_follow_the_kernels_virtio_naming() -> None:
    from blockfit.lab.buildscripts import guest_device_names

    names = guest_device_names(28)
    assert names[:3] == ["/dev/vda", "/dev/vdb", "/dev/vdc"]
    assert names[25:] == ["/dev/vdz", "/dev/vdaa", "/dev/vdab"]


def test_plan_file_is_resolved_as_its_first_candidate(tmp_path: Path) -> None:
    from blockfit.schema import Plan

    out = tmp_path / "plan.json"
    proc = subprocess.run([str(Path(sys.executable).parent / "blockfit"), "plan", "--example", "part3", "--out",
                           str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    best = Plan.model_validate_json(out.read_text()).candidates[0]
    subject = resolve(lab_request(plan=out))
    assert subject.layout == best.layout_detail
    assert subject.stripe_size == best.layout_detail.stripe_size
    assert subject.stripe.max_iops == pytest.approx(best.max_iops, rel=1e-6)
    assert subject.instance.spec == best.instance


def test_a_plan_whose_stripe_the_build_cannot_make_is_input_error(tmp_path: Path) -> None:
    """`blockfit build` stripes with a power of two: a hand-edited 96 KiB plan is refused before the guest boots
    (it used to fail inside the run, exit 5), and --stripe-size replaces it."""
    out = tmp_path / "plan.json"
    proc = _cli("plan", "--example", "part3", "--json")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    plan["candidates"][0]["prediction"]["layout_detail"]["stripe_size"] = 96 * KIB
    out.write_text(json.dumps(plan))
    proc = _cli("lab", "--plan", str(out))
    assert proc.returncode == 2 and "--plan" in proc.stderr and "power of two" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert resolve(lab_request(plan=out, stripe_size=256 * KIB)).stripe_size == 256 * KIB


def test_not_a_plan_file_is_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "plan.json"
    bad.write_text("{\"hello\": 1}")
    proc = _cli("lab", "--plan", str(bad))
    assert proc.returncode == 2 and "--plan" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------- paths (issue 16)
def test_qemu_gives_each_path_its_own_capped_device_over_one_volume_chain(tmp_path: Path) -> None:
    disk = Disk("m1", tmp_path / "m1.raw", 1 << 28, Throttle("vol_m1", 400, 8_000_000), paths=4,
                path_throttle=Throttle("path_m1", 100, 2_000_000))
    cfg = VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                   script=tmp_path / "script.sh", disks=[disk], instance=Throttle("instance", 1000, None),
                   console_log=tmp_path / "c.log")
    argv = command(cfg)
    files = [a for a in argv if a.startswith("driver=file,")]
    assert len(files) == 1  # one image, one chain: file -> volume throttle -> instance throttle
    groups = [argv[i + 1] for i, a in enumerate(argv) if a == "-object"]
    for k in range(1, 5):
        assert f"throttle-group,id=path_m1_{k},x-iops-total=100,x-bps-total=2000000" in groups
        # each path's node sits on the chain's top (the instance node) and carries one guest device
        assert f"driver=throttle,node-name=d0p{k},throttle-group=path_m1_{k},file=d0i" in argv
        assert f"virtio-blk-pci,drive=d0p{k},serial=m1-p{k},share-rw=on" in argv
    assert sum(a.startswith("virtio-blk-pci") for a in argv) == 4
    assert disk.path_serials() == ["m1-p1", "m1-p2", "m1-p3", "m1-p4"]
    plain = Disk("m2", tmp_path / "m2.raw", 1 << 28, None)
    assert plain.path_serials() == ["m2"] and not plain.multipath


@pytest.mark.skipif(not shutil.which("qemu-system-x86_64"), reason="qemu not installed")
def test_qemu_accepts_several_path_devices_on_one_node(tmp_path: Path) -> None:
    """qemu itself parses the path chain (frozen at start, -S): share-rw lets two devices write one image."""
    disk = Disk("m1", tmp_path / "m1.raw", 1 << 26, Throttle("vol_m1", 400, None), paths=2,
                path_throttle=Throttle("path_m1", 100, None))
    create([disk])
    argv = command(VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                            script=tmp_path / "s.sh", disks=[disk], instance=None, console_log=tmp_path / "c.log"))
    start = argv.index("-name")
    disk_args = argv[argv.index("-virtfs", start) + 4:]  # the disk chain only (no kernel: -S never boots)
    proc = subprocess.run(["qemu-system-x86_64", "-nodefaults", "-display", "none", "-S", "-accel", "tcg",
                           "-monitor", "stdio", *disk_args], input="info block\nquit\n", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("d0p") >= 2 and "share" not in proc.stderr


def test_rendered_guest_script_with_paths_builds_multipath_maps(tmp_path: Path) -> None:
    text = render_lab_script(tmp_path, expected_devices=["/dev/mapper/bfmp_m1", "/dev/mapper/bfmp_m2"], members=2,
                             member_serials=["m1", "m2"], stripe_kib=1024, paths=4)
    assert 'multipath 0 0 1 1 round-robin 0 4 1$table' in text and "BLOCKFIT_SKIP_MULTIPATH=0" in text
    assert_valid_bash(tmp_path / "paths.sh", text)


def test_paths_reach_the_prediction_and_the_emulation() -> None:
    from blockfit.lab.run import emulated_paths

    base = dict(cloud="oci", layout="1x1000G@120vpu", instance="VM.Standard.E4.Flex:32")
    four = resolve(lab_request(**base, paths=4))  # type: ignore[arg-type]
    assert four.layout.paths == 4 and four.stripe.paths == 4 and emulated_paths(four) == 4
    assert four.single is not None and four.single.paths == 4
    plain = resolve(lab_request(**base))  # type: ignore[arg-type]
    assert emulated_paths(plain) is None  # no --paths/--attachment: disks as before, no multipath
    with pytest.raises(InputError, match="^2 paths: attachments with paths are modelled for oci, not aws"):
        resolve(lab_request(cloud="aws", layout="2x500G@gp3", instance="m5.12xlarge", paths=2))


@pytest.mark.parametrize("value", ["0", "9"])
def test_cli_paths_out_of_range_is_one_line_exit_2(value: str) -> None:
    proc = _cli("lab", "--cloud", "oci", "--layout", "1x1000G@120vpu", "--instance", "VM.Standard.E4.Flex:32",
                "--paths", value)
    assert proc.returncode == 2 and "--paths" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_window_rate_is_the_median_of_sub_windows(tmp_path: Path) -> None:
    from blockfit.lab.windows import window_rate

    # four 2-second sub-windows at 100 IOPS / 1 MB/s, one of them stalled by the host (10 IOPS)
    rows, t, reads, sectors = [], 0.0, 0, 0
    for rate in (100, 100, 10, 100):
        rows.append(f"{t} {reads} {sectors}")
        t, reads, sectors = t + 2, reads + rate * 2, sectors + rate * 2 * 1_000_000 // 100 // 512
    rows.append(f"{t} {reads} {sectors}")
    path = tmp_path / "rate-x.txt"
    path.write_text("\n".join(rows) + "\n")
    iops, mbps = window_rate(path, "iops"), window_rate(path, "mbps")
    assert iops.value == pytest.approx(100) and mbps.value == pytest.approx(1.0, rel=0.01)
    assert iops.windows == 4 and iops.spread is not None and iops.spread > 0  # the stall is spread, not median
    path.write_text("5.0 10 10\n5.0 20 20\n")
    with pytest.raises(ValueError, match="empty measurement window"):
        window_rate(path, "iops")


def _bench_with_member_ios(per_measure: dict[str, list[tuple[int, int]]]) -> BenchResult:
    """A bench result of one layout 'stripe' whose runs saw members a and b complete these I/Os, per measure."""
    measures = []
    for name, runs in per_measure.items():
        measures.append(MeasureResult(measure=name, unit="TPS", higher_is_better=True, runs=[  # type: ignore[arg-type]
            BenchRun(index=i + 1, started_s=0, seconds=30, score=1, evidence=RunEvidence(
                cpu_busy_pct=10, binding="iops_cap", binding_detail="", io_bound=True,
                devices=[DeviceEvidence(device=dev, role="member", read_iops=n / 30, write_iops=0, mbps=0,
                                        r_await_ms=1, w_await_ms=0, aqu_sz=1, util_pct=90, ios=n)
                         for dev, n in zip(("vdb", "vdc"), pair, strict=True)]))
            for i, pair in enumerate(runs)]))
    settings = BenchSettings(profile="quick", repeat=3, looks_at=[3], memory_limit_bytes=1 << 30, postgres={},
                             oltp_scale=20, oltp_clients=4, run_seconds=30, warmup_seconds=5, dss_rows=0,
                             load_steps=[])
    return BenchResult(started="", duration_s=1, postgres_version="15", measures=list(per_measure),  # type: ignore[arg-type]
                       settings=settings, layouts=[LayoutInfo(label="stripe", dir="/x", mount_point="/x",
                                                              fstype="xfs", source="/dev/vg/lv", devices=[],
                                                              measures=measures)])


def test_member_balance_is_per_measure_over_the_ios_of_all_its_runs() -> None:
    """Select-only (even over the runs, one uneven run) and TPC-B (uneven): each measure on its own, by I/O counts
    summed over its runs (the per-second medians pooled over both measures made the figure noise)."""
    bench = _bench_with_member_ios({"oltp-select": [(1000, 950), (700, 1000), (1300, 960)],
                                    "oltp-tpcb": [(100, 50), (110, 40), (90, 60)]})
    balance = member_balance(bench, "stripe")
    assert balance["oltp-select"] == pytest.approx(2910 / 3000, abs=0.001)
    assert balance["oltp-tpcb"] == pytest.approx(150 / 300, abs=0.001)
    assert member_balance(bench, "single") == {}


def test_a_checkout_under_tmp_is_bound_back_into_the_guest() -> None:
    """The guest mounts a fresh tmpfs on /tmp: /tmp's child holding the venv or the source is bound back in (once),
    nothing elsewhere, never /tmp itself (test_lab_caps checks it in a real guest)."""
    from blockfit.lab.guest import under_tmp

    assert under_tmp([Path("/tmp/clone/.venv"), Path("/tmp/clone/src/blockfit"), Path("/work/x/.venv"),
                      Path("/tmp")]) == ["/tmp/clone"]
    assert under_tmp([Path("/root/.venv")]) == []


def test_the_lab_takes_what_the_cli_parsed_once() -> None:
    """Issue 25, parse at the edge: the CLI reads the plan and parses the specs on the catalog loaded once
    (lab.target); nothing else under lab/ parses a spec, loads a catalog or reads a plan file again."""
    import re

    import blockfit.lab

    lab_dir = Path(blockfit.lab.__file__).parent
    offenders = [f"{p.name}: {m.group(0)}" for p in sorted(lab_dir.glob("*.py")) if p.name != "target.py"
                 for m in re.finditer(r"\b(parse_layout|parse_instance|resolve_catalog|load_catalog|read_plan|"
                                      r"Plan\.model_validate\w*)\b", p.read_text())]
    assert offenders == []
    req = lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12")
    assert resolve(req).cat is req.target.cat  # the predictions use the catalog the edge loaded


@pytest.mark.parametrize("broken", [None, "raid1"])
def test_init_loads_the_late_modules_in_one_modprobe_and_names_one_that_fails(tmp_path: Path,
                                                                            broken: str | None) -> None:
    """Each chroot + modprobe exec costs a TCG guest's boot about 0.3 s: all late modules go to one modprobe, and
    only when it fails is each tried on its own, so the console still names the one that is missing. The init's
    module block runs here under sh, with chroot a stand-in that logs each call."""
    from blockfit.lab.initramfs import LATE_MODULES, render_init
    from blockfit.lab.kernel import GuestKernel

    kernel = GuestKernel(version="6.1.0-test-amd64", root=tmp_path / "root", vmlinux=tmp_path / "vmlinux")
    text = render_init(kernel, [tmp_path / "virtio_pci.ko"])
    assert "if ! chroot $R /sbin/modprobe -a " in text, "each late module gets a modprobe exec of its own"
    block = text[text.index("if ! chroot $R /sbin/modprobe"):]
    block = block[:block.index("\nfi\n") + 4]
    log = tmp_path / "calls"
    stub = (f'chroot() {{ shift; echo "$*" >> {log}; for m in "$@"; do [ "$m" = "{broken or "-"}" ] && return 1; '
            'done; return 0; }\nsay() { echo "blockfit-lab: $*"; }\nR=/newroot\n')
    out = subprocess.run(["sh", "-c", stub + block], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "/sbin/modprobe -a " + " ".join(LATE_MODULES)
    if broken is None:
        assert calls == calls[:1] and out.stdout == ""  # one exec on the way every guest boots
    else:
        assert calls[1:] == [f"/sbin/modprobe {m}" for m in LATE_MODULES]
        assert out.stdout.splitlines() == [f"blockfit-lab: modprobe {broken} failed"]
