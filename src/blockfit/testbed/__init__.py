"""Test beds: known-cap devices built from loop devices and cgroup-v1 blkio throttling (tests, benches, lab)."""
