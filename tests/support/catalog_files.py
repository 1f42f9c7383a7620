"""Provider CLI outputs in their real layouts, written by the tests themselves (never copies of anyone's output):
`aws ec2 describe-instance-types`, an AWS Price List bulk file, `az vm list-skus`, an Azure Retail Prices API
response, `oci compute shape list`, the OCI products price list. Field names and nesting follow the providers'
API references (see docs/catalogs.md); the figures are whatever a test passes in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data, indent=2))
    return str(path)


# ---- AWS ----------------------------------------------------------------------------------------------------------

def aws_type(name: str, vcpus: int, mib: int, base_mbps: float, base_iops: int, max_mbps: float | None = None,
             max_iops: int | None = None, attachments: int | None = 32, limit: str = "dedicated",
             current: bool = True) -> dict[str, Any]:
    """One InstanceTypes[] entry as describe-instance-types prints it."""
    max_mbps = base_mbps if max_mbps is None else max_mbps
    max_iops = base_iops if max_iops is None else max_iops
    ebs: dict[str, Any] = {
        "EbsOptimizedSupport": "default",
        "EncryptionSupport": "supported",
        "EbsOptimizedInfo": {
            "BaselineBandwidthInMbps": round(base_mbps * 8),
            "BaselineThroughputInMBps": base_mbps,
            "BaselineIops": base_iops,
            "MaximumBandwidthInMbps": round(max_mbps * 8),
            "MaximumThroughputInMBps": max_mbps,
            "MaximumIops": max_iops,
        },
        "NvmeSupport": "required",
    }
    if attachments is not None:
        ebs["MaximumEbsAttachments"] = attachments
        ebs["AttachmentLimitType"] = limit
    return {
        "InstanceType": name,
        "CurrentGeneration": current,
        "FreeTierEligible": False,
        "SupportedUsageClasses": ["on-demand", "spot"],
        "SupportedRootDeviceTypes": ["ebs"],
        "SupportedVirtualizationTypes": ["hvm"],
        "BareMetal": False,
        "Hypervisor": "nitro",
        "ProcessorInfo": {"SupportedArchitectures": ["x86_64"], "SustainedClockSpeedInGhz": 3.2,
                          "Manufacturer": "Intel"},
        "VCpuInfo": {"DefaultVCpus": vcpus, "DefaultCores": vcpus // 2, "DefaultThreadsPerCore": 2,
                     "ValidCores": list(range(1, vcpus // 2 + 1)), "ValidThreadsPerCore": [1, 2]},
        "MemoryInfo": {"SizeInMiB": mib},
        "InstanceStorageSupported": False,
        "EbsInfo": ebs,
        "NetworkInfo": {"NetworkPerformance": "Up to 12.5 Gigabit", "MaximumNetworkInterfaces": 4,
                        "MaximumNetworkCards": 1, "DefaultNetworkCardIndex": 0,
                        "Ipv4AddressesPerInterface": 15, "Ipv6AddressesPerInterface": 15, "Ipv6Supported": True,
                        "EnaSupport": "required", "EfaSupported": False, "EncryptionInTransitSupported": True,
                        "EnaSrdSupported": False},
        "PlacementGroupInfo": {"SupportedStrategies": ["cluster", "partition", "spread"]},
        "HibernationSupported": True,
        "BurstablePerformanceSupported": False,
        "DedicatedHostsSupported": True,
        "AutoRecoverySupported": True,
        "SupportedBootModes": ["legacy-bios", "uefi"],
        "NitroEnclavesSupport": "supported",
        "NitroTpmSupport": "supported",
        "PhcSupport": "supported",
    }


def aws_types(types: list[dict[str, Any]]) -> dict[str, Any]:
    return {"InstanceTypes": types}


def aws_price_list(region: str, hourly: dict[str, float], ebs: dict[tuple[str, str, str], float] | None = None,
                   published: str = "2026-11-20T19:20:42Z") -> dict[str, Any]:
    """An AmazonEC2 offer file of one region: on-demand Linux hourly prices per instance type, and EBS prices keyed
    (volumeApiName, productFamily, unit)."""
    products: dict[str, Any] = {}
    terms: dict[str, Any] = {}
    n = 0

    def add(attrs: dict[str, Any], family: str, unit: str, usd: float) -> None:
        nonlocal n
        n += 1
        sku = f"SKU{n:012d}"
        products[sku] = {"sku": sku, "productFamily": family,
                         "attributes": {"servicecode": "AmazonEC2", "location": "US East (N. Virginia)",
                                        "locationType": "AWS Region", "regionCode": region, **attrs}}
        code = f"{sku}.JRTCKXETXF"
        terms[sku] = {code: {"offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-11-01T00:00:00Z",
                             "termAttributes": {},
                             "priceDimensions": {f"{code}.6YS6EN2CT7": {
                                 "rateCode": f"{code}.6YS6EN2CT7", "description": f"${usd} per unit",
                                 "beginRange": "0", "endRange": "Inf", "unit": unit,
                                 "pricePerUnit": {"USD": f"{usd:.10f}"}, "appliesTo": []}}}}

    for name, usd in hourly.items():
        add({"instanceType": name, "instanceFamily": "Memory optimized", "operatingSystem": "Linux",
             "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
             "licenseModel": "No License required", "operation": "RunInstances", "usagetype": f"BoxUsage:{name}"},
            "Compute Instance", "Hrs", usd)
        add({"instanceType": name, "operatingSystem": "Windows", "tenancy": "Shared", "preInstalledSw": "NA",
             "capacitystatus": "Used", "licenseModel": "No License required", "operation": "RunInstances:0002"},
            "Compute Instance", "Hrs", usd * 2)
    for (vtype, family, unit), usd in (ebs or {}).items():
        add({"volumeApiName": vtype, "volumeType": vtype, "usagetype": f"EBS:VolumeUsage.{vtype}"}, family, unit, usd)
    return {"formatVersion": "v1.0", "disclaimer": "test data written by blockfit's tests", "offerCode": "AmazonEC2",
            "version": "20261120192042", "publicationDate": published, "products": products,
            "terms": {"OnDemand": terms}}


# ---- Azure --------------------------------------------------------------------------------------------------------

def azure_sku(name: str, vcpus: int, memory_gb: float, iops: int, mbps: float, disks: int,
              locations: tuple[str, ...] = ("eastus",), premium: bool = True,
              cached: tuple[int, float, float] | None = None) -> list[dict[str, Any]]:
    """az vm list-skus rows of one size (one per location, as the CLI prints without --location); `cached`: the
    size's host cache (IOPS, MBps, GiB) as the API carries it."""
    caps = {"MaxResourceVolumeMB": "0", "OSVhdSizeMB": "1047552", "vCPUs": str(vcpus),
            "MemoryPreservingMaintenanceSupported": "True", "HyperVGenerations": "V1,V2",
            "MemoryGB": f"{memory_gb:g}", "MaxDataDiskCount": str(disks), "CpuArchitectureType": "x64",
            "LowPriorityCapable": "True", "PremiumIO": "True" if premium else "False",
            "VMDeploymentTypes": "IaaS", "vCPUsAvailable": str(vcpus), "vCPUsPerCore": "2",
            "EncryptionAtHostSupported": "True", "EphemeralOSDiskSupported": "False",
            "AcceleratedNetworkingEnabled": "True", "RdmaEnabled": "False", "MaxNetworkInterfaces": "4"}
    if premium:
        caps.update({"UncachedDiskIOPS": str(iops), "UncachedDiskBytesPerSecond": str(round(mbps * 1048576)),
                     "CombinedTempDiskAndCachedIOPS": str(iops), "UltraSSDAvailable": "True"})
    if cached:
        caps.update({"CombinedTempDiskAndCachedIOPS": str(cached[0]),
                     "CombinedTempDiskAndCachedReadBytesPerSecond": str(round(cached[1] * 1048576)),
                     "CombinedTempDiskAndCachedWriteBytesPerSecond": str(round(cached[1] * 1048576)),
                     "CachedDiskBytes": str(round(cached[2] * (1 << 30)))})
    size = name.removeprefix("Standard_")
    return [{"resourceType": "virtualMachines", "name": name, "tier": "Standard", "size": size,
             "family": "standardTestFamily", "locations": [loc],
             "locationInfo": [{"location": loc, "zones": ["1", "2", "3"], "zoneDetails": []}],
             "capabilities": [{"name": k, "value": v} for k, v in caps.items()], "restrictions": []}
            for loc in locations]


