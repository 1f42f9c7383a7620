"""`blockfit diagnose`: where block-I/O latency comes from, layer by layer, with evidence.

The rules turn a capture's per-interval figures into Findings (`rules.py`, worded in `wording.py`), and
`sampler.py` takes live samples. What they read (diskstats, sysfs, mountinfo, LVM/md geometry, throttles,
multipath, the capture itself) comes from blockfit.devices. The rules run on a Capture, so live and replayed
runs give the same result.
"""
