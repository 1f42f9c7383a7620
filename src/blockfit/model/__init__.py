"""The model: from catalog figures to predicted IOPS, MB/s, latency curve, binding limit and cost."""

from blockfit.model.predict import predict
from blockfit.model.resolve import layout_spec, normalize_volume

__all__ = ["layout_spec", "normalize_volume", "predict"]
