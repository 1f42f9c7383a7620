"""What the kernel says about block devices: one typed reader per kernel file, below every command package.

diskstats (/proc/diskstats, with a counters-only fast path), mountinfo, swaps, procstat (/proc/stat), sysfs
(the block stack, queue attributes, major:minor lookups), facts (what calibrate reports of a device),
throttle (cgroup blkio and io.max caps), multipath and geometry (dmsetup, lvs), iostat (per-interval figures
from two diskstats samples) and capture (a typed snapshot plus raw samples, recorded and replayed). Every
package reads /proc and /sys through here, so a format is parsed once, one way.
"""
