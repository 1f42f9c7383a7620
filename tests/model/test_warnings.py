"""model.warnings: what a prediction warns of, from the layout it predicts."""

from __future__ import annotations

from blockfit.catalog import load_catalog
from blockfit.model.predict import predict
from blockfit.model.warnings import SPREAD_CAVEAT
from blockfit.schema import Workload
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


def _warnings(spec: str, stripe: int | None = None) -> list[str]:
    lay = parse_layout(spec, "aws", AWS, stripe_size=stripe)
    return predict(lay, parse_instance("m6i.4xlarge", "aws", AWS), Workload(), AWS).warnings


def test_a_stripe_below_64_kib_is_warned_of_and_one_at_it_is_not() -> None:
    small = _warnings("4x500G@gp3", stripe=32 * 1024)
    assert any("Stripe size 32 KiB" in w for w in small)
    assert not any("Stripe size" in w for w in _warnings("4x500G@gp3", stripe=64 * 1024))


def test_one_volume_has_no_stripe_warning() -> None:
    assert not any("Stripe size" in w for w in _warnings("1x500G@gp3"))


def test_the_spread_caveat_is_about_several_paths() -> None:
    assert SPREAD_CAVEAT.startswith("Several paths") and "dm-multipath" in SPREAD_CAVEAT
    assert not any(w.startswith("Several paths") for w in _warnings("4x500G@gp3"))
