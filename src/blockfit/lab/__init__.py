"""The lab: boot a small Linux guest under qemu whose virtio disks are capped like the plan's cloud volumes
(per volume) and like the instance (all volumes together), run the real set-up commands in it and measure.

One module, one job: kernel (guest kernel cache), initramfs (busybox PID 1), disks (sparse files),
qemu (command line and process), guest (run a script in the guest), session (one way to run a guest and read its
result), buildscripts (`blockfit build` for the guest), scale (one factor for every cap, the caps at a scale),
windows (sub-windows, their median and spread, when a measurement ends), figures (measured against the model and
the emulator's own speed), caps (live cap changes), run (the public API: ``run_lab``), bench (``run_lab_bench``).
"""

from blockfit.errors import LabFailed
from blockfit.lab.run import LabRequest, run_lab

__all__ = ["LabFailed", "LabRequest", "run_lab"]
