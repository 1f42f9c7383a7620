"""Stripe geometry from `lvs --segments --reportformat json`."""

from __future__ import annotations

import json

from blockfit.devices import geometry


def test_lvs_segments_json() -> None:
    report = {"report": [{"seg": [
        {"vg_name": "oldvg", "lv_name": "oldlv", "lv_kernel_major": "-1", "lv_kernel_minor": "-1",
         "segtype": "mirror", "stripes": "2", "stripe_size": "0", "devices": "oldlv_mimage_0(0),oldlv_mimage_1(0)"},
        {"vg_name": "vgdata", "lv_name": "lvdata", "lv_kernel_major": "253", "lv_kernel_minor": "3",
         "segtype": "striped", "stripes": "4", "stripe_size": "1048576",
         "devices": "/dev/sdb(0),/dev/sdc(0),/dev/sdd(0),/dev/sde(0)"}]}]}
    geo = geometry.parse_lvs_json(json.dumps(report))
    assert geo[0].device == "dm-3" and geo[0].stripes == 4 and geo[0].stripe_bytes == 1048576
    assert geo[0].members == ["sdb", "sdc", "sdd", "sde"]
    assert geometry.parse_lvs_json("not json") == []
