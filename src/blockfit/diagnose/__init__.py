"""`blockfit diagnose`: where block-I/O latency comes from, layer by layer, with evidence.

One typed reader per kernel source (diskstats, sysfs, mountinfo, LVM/md geometry), a sampler that
records raw samples plus topology and settings (JSONL capture), per-interval metrics, and rules that
turn metrics into Findings. The rules run on a Capture, so live and replayed runs give the same result.
"""
