"""Cloud volume metrics and SQL Server file stats as history (issue 23): each reader's field mapping worked by hand
on exports written here in the providers' documented shapes, and the bad exports refused in one line, exit 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from blockfit.cli import main
from blockfit.errors import InputError
from blockfit.history import derive_targets

T0 = datetime(2025, 6, 2, 8, 0, tzinfo=UTC)
PLAN = ["plan", "--cloud", "aws", "--capacity", "1T", "--instance", "m6i.4xlarge", "--json"]


def ts(k: int, step: int) -> str:
    return (T0 + timedelta(seconds=k * step)).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- CloudWatch ----

def cloudwatch(period: int = 300, periods: dict[str, int] | None = None, unit: dict[str, str] | None = None,
               with_max: bool = True) -> dict[str, Any]:
    """get-metric-data query + result for two volumes: vol-a does k*1000 reads and k*500 writes of 16 KiB per
    period k; vol-b a constant 300 reads of 8 KiB; Maximum (busiest minute's count) = 2 x the per-minute mean."""
    queries, results = [], []
    for vol in ("vol-a", "vol-b"):
        for metric in ("VolumeReadOps", "VolumeWriteOps", "VolumeReadBytes", "VolumeWriteBytes"):
            for stat in ("Sum", "Maximum") if with_max else ("Sum",):
                qid = f"{vol.replace('-', '')}_{metric}_{stat}".lower()
                p = (periods or {}).get(metric, period)
                ms: dict[str, Any] = {"Metric": {"Namespace": "AWS/EBS", "MetricName": metric,
                                                 "Dimensions": [{"Name": "VolumeId", "Value": vol}]},
                                      "Period": p, "Stat": stat}
                if unit and metric in unit:
                    ms["Unit"] = unit[metric]
                queries.append({"Id": qid, "MetricStat": ms, "ReturnData": True})
                vals = []
                for k in range(1, 13):
                    ops = {"VolumeReadOps": k * 1000 if vol == "vol-a" else 300,
                           "VolumeWriteOps": k * 500 if vol == "vol-a" else 0}
                    v = {**ops, "VolumeReadBytes": ops["VolumeReadOps"] * (16384 if vol == "vol-a" else 8192),
                         "VolumeWriteBytes": ops["VolumeWriteOps"] * 16384}[metric]
                    vals.append(v if stat == "Sum" else 2 * v * 60 / p)
                results.append({"Id": qid, "Label": metric, "StatusCode": "Complete",
                                "Timestamps": [ts(k, p) for k in range(12, 0, -1)], "Values": vals[::-1]})
    return {"MetricDataQueries": queries, "MetricDataResults": results, "Messages": []}


def write(tmp: Path, name: str, doc: object) -> Path:
    path = tmp / name
    path.write_text(json.dumps(doc))
    return path


def test_cloudwatch_sum_per_period_and_busiest_minute_by_hand(tmp_path: Path) -> None:
    path = write(tmp_path, "cw.json", cloudwatch())
    avg = derive_targets(path, percentile=100, peak_factor=1)
    # period 12: vol-a 12,000 reads + 6,000 writes, vol-b 300 reads, in 300 s
    assert avg.iops == pytest.approx((12_000 + 6_000 + 300) / 300)
    assert avg.mbps == pytest.approx((12_000 * 16384 + 6_000 * 16384 + 300 * 8192) / 300 / 1e6)
    assert avg.sources[0].members == ["vol-a", "vol-b"] and avg.sources[0].interval_s == 300
    peak = derive_targets(path, percentile=100)
    # Maximum / 60 = the busiest minute: 2 x the period's per-second mean, the default when the export has it
    assert peak.iops == pytest.approx(2 * avg.iops) and "finer maximum" in peak.peak_factor_source
    one = derive_targets(path, devices=["vol-b"], percentile=50, peak_factor=1)
    assert one.iops == pytest.approx(1.0) and one.sources[0].members == ["vol-b"]


def test_cloudwatch_get_metric_statistics_list(tmp_path: Path) -> None:
    docs = [{"Label": m, "Datapoints": [{"Timestamp": ts(k, 60), "Sum": float(v * k), "Unit": u}
                                        for k in range(1, 31)]}
            for m, v, u in (("VolumeReadOps", 600, "Count"), ("VolumeWriteOps", 60, "Count"),
                            ("VolumeReadBytes", 600 * 8192, "Bytes"), ("VolumeWriteBytes", 60 * 8192, "Bytes"))]
    t = derive_targets(write(tmp_path, "gms.json", docs), percentile=100)
    assert t.sources[0].interval_s == 60 and t.iops == pytest.approx(30 * 660 / 60)
    assert "every 60 s" in t.peak_factor_source


@pytest.mark.parametrize(("doc", "needle"), [
    (cloudwatch(periods={"VolumeWriteOps": 60}), "mixes periods"),
    (cloudwatch(unit={"VolumeReadOps": "Bytes"}), "VolumeReadOps with Unit Bytes"),
    ({"MetricDataResults": cloudwatch()["MetricDataResults"]}, "without their MetricDataQueries"),
    ([{"Label": "VolumeReadOps", "Datapoints": [{"Timestamp": ts(k, 60), "Sum": 1.0, "Unit": "Bytes"}
                                                for k in range(3)]}], "Unit Bytes"),
])
def test_bad_cloudwatch_exports_are_refused(tmp_path: Path, doc: object, needle: str) -> None:
    with pytest.raises(InputError, match=needle) as err:
        derive_targets(write(tmp_path, "bad.json", doc))
    assert "\n" not in str(err.value) and "bad.json" in str(err.value)


def test_cloudwatch_mixed_datapoint_spacing_is_refused(tmp_path: Path) -> None:
    docs = [{"Label": m, "Datapoints": [{"Timestamp": ts(k, 60 if m == "VolumeReadOps" else 300), "Sum": 5.0}
                                        for k in range(1, 6)]}
            for m in ("VolumeReadOps", "VolumeWriteOps", "VolumeReadBytes", "VolumeWriteBytes")]
    with pytest.raises(InputError, match="mixes periods"):
        derive_targets(write(tmp_path, "mixed.json", docs))


# ---- OCI Monitoring ----

def oci(metric: str, interval: str, stat: str, values: list[float], unit: str) -> dict[str, Any]:
    step = {"1m": 60, "5m": 300}[interval]
    return {"query-text": f'{metric}[{interval}]{{resourceId = "ocid1.volume.oc1..aaa"}}.{stat}()', "data": [{
        "name": metric, "namespace": "oci_blockstore", "dimensions": {"resourceId": "ocid1.volume.oc1..aaa"},
        "metadata": {"unit": unit, "displayName": metric},
        "aggregated-datapoints": [{"timestamp": ts(k + 1, step), "value": v} for k, v in enumerate(values)]}]}


def test_oci_monitoring_sum_per_interval_and_max_per_minute(tmp_path: Path) -> None:
    docs = [oci("VolumeReadOps", "5m", "sum", [30_000, 60_000, 15_000], "operations"),
            oci("VolumeWriteOps", "5m", "sum", [3_000, 6_000, 1_500], "operations"),
            oci("VolumeReadThroughput", "5m", "sum", [30_000 * 8192.0, 60_000 * 8192.0, 15_000 * 8192.0], "bytes"),
            oci("VolumeWriteThroughput", "5m", "sum", [3_000 * 8192.0, 6_000 * 8192.0, 1_500 * 8192.0], "bytes"),
            oci("VolumeReadOps", "5m", "max", [9_000, 24_000, 3_000], "operations"),
            oci("VolumeWriteOps", "5m", "max", [600, 1_200, 300], "operations"),
            oci("VolumeReadThroughput", "5m", "max", [9e3 * 8192, 24e3 * 8192, 3e3 * 8192], "bytes"),
            oci("VolumeWriteThroughput", "5m", "max", [600 * 8192.0, 1_200 * 8192.0, 300 * 8192.0], "bytes")]
    path = write(tmp_path, "oci.json", docs)
    avg = derive_targets(path, percentile=100, peak_factor=1)
    assert avg.iops == pytest.approx(66_000 / 300) and avg.mbps == pytest.approx(66_000 * 8192 / 300 / 1e6)
    assert avg.sources[0].format == "oci-monitoring" and avg.sources[0].interval_s == 300
    peak = derive_targets(path, percentile=100)
    assert peak.iops == pytest.approx((24_000 + 1_200) / 60)
    assert peak.peak_iops_window is not None and peak.peak_iops_window.start == "2025-06-02T08:05:00Z"
    with pytest.raises(InputError, match="mixes intervals"):
        derive_targets(write(tmp_path, "mix.json", [*docs[:3], oci("VolumeWriteThroughput", "1m", "sum", [1.0],
                                                                       "bytes")]))
    with pytest.raises(InputError, match="unit 'bytes'; VolumeReadOps counts operations"):
        derive_targets(write(tmp_path, "unit.json", [oci("VolumeReadOps", "5m", "sum", [1.0], "bytes")]))
    with pytest.raises(InputError, match="no query-text"):
        derive_targets(write(tmp_path, "noq.json", {"data": docs[0]["data"]}))


# ---- Azure Monitor ----

def azure(interval: str = "PT5M", unit_ops: str = "CountPerSecond", step: int = 300) -> dict[str, Any]:
    def metric(name: str, unit: str, avg: list[float], mx: list[float]) -> dict[str, Any]:
        return {"id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/disks/data0/providers/"
                      f"Microsoft.Insights/metrics/{name}", "type": "Microsoft.Insights/metrics", "unit": unit,
                "name": {"value": name, "localizedValue": name}, "timeseries": [{"metadatavalues": [], "data": [
                    {"timeStamp": ts(k, step), "average": a, "maximum": m}
                    for k, (a, m) in enumerate(zip(avg, mx, strict=True))]}]}
    return {"cost": 0, "interval": interval, "namespace": "Microsoft.Compute/disks", "resourceregion": "westeurope",
            "timespan": "2025-06-02T08:00:00Z/2025-06-02T08:15:00Z", "value": [
                metric("Composite Disk Read Operations/sec", unit_ops, [100.0, 400.0, 50.0], [300.0, 900.0, 80.0]),
                metric("Composite Disk Write Operations/sec", "CountPerSecond", [20.0, 40.0, 10.0],
                       [50.0, 100.0, 20.0]),
                metric("Composite Disk Read Bytes/sec", "BytesPerSecond", [1e6, 4e6, 5e5], [3e6, 9e6, 8e5]),
                metric("Composite Disk Write Bytes/sec", "BytesPerSecond", [2e5, 4e5, 1e5], [5e5, 1e6, 2e5])]}


def test_azure_monitor_average_rates_and_maximum_minutes(tmp_path: Path) -> None:
    path = write(tmp_path, "az.json", azure())
    avg = derive_targets(path, percentile=100, peak_factor=1)
    assert avg.iops == pytest.approx(440.0) and avg.mbps == pytest.approx(4.4)
    assert avg.sources[0].members == ["data0"] and avg.sources[0].interval_s == 300
    assert derive_targets(path, percentile=100).iops == pytest.approx(1000.0)
    with pytest.raises(InputError, match="unit Bytes"):
        derive_targets(write(tmp_path, "unit.json", azure(unit_ops="Bytes")))
    with pytest.raises(InputError, match="mixes intervals"):
        derive_targets(write(tmp_path, "step.json", azure(step=60)))


# ---- SQL Server ----

def sqlserver_lines(restart_at: int | None = None, backwards_at: int | None = None) -> str:
    out = ["marker,sample_time_utc,sqlserver_start_time_utc,database_name,file_id,type_desc,sample_ms,num_of_reads,"
           "num_of_bytes_read,num_of_writes,num_of_bytes_written,physical_name"]
    start = "2025-06-01T22:00:00.0000000"
    for k in range(8):
        t = (T0 + timedelta(minutes=5 * k)).strftime("%Y-%m-%dT%H:%M:%S.0000000")
        base = k
        if restart_at is not None and k >= restart_at:
            start, base = "2025-06-02T08:17:00.0000000", k - restart_at
        for fid, name, reads, writes in ((1, r"D:\data\sales.mdf", 600, 150), (2, r"L:\log\sales, 2.ldf", 0, 900)):
            r = reads * 300 * base
            w = writes * 300 * base
            if backwards_at is not None and k == backwards_at and fid == 1:
                r -= reads * 300 * 2
            out.append(f"BFIO-SQLSERVER,{t},{start},sales,{fid},{'ROWS' if fid == 1 else 'LOG'},{k * 300000},"
                       f"{r},{r * 65536},{w},{w * 8192},{name}")
    return "\n".join(out) + "\n"


def test_sqlserver_file_stats_deltas_summed_and_restarts_skipped(tmp_path: Path) -> None:
    (tmp_path / "ss.csv").write_text(sqlserver_lines())
    t = derive_targets(tmp_path / "ss.csv", percentile=100)
    assert t.sources[0].format == "sqlserver" and t.sources[0].members == ["sales:1", "sales:2"]
    assert t.samples == 7 and t.iops == pytest.approx(600 + 150 + 900)
    assert t.mbps == pytest.approx((600 * 65536 + 150 * 8192 + 900 * 8192) / 1e6)
    (tmp_path / "restart.csv").write_text(sqlserver_lines(restart_at=4))
    r = derive_targets(tmp_path / "restart.csv", percentile=100)
    assert r.samples == 6 and any("restart" in s for s in r.skipped)
    (tmp_path / "back.csv").write_text(sqlserver_lines(backwards_at=5))
    with pytest.raises(InputError, match="sales:1 .*num_of_reads went down .* no restart marker"):
        derive_targets(tmp_path / "back.csv")


def test_bad_history_exports_exit_2_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases: list[tuple[str, Callable[[Path], None], str]] = [
        ("cw.json", lambda p: p.write_text(json.dumps(cloudwatch(periods={"VolumeReadBytes": 60}))),
         "mixes periods"),
        ("cw_unit.json", lambda p: p.write_text(json.dumps(cloudwatch(unit={"VolumeWriteBytes": "Count"}))),
         "Unit Count"),
        ("ss.csv", lambda p: p.write_text(sqlserver_lines(backwards_at=3)), "went down"),
    ]
    for name, make, needle in cases:
        make(tmp_path / name)
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main([*PLAN, "--from", str(tmp_path / name), "--out", str(tmp_path / "p.json")])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and needle in err and len(err.strip().splitlines()) == 1, (name, err)
    assert not (tmp_path / "p.json").exists()