def azure_skus(*rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    disk = {"resourceType": "disks", "name": "Premium_LRS", "tier": "Premium", "size": "P30", "family": "PremiumSSD",
            "locations": ["eastus"], "capabilities": [{"name": "MaxSizeGiB", "value": "1024"},
                                                      {"name": "MaxIOps", "value": "5000"}], "restrictions": []}
    return [r for group in rows for r in group] + [disk]


def azure_prices(prices: dict[str, float], region: str = "eastus") -> dict[str, Any]:
    """A Retail Prices API response: each size's Linux pay-as-you-go, Spot and Windows meters."""
    items = []
    for name, usd in prices.items():
        size = name.removeprefix("Standard_").replace("_", " ")
        for sku_name, product, price in ((size, "Virtual Machines Test Series", usd),
                                         (f"{size} Spot", "Virtual Machines Test Series", usd / 5),
                                         (size, "Virtual Machines Test Series Windows", usd * 2)):
            items.append({"currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": price, "unitPrice": price,
                          "armRegionName": region, "location": "US East", "effectiveStartDate":
                          "2026-10-01T00:00:00Z", "meterId": "00000000-0000-0000-0000-000000000000",
                          "meterName": sku_name, "productId": "DZH318Z0BQ4L", "skuId": "DZH318Z0BQ4L/00TG",
                          "productName": product, "skuName": sku_name, "serviceName": "Virtual Machines",
                          "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": "1 Hour",
                          "type": "Consumption", "isPrimaryMeterRegion": True, "armSkuName": name})
    return {"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
            "Items": items, "NextPageLink": None, "Count": len(items)}


# ---- OCI ----------------------------------------------------------------------------------------------------------

def oci_flex(name: str, ocpus: tuple[float, float], gbps_per_ocpu: float, gbps_max: float,
             memory_per_ocpu: tuple[float, float, float] = (1.0, 16.0, 64.0)) -> dict[str, Any]:
    """One data[] entry of `oci compute shape list` for a flexible shape (kebab case, as the CLI prints)."""
    lo, default, hi = memory_per_ocpu
    return {"availability-domain": None, "baseline-ocpu-utilizations": None, "billing-type": "PAID",
            "gpu-description": None, "gpus": 0, "is-billed-for-stopped-instance": False, "is-flexible": True,
            "is-live-migration-supported": True, "is-subcore": False, "local-disk-description": None,
            "local-disks": 0, "local-disks-total-size-in-gbs": None,
            "max-vnic-attachment-options": {"default-per-ocpu": 1.0, "max": 24.0, "min": 2},
            "max-vnic-attachments": 2, "memory-in-gbs": default * ocpus[0],
            "memory-options": {"default-per-ocpu-in-gbs": default, "max-in-gbs": hi * ocpus[1],
                               "max-per-numa-node-in-gbs": None, "max-per-ocpu-in-gbs": hi,
                               "min-in-gbs": lo * ocpus[0], "min-per-ocpu-in-gbs": lo},
            "min-total-baseline-ocpus-required": None, "network-ports": None,
            "networking-bandwidth-in-gbps": gbps_per_ocpu * ocpus[0],
            "networking-bandwidth-options": {"default-per-ocpu-in-gbps": gbps_per_ocpu, "max-in-gbps": gbps_max,
                                             "min-in-gbps": gbps_per_ocpu},
            "ocpu-options": {"max": ocpus[1], "max-per-numa-node": None, "min": ocpus[0]},
            "ocpus": ocpus[0], "platform-config-options": None, "processor-description": "test processor",
            "quota-names": [], "rdma-bandwidth-in-gbps": 0, "rdma-ports": 0, "recommended-alternatives": None,
            "resize-compatible-shapes": [], "shape": name}


def oci_fixed(name: str, ocpus: float, memory_gb: float, gbps: float) -> dict[str, Any]:
    entry = oci_flex(name, (ocpus, ocpus), gbps / ocpus, gbps)
    entry.update({"is-flexible": False, "ocpu-options": None, "memory-options": None,
                  "networking-bandwidth-options": None, "max-vnic-attachment-options": None,
                  "memory-in-gbs": memory_gb, "networking-bandwidth-in-gbps": gbps, "ocpus": ocpus})
    return entry


def oci_shapes(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"data": list(entries)}


def oci_prices(rows: list[tuple[str, str, str, float]], updated: str = "2026-11-18T10:00:00Z") -> dict[str, Any]:
    """The products price list: rows of (partNumber, displayName, metricName, USD pay-as-you-go)."""
    return {"lastUpdated": updated, "items": [
        {"partNumber": part, "displayName": name, "metricName": metric, "serviceCategory": "Compute - Virtual Machine",
         "currencyCodeLocalizations": [
             {"currencyCode": "EUR", "prices": [{"model": "PAY_AS_YOU_GO", "value": usd * 0.9}]},
             {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": usd}]}]}
        for part, name, metric, usd in rows]}
