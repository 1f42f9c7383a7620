"""The lab: boot a small Linux guest under qemu whose virtio disks are capped like the plan's cloud volumes
(per volume) and like the instance (all volumes together), run the real set-up commands in it and measure.

One module, one job: kernel (guest kernel cache), initramfs (busybox PID 1), disks (sparse files),
qemu (command line and process), guest (run a script in the guest), scale (one factor for every cap),
run (the public API: ``run_lab``).
"""

from blockfit.lab.run import LabFailed, LabRequest, run_lab

__all__ = ["LabFailed", "LabRequest", "run_lab"]
