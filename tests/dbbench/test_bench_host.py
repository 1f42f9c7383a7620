"""Issue 12 host acceptance: PostgreSQL on ext4 over two loop devices capped at 200 and 800 read IOPS.

Caps 4x apart, low enough that the faster layout stays I/O-bound on this shared 2-core machine: at 300 vs 1,200
with four lab guests running beside it, the 1,200 side could not keep its cap busy, and the bench rightly said
"CPU-bound, no winner" (measured 14:35 UTC, load average 19).

The bench CLI runs inside the blkio cgroup (a v1 throttle binds only the I/O of processes in it, and the server
inherits it); the caps are applied by --before-measure after loading, as the lab does over QMP.

The two capped benches (4x apart, and A/A) run side by side, each on its own bed (loop devices, blkio group, memory
cgroups, private /dev/shm): most of their time is waiting on their caps (rounds of 24 s at 200 IOPS, warm-ups
sized by device I/Os), not CPU, so one after the other they took 251 + 202 s of CI time for about 290 s of work
that overlaps. Each still compares its layouts with each other within its own run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from blockfit.dbbench.cluster import PrivateShm, _child_setup, private_shm, server_user
from blockfit.dbbench.memcg import detect
from blockfit.testbed.fsbed import Bed, ext4_bed
from blockfit.testbed.loopdev import BLKIO_ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or not (BLKIO_ROOT / "cgroup.procs").exists()
                       or not list(Path("/usr/lib/postgresql").glob("*/bin/pgbench")),
                       reason="needs root, cgroup-v1 blkio and PostgreSQL with pgbench"),
]

SLOW, FAST = 200, 800


@dataclass
class Bench:
    """A bench CLI started on its own bed; ``result()`` waits for it once."""

    bed: Bed
    before: set[str]  # the shared-memory segments before it started (see segments)
    proc: subprocess.Popen[str]
    done: subprocess.CompletedProcess[str] | None = field(default=None)

    @classmethod
    def start(cls, bed: Bed, before: set[str], *args: str) -> Bench:
        return cls(bed, before, subprocess.Popen(bed.argv(*args), env=bed.env(), stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE, text=True))

    @property
    def pid(self) -> int:
        """The bench's pid: it names the memory cgroups it made."""
        return self.proc.pid

    def result(self, timeout: float = 1500) -> subprocess.CompletedProcess[str]:
        if self.done is None:
            out, err = self.proc.communicate(timeout=timeout)
            self.done = subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)
        return self.done

    def stop(self) -> None:
        """Ctrl-C it if still running (a test that failed early), and wait for its clean-up."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.result(timeout=300)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=60)


def segments() -> set[str]:
    """Shared memory a killed PostgreSQL leaves: POSIX segments in /dev/shm, System V segments of the server user.
    Another cluster's look the same, so tests compare a snapshot from before a run with one after."""
    posix = {f"/dev/shm/{p.name}" for p in Path("/dev/shm").glob("PostgreSQL.*")}
    rows = [line.split() for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]]
    uid = str(server_user().uid)  # columns: key shmid perms size cpid lpid nattch uid gid cuid ...
    return posix | {f"sysv shmid {r[1]} key {r[0]}" for r in rows if r[9] == uid}


def assert_nothing_left(bed: Bed, pid: int, before: set[str]) -> None:
    assert bed.procs() == []  # no postmaster, backend or pgbench: all of them would have inherited this cgroup
    assert segments() - before == set()  # a killed backend leaves its segments; the private namespaces take them
    _, parent = detect()
    assert list(parent.glob(f"blockfit-bench-{pid}-*")) == []  # no memory cgroup
    assert list(bed.tmpdir.iterdir()) == []  # no socket dir, no logs
    for mnt in bed.mounts:
        assert sorted(p.name for p in mnt.iterdir()) == ["lost+found"]  # no cluster directory


