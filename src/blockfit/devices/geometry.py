"""Stripe geometry where the tools are present: LVM (`lvs --segments`) and md (sysfs md/ directory).

Device-mapper names a striped LV as dm-N; `lvs -o lv_kernel_major,lv_kernel_minor` ties the LV to it.
When lvm2 or device-mapper is absent (as on hosts without dm), this returns an empty list.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from pydantic import BaseModel, Field

from blockfit import proc
from blockfit.devices.sysfs import BlockDevice


class StripeGeometry(BaseModel):
    device: str = Field(description="kernel name of the striped device (dm-3, md0)")
    source: str = Field(description="lvm | md")
    label: str | None = Field(default=None, description="vg/lv or md name")
    level: str | None = None
    stripes: int
    stripe_bytes: int | None = Field(default=None, description="LVM stripe size / md chunk, bytes")
    members: list[str] = Field(default_factory=list)


def _lvm(by_majmin: dict[str, str], timeout: float = 10.0) -> list[StripeGeometry]:
    if shutil.which("lvs") is None:
        return []
    cmd = ["lvs", "--segments", "--reportformat", "json", "--units", "b", "--nosuffix", "-o",
           "vg_name,lv_name,lv_kernel_major,lv_kernel_minor,segtype,stripes,stripe_size,devices"]
    try:
        env = {**os.environ, "LVM_SUPPRESS_FD_WARNINGS": "1"}
        out = proc.run(cmd, timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return parse_lvs_json(out.stdout, by_majmin)


def parse_lvs_json(text: str, dev_by_majmin: dict[str, str] | None = None) -> list[StripeGeometry]:
    """Parse `lvs --segments --reportformat json` output; unknown shapes give an empty list."""
    try:
        report = json.loads(text)["report"][0]
        rows = report.get("seg", report.get("lv"))  # `lvs --segments` reports "seg" rows
    except (ValueError, KeyError, IndexError, TypeError):
        return []
    if not isinstance(rows, list):
        return []
    result = []
    for row in rows:
        geometry = _lvs_row(row, dev_by_majmin)
        if geometry is not None:
            result.append(geometry)
    return result


def _lvs_row(row: dict, dev_by_majmin: dict[str, str] | None) -> StripeGeometry | None:
    """One `lvs` segment row; None for a segment without stripes or with fields that are not numbers."""
    if not str(row.get("segtype", "")).startswith(("striped", "raid")):
        return None  # linear, mirror, thin: no stripe geometry
    try:
        stripes = int(row.get("stripes") or 1)
        major, minor = row.get("lv_kernel_major", "-1").strip(), row.get("lv_kernel_minor", "-1").strip()
        size = int(str(row.get("stripe_size") or "0").strip() or 0)
    except ValueError:
        return None
    device = f"dm-{minor}" if minor.isdigit() and int(minor) >= 0 else f"{row.get('vg_name')}/{row.get('lv_name')}"
    if dev_by_majmin and f"{major}:{minor}" in dev_by_majmin:
        device = dev_by_majmin[f"{major}:{minor}"]
    members = [d.split("(")[0].rsplit("/", 1)[-1] for d in str(row.get("devices", "")).split(",") if d]
    return StripeGeometry(device=device, source="lvm", label=f"{row.get('vg_name')}/{row.get('lv_name')}",
                          level=row.get("segtype"), stripes=stripes, stripe_bytes=size or None, members=members)


def read_geometry(devices: dict[str, BlockDevice]) -> list[StripeGeometry]:
    by_majmin = {d.dev: d.name for d in devices.values() if d.dev}
    geo = [g for g in _lvm(by_majmin) if g.stripes > 1 or g.device in devices]
    for dev in devices.values():
        if dev.kind == "md" and dev.slaves:
            geo.append(StripeGeometry(device=dev.name, source="md", label=dev.name, level=dev.md_level,
                                      stripes=len(dev.slaves), stripe_bytes=dev.md_chunk_bytes, members=dev.slaves))
    return geo
