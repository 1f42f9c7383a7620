"""history.pg_record: how many samples a recording holds, which device a path is on, and a server that does not
answer named in one line without its password."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import ValueProblem
from blockfit.history import pg_record


@given(st.floats(0.5, 3600), st.integers(1, 10_000))
def test_a_recording_holds_one_sample_more_than_its_whole_intervals(interval: float, n: int) -> None:
    duration = interval * n + interval / 2
    assert pg_record.sample_count(interval, duration) == int(duration // interval) + 1


@pytest.mark.parametrize(("interval", "duration"), [(0, 10), (-1, 10), (10, 9.9)])
def test_less_than_one_interval_is_refused(interval: float, duration: float) -> None:
    with pytest.raises(ValueProblem, match="expected at least one interval"):
        pg_record.sample_count(interval, duration)


def test_more_samples_than_plan_reads_is_refused() -> None:
    assert pg_record.sample_count(1, pg_record.MAX_SAMPLES - 1) == pg_record.MAX_SAMPLES
    with pytest.raises(ValueProblem, match="record at a longer interval"):
        pg_record.sample_count(1, pg_record.MAX_SAMPLES)


def test_a_path_that_does_not_exist_is_on_no_device(tmp_path: Path) -> None:
    assert pg_record.device_of(str(tmp_path / "missing")) is None


def test_a_path_on_a_block_device_names_that_device() -> None:
    dev = next((pg_record.device_of(p) for p in ("/", "/work", "/tmp") if pg_record.device_of(p)), None)
    if dev is None:
        pytest.skip("no path here sits on a block device")
    assert Path(f"/sys/class/block/{dev.name}").exists()
    major, minor = (int(x) for x in dev.major_minor.split(":"))
    assert os.makedev(major, minor) == os.stat(dev.paths[0]).st_dev


def test_a_server_that_refuses_is_one_line_without_the_password() -> None:
    with pytest.raises(ValueProblem, match="connection string") as err:
        pg_record.Server("host=127.0.0.1 port=1 user=u password=hunter2 dbname=d connect_timeout=2", timeout_s=2)
    assert "hunter2" not in str(err.value) and "\n" not in str(err.value)