SELECT_ONLY = "test_select_only_ratio_follows_the_iops_caps_to_the_precision_target_beside_the_model"
A_A = "test_a_layout_against_itself_one_side_cold_is_no_significant_difference"


@pytest.fixture(scope="module")
def capped(request: pytest.FixtureRequest) -> Iterator[dict[str, Bench]]:
    """The capped benches of the tests selected in this session, started together (see the module docstring);
    each test waits for its own. Any still running at the end is stopped and cleaned up by its own Ctrl-C path."""
    wanted = {getattr(item, "originalname", item.name) for item in request.session.items}
    _, memory_parent = detect()
    # the hook's shell is the bench's child ($PPID); its first memory cgroup (…-0) is the first layout's
    drop = f"echo 0 > {memory_parent}/blockfit-bench-$PPID-0/memory.force_empty"
    with contextlib.ExitStack() as stack:
        benches: dict[str, Bench] = {}
        before = segments()
        if SELECT_ONLY in wanted:
            bed = stack.enter_context(ext4_bed(2))
            stack.callback(lambda: benches[SELECT_ONLY].stop() if SELECT_ONLY in benches else None)  # before the bed
            benches[SELECT_ONLY] = Bench.start(
                bed, before, "--dir", f"{bed.mounts[0]}=slow", "--dir", f"{bed.mounts[1]}=fast", "--workload",
                "oltp-select", "--json", "--before-measure", bed.cap_hook([SLOW, FAST]), "--cap", f"slow={SLOW}",
                "--cap", f"fast={FAST}", "--repeat", "6")
        if A_A in wanted:
            bed = stack.enter_context(ext4_bed(1))
            stack.callback(lambda: benches[A_A].stop() if A_A in benches else None)
            benches[A_A] = Bench.start(
                bed, before, "--dir", f"{bed.mounts[0]}=cold", "--dir", f"{bed.mounts[0]}=warm", "--workload",
                "oltp-select", "--json", "--before-measure", f"{bed.cap_hook([FAST])} && {drop}", "--repeat", "6")
        yield benches


