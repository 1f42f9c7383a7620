"""Measurement with fio: job files, running fio, json+ histograms, targets, the calibrate search, multi-host."""
