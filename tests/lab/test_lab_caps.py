"""Live cap changes: the QMP client against a real qemu, and the guest's lift/apply handshake in a real guest."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from blockfit.lab.caps import CapControl
from blockfit.lab.disks import Disk, Throttle, create
from blockfit.lab.guest import run_script
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.qemu import QEMU
from blockfit.lab.qmp import Qmp, QmpError
from support.lab import processes_mentioning

KEYS = ("iops-total", "bps-total", "iops-size")


def test_qmp_sets_and_lifts_a_throttle_group_live(tmp_path: Path) -> None:
    sock = tmp_path / "q.sock"
    proc = subprocess.Popen([QEMU, "-machine", "none", "-nodefaults", "-display", "none",
                             "-object", "throttle-group,id=g1,x-iops-total=100,x-bps-total=1000000,x-iops-size=262144",
                             "-qmp", f"unix:{sock},server=on,wait=off"], stdin=subprocess.DEVNULL)
    try:
        with Qmp(sock) as q:
            now = q.limits("g1")
            assert [now[k] for k in KEYS] == [100, 1_000_000, 262144]
            q.set_limits("g1", None, None)  # lift: 0 is "no limit" in qemu's ThrottleLimits
            now = q.limits("g1")
            assert [now[k] for k in KEYS] == [0, 0, 0]
            q.set_limits("g1", 250, 2_000_000, 4096)
            now = q.limits("g1")
            assert [now[k] for k in KEYS] == [250, 2_000_000, 4096]
            with pytest.raises(QmpError, match="nope"):
                q.set_limits("nope", 1, 1)
            q.execute("quit")
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not sock.exists()


def test_qmp_reports_a_missing_monitor_in_one_line(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(QmpError, match="did not come up"):
        Qmp(tmp_path / "absent.sock", timeout_s=0.5)
    assert time.monotonic() - started < 5


@pytest.mark.slow
@pytest.mark.lab
def test_guest_lifts_and_reapplies_its_caps(tmp_path: Path) -> None:
    """A disk capped at 60 IOPS: lifted, the guest reads far faster; re-applied, it is back at the cap."""
    kernel = ensure_kernel()
    work = tmp_path / "work"
    work.mkdir()
    vol = Throttle("vol_m1", 60, 4_000_000)
    inst = Throttle("instance", 1000, 40_000_000)
    disks = [Disk("m1", work / "m1.raw", 64 << 20, vol)]
    create(disks)
    caps = CapControl(work, [vol, inst])
    # a checkout under the host's /tmp must stay visible in the guest, whose /tmp is a fresh tmpfs
    checkout = Path(tempfile.mkdtemp(prefix="blockfit-checkout-", dir="/tmp"))
    (checkout / "marker").write_text("seen from the guest\n")
    script = f"""
W={work}
echo "checkout $(cat {checkout}/marker 2>&1 | tr ' ' _)" >> $W/rates
dev=/dev/$(for b in /sys/block/vd*; do [ "$(cat $b/serial)" = m1 ] && basename $b; done)
reads() {{ local c; read -r -a c < /sys/block/${{dev#/dev/}}/stat; echo "${{c[0]}} ${{EPOCHREALTIME/[.,]/}}"; }}
rate() {{  # reads/s over 3 s of 4k random reads at depth 16, from the first completed read on (fio is stopped
  # after the window: on a busy host its start, and the guest's sleeps, take longer than any runtime of its own)
  local a b first i pid
  first=$(reads | cut -d' ' -f1)
  fio --name=r --filename=$dev --readonly --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 \\
      --runtime=600 --time_based > /dev/null 2>&1 &
  pid=$!
  for ((i = 0; i < 600; i++)); do sleep 0.1; [ "$(reads | cut -d' ' -f1)" = "$first" ] || break; done
  sleep 1; a=($(reads)); sleep 3; b=($(reads))
  kill -INT $pid; wait $pid
  echo $(( (b[0] - a[0]) * 1000000 / (b[1] - a[1]) ))
}}
fio --version > /dev/null  # the first start reads fio over 9p: not inside a measured window
echo "capped $(rate)" >> $W/rates
{caps.guest_command} lift >> $W/rates 2>&1 || exit 3
echo "lifted $(rate)" >> $W/rates
{caps.guest_command} apply >> $W/rates 2>&1 || exit 4
echo "reapplied $(rate)" >> $W/rates
{caps.guest_command} bogus 2>/dev/null; echo "bogus $?" >> $W/rates
"""
    try:
        outcome = run_script(kernel, work, script, disks, inst, timeout_s=900, caps=caps, idle_s=300,
                             keep=[checkout / "marker"])
    finally:
        shutil.rmtree(checkout)
    text = (work / "rates").read_text() if (work / "rates").exists() else ""
    assert outcome.ok, f"{outcome.failure}\n{text}\n{outcome.console_tail()}"
    rates = {line.split()[0]: int(line.split()[1]) for line in text.splitlines() if line.split()[1].isdigit()}
    # near the cap (a loaded host's TCG clock and timers move a 3 s window by a fair share either way)
    assert 30 <= rates["capped"] <= 90, text
    assert rates["lifted"] > 5 * rates["capped"], text
    assert 30 <= rates["reapplied"] <= 90, text
    assert "checkout seen_from_the_guest" in text, text
    assert "bogus 2" in text  # the guest command refuses anything but lift/apply without asking the host
    assert caps.log == ["lift ok", "apply ok"]
    assert processes_mentioning(str(work)) == []
    assert caps.socket is not None and not caps.socket.parent.exists(), "the QMP socket dir outlived the guest"