def test_select_only_ratio_follows_the_iops_caps_to_the_precision_target_beside_the_model(
        capped: dict[str, Bench]) -> None:
    """Issue 28's select-only case, once (the 5-of-5 acceptance is by hand: bench/bench_warm.py): each layout warmed
    until steady, then rounds until the ratio's interval is within ±10 %; the model's 4x from --cap beside it.
    At most 6 rounds (CI time): on a quiet host 4-5 reach the target; beside other tests it may say it could not."""
    bench = capped[SELECT_ONLY]  # started with the A/A beside it (see the module docstring)
    bed, out = bench.bed, bench.result()
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    slow, fast = (lay["measures"][0] for lay in r["layouts"])
    comp = r["comparisons"][0]
    scores = [[round(x["score"]) for x in m["runs"]] for m in (slow, fast)]
    print(f"select-only: {comp['text']}; model {comp['model_ratio']}; runs {scores}; warm-up: "
          f"{slow['warmup']['text']} | {fast['warmup']['text']}; slow evidence: "
          f"{slow['runs'][0]['evidence']['binding_detail']}")
    assert comp["model_ratio"] == pytest.approx(FAST / SLOW) and comp["model_basis"] == "iops"
    assert comp["verdict"] == "faster" and comp["other"] == "fast" and comp["ci_low"] > 1
    assert comp["text"].startswith(f"fast is {comp['ratio']:.3g}× slow [")  # the ratio and its interval first
    assert abs(comp["ratio"] / (FAST / SLOW) - 1) <= 0.20, comp["ratio"]
    # one layer down: both loop devices held at their caps deliver the model's 4x, and the speed ratio is that
    # over what a transaction cost each in device I/Os
    assert comp["device_ratio"] == pytest.approx(FAST / SLOW, rel=0.10), comp["text"]
    assert comp["ratio"] * comp["io_per_unit_ratio"] == pytest.approx(comp["device_ratio"], rel=1e-6)
    assert "its members delivered" in comp["text"]
    # and how much of its cap each delivered: the slow device, I/O-bound, at its cap; the two together walk from
    # the model's 4x to the members' ratio
    assert comp["baseline_cap_use"] == pytest.approx(1.0, abs=0.05), comp["text"]
    assert comp["model_ratio"] * comp["other_cap_use"] / comp["baseline_cap_use"] == pytest.approx(
        comp["device_ratio"], rel=1e-6)
    assert "of their caps, slow's " in comp["text"]
    # narrow enough, or it says why not; either way the width it reached is in the result
    assert comp["precise"] == (comp["half_width_pct"] <= 10) and comp["precision_pct"] == 10
    assert comp["stopped"] == "precision" if comp["precise"] else "could not reach the ±10 %" in comp["text"]
    assert r["settings"]["min_pairs"] <= comp["runs_used"] == len(fast["runs"]) <= r["settings"]["repeat"]
    for m in (slow, fast):  # warmed by evidence: steady windows, each with device I/Os per transaction
        w = m["warmup"]
        assert w["outcome"] in ("steady", "budget") and len(w["windows"]) >= w["steady_windows"], w["text"]
        assert all(x["ios_per_unit"] > 0 for x in w["windows"]) and w["work"] > 0
        assert m["drift"] is not None and "first_last_pct" in m["drift"]
    s = r["settings"]  # each run as long as run_ios device I/Os take at its layout's warm rate: the slower longer
    for label, m, cap in (("slow", slow, SLOW), ("fast", fast, FAST)):
        want = max(s["run_seconds"], min(s["run_ios"] / cap, s["longest_run_s"]))
        assert m["run_seconds"] == pytest.approx(want, rel=0.1)
        assert all(x["seconds"] >= 0.95 * m["run_seconds"] for x in m["runs"])
        short = cap * m["run_seconds"] < 0.95 * s["run_ios"]  # held by the rounds budget: flagged and warned
        assert m["run_ios_short"] == short
        assert any(w.startswith(f"{label} oltp-select: runs of") for w in r["warnings"]) == short
    for run in slow["runs"]:
        ev = run["evidence"]
        assert ev["binding"] == "iops_cap" and ev["io_bound"], ev["binding_detail"]
        # the cap named by where it came from: the cgroup's throttle, or --cap (never "catalog")
        assert f"{SLOW} IOPS cap (" in ev["binding_detail"] and "catalog" not in ev["binding_detail"]
        loop = next(d for d in ev["devices"] if d["device"] == bed.devices[0].name)
        assert loop["cap"] == SLOW and loop["cap_use"] >= 0.9
        # the run's completed I/Os (a diskstats delta) agree with its median rate over the run's length
        assert 0.6 <= loop["ios"] / (loop["read_iops"] * run["seconds"]) <= 1.4, (loop, run["seconds"])
        assert ev["db"]["blks_read"] > 0 and ev["memory"]["oom_kills"] == 0
        assert ev["db"]["hit_ratio"] < 0.99 and ev["db"]["page_cache_hit_ratio"] < 0.9  # not measuring memory
    assert all(x["figures"]["latency_p50_ms"] <= x["figures"]["latency_p99_ms"] for x in slow["runs"])
    assert r["kind"] == "bench" and r["layouts"][0]["devices"] == [bed.devices[0].name]
    assert r["layouts"][0]["members"] == [bed.devices[0].name]
    # the progress lines read the plan: set-up 4, priming 2, the hook, a warm-up per layout, up to 6 rounds of
    # two; the total shrinks to what was run once the rounds stop
    steps = [tuple(map(int, m)) for m in re.findall(r"^bench \[(\d+)/(\d+)\]", out.stderr, re.M)]
    assert steps[0] == (0, 4 + 2 + 1 + 2 + 12) and all(d <= t for d, t in steps)
    assert steps[-1] == (9 + 2 * comp["runs_used"],) * 2  # "stopping servers": every planned step done
    assert_nothing_left(bed, bench.pid, bench.before)


