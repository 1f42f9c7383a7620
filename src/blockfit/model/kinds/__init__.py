"""The kinds table: one module per cloud, one VolumeKind class per family registered here by kind, and one Cloud
entry per cloud (clouds.py) for everything else that depends on the cloud."""

from __future__ import annotations

from blockfit.model.kinds.aws import Gp2, Gp3, Hdd, ProvisionedIops
from blockfit.model.kinds.azure import AzureProvisioned, AzureTiered
from blockfit.model.kinds.base import Cloud, MemberPerf, VolumeKind
from blockfit.model.kinds.clouds import CLOUDS, cloud_of
from blockfit.model.kinds.gcp import GcpHyperdisk, GcpPd
from blockfit.model.kinds.oci import OciVpu

KINDS: dict[str, VolumeKind] = {
    "oci_vpu": OciVpu(),
    "aws_gp3": Gp3(),
    "aws_gp2": Gp2(),
    "aws_piops": ProvisionedIops(),
    "aws_hdd": Hdd(),
    "azure_tiered": AzureTiered(),
    "azure_provisioned": AzureProvisioned(),
    "gcp_pd": GcpPd(),
    "gcp_hyperdisk": GcpHyperdisk(),
}

__all__ = ["CLOUDS", "KINDS", "Cloud", "MemberPerf", "VolumeKind", "cloud_of"]
