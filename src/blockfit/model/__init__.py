"""The model: from catalog figures to predicted IOPS, MB/s, latency curve, binding limit and cost."""

from blockfit.model.predict import layout_spec, normalize_volume, predict

__all__ = ["layout_spec", "normalize_volume", "predict"]