def test_a_layout_against_itself_one_side_cold_is_no_significant_difference(capped: dict[str, Bench]) -> None:
    """A/A on one device, the first cluster's page cache dropped by the hook after priming (as if it had never
    been warmed): its warm-up starts at more device I/Os per transaction and runs until steady, so the measured
    runs see two warm servers and no winner is called ('no significant difference', or a 'negligible difference' under
    3 %). At the faster layout's cap of the
    test above (CI time: at 600 IOPS its runs were 17 s, at 800 they are 12.5 s; both are I/O-bound here)."""
    bench = capped[A_A]  # the hook drops the first cluster's page cache: see the fixture
    bed, out = bench.bed, bench.result()
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    comp = r["comparisons"][0]
    cold, warm = (lay["measures"][0] for lay in r["layouts"])
    per_tx = [[round(x["ios_per_unit"], 2) for x in m["warmup"]["windows"]] for m in (cold, warm)]
    runs = [[(round(x["started_s"]), round(x["score"])) for x in m["runs"]] for m in (cold, warm)]
    print(f"A/A, one side cold: {comp['text']}; warm-up device I/Os per transaction {per_tx}; runs (started s, "
          f"TPS): {runs}")
    # the drop took: the cold side started well above the I/Os per transaction its own warm-up settled at. Not
    # against the warm side's first window: that side's cache is the host's, and a busy host had evicted it too
    # (one CI run: [1.79 ... 1.25] cold, [1.81 ... 1.21] warm, the verdict no difference all the same)
    assert per_tx[0][0] > 1.2 * per_tx[0][-1], per_tx
    assert cold["warmup"]["outcome"] == "steady" and len(per_tx[0]) > cold["warmup"]["steady_windows"]
    # no winner: either the interval holds 1, or the two clusters differ by under 3 % (one CI run measured
    # 0.982x [0.969x, 0.995x]: two clusters on one device are not identical, and pairs cannot average that out)
    assert comp["verdict"] in ("no significant difference", "negligible difference"), comp["text"]
    assert abs(comp["ratio"] - 1) < 0.03 or comp["ci_low"] < 1 < comp["ci_high"], comp["text"]
    assert comp["model_ratio"] is None  # no --cap: no model
    # held by the cap, as the verdict reads it (its most common binding; a run beside four lab guests on the
    # 2 cores was CPU-bound once)
    assert [m["binding"] for m in (cold, warm)] == ["iops_cap", "iops_cap"]
    assert_nothing_left(bed, bench.pid, bench.before)


@pytest.mark.parametrize(("phase", "workload"), [("initdb", "oltp-select,dss,load"), ("load", "oltp-select,dss,load"),
                                               ("warm-up", "oltp-select,dss,load"), ("run 1", "oltp-select,dss,load"),
                                               ("dss", "dss,load"), ("load: run", "dss,load")])
