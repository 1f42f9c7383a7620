"""The machine's DMI (SMBIOS) strings from /sys/class/dmi/id: who made the machine and what it is called.

Clouds write their own: AWS Nitro instances sys_vendor 'Amazon EC2' and the instance type as product_name; Azure
'Microsoft Corporation' / 'Virtual Machine' with its fixed chassis_asset_tag; GCP 'Google' / 'Google Compute
Engine'; OCI the chassis_asset_tag 'OracleCloud.com'. Only the attributes readable without root are read.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from blockfit.devices.hardware import clean
from blockfit.devices.sysfs import read_text

FIELDS = ("sys_vendor", "product_name", "product_version", "chassis_vendor", "chassis_asset_tag", "board_vendor",
          "bios_vendor")


class Dmi(BaseModel):
    sys_vendor: str | None = None
    product_name: str | None = None
    product_version: str | None = None
    chassis_vendor: str | None = None
    chassis_asset_tag: str | None = None
    board_vendor: str | None = None
    bios_vendor: str | None = None


def read_dmi(sys_root: Path) -> Dmi:
    """SYS_ROOT/class/dmi/id/*; every field None on a machine without DMI (many ARM boards, containers)."""
    base = sys_root / "class" / "dmi" / "id"
    return Dmi(**{f: clean(read_text(base / f)) for f in FIELDS})