def test_ctrl_c_in_each_phase_leaves_nothing_behind(phase: str, workload: str) -> None:
    """DSS's and load's phases without OLTP before them: the same phases, without its set-up and warm-up."""
    with ext4_bed(1) as bed:
        before = segments()
        proc = subprocess.Popen(bed.argv("--dir", str(bed.mounts[0]), "--workload", workload,
                                         "--repeat", "2", "--json"), env=bed.env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("bench [") and phase in line:
                break
        # The line is printed as the phase starts; a quick profile's phase can end within a second or two (a
        # load step on an idle host), so interrupt at once, not 'well into' it.
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, "".join(seen) + err
        assert "Traceback" not in err
        partial = json.loads(out)  # what was measured before the interrupt is kept
        assert partial["partial"] and partial["stopped_by"] == "interrupted"
        assert_nothing_left(bed, proc.pid, before)


def test_sigkill_of_the_bench_takes_the_server_down() -> None:
    """A killed bench runs no code: the parent-death signal stops the server, the janitor removes the rest."""
    with ext4_bed(1) as bed:
        before = segments()
        proc = subprocess.Popen(bed.argv("--dir", str(bed.mounts[0]), "--workload", "oltp-select"), env=bed.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        for line in proc.stderr:
            if "warm-up" in line:
                break
        time.sleep(2)
        proc.kill()
        proc.wait(timeout=30)
        proc.stderr.read()
        deadline = time.monotonic() + 30
        while bed.procs() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert_nothing_left(bed, proc.pid, before)


def test_server_processes_get_a_private_dev_shm_and_run_as_before_without_root() -> None:
    """As root, what a server process puts in /dev/shm is its own (gone with it); as a user the kernel refuses
    the namespaces and the process runs as before, on the machine's /dev/shm."""
    probe = "touch /dev/shm/PostgreSQL.blockfit-probe && readlink /proc/self/ns/mnt /proc/self/ns/ipc"
    out = subprocess.run(["sh", "-c", probe], preexec_fn=_child_setup(server_user(), None, PrivateShm(1 << 20)),
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() != [os.readlink("/proc/self/ns/mnt"), os.readlink("/proc/self/ns/ipc")]
    assert not Path("/dev/shm/PostgreSQL.blockfit-probe").exists()
    assert private_shm(Path("/dev/shm/cluster")) is None  # a --dir on /dev/shm itself: the tmpfs would hide it
    assert private_shm(Path("/var/tmp"), Path("/tmp")) is not None
    script = ("import os, subprocess; from blockfit.dbbench.cluster import PrivateShm, _child_setup, server_user; "
              "print(subprocess.run(['readlink', '/proc/self/ns/mnt'], capture_output=True, text=True, check=True, "
              "preexec_fn=_child_setup(server_user(), None, PrivateShm(1 << 20))).stdout.strip(), "
              "os.readlink('/proc/self/ns/mnt'))")
    nobody = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                             script], capture_output=True, text=True)
    assert nobody.returncode == 0, nobody.stderr
    child_ns, own_ns = nobody.stdout.split()
    assert child_ns == own_ns


SHARED_HOST = """
import subprocess, sys, tempfile, time
from pathlib import Path
from blockfit.dbbench.cluster import PrivateShm, _child_setup, server_user
scratch = Path(tempfile.mkdtemp(dir="/var/tmp"))
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(scratch)], check=True)
server = subprocess.Popen(["sleep", "60"], preexec_fn=_child_setup(server_user(), None, PrivateShm(1 << 20)))
try:
    def shm_mounts(pid):
        return sum(" /dev/shm " in line for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines())
    while shm_mounts(server.pid) == shm_mounts("self"):  # until its tmpfs is mounted (it then runs sleep)
        time.sleep(0.05)
    seen = str(scratch) in Path(f"/proc/{server.pid}/mountinfo").read_text()
    subprocess.run(["umount", str(scratch)], check=True)
    print(shm_mounts(server.pid) - shm_mounts("self"), seen,
          str(scratch) in Path(f"/proc/{server.pid}/mountinfo").read_text())
finally:
    server.kill()
    server.wait()
    scratch.rmdir()
"""


def test_where_the_machines_mounts_are_shared_the_tmpfs_stays_in_and_unmounts_still_reach_the_server() -> None:
    """Run in a throwaway namespace with every mount shared (as systemd sets up a host): the private /dev/shm does
    not show outside, and a filesystem unmounted outside is gone inside too (the server does not keep it busy)."""
    out = subprocess.run(["unshare", "--mount", "--propagation", "shared", sys.executable, "-c", SHARED_HOST],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "True", "False"]  # one more /dev/shm inside; seen, then unmounted inside
