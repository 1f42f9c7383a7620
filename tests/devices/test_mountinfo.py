"""The mountinfo reader: options that matter to latency, octal unescaping, and fuzzing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.devices import mountinfo

MOUNTINFO = """27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
42 27 7:0 / /tmp/a\\040b rw,noatime - ext4 /dev/loop0 rw,nobarrier
43 27 7:1 / /data rw,relatime shared:5 - ext4 /dev/loop1 rw,data=writeback
44 27 253:2 / /u01 rw,noatime - xfs /dev/mapper/vg-lv rw,attr2,inode64,sunit=1024,swidth=4096
"""


def test_mountinfo_options() -> None:
    ms = mountinfo.parse(MOUNTINFO)
    assert [m.barriers for m in ms] == [True, False, True, True]
    assert ms[1].mount_point == "/tmp/a b" and ms[1].atime == "noatime"
    assert ms[2].data_mode == "writeback" and ms[2].atime == "relatime"
    assert ms[3].option("sunit") == "1024"
    assert mountinfo.read()  # this host's own table parses


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_mountinfo(text: str) -> None:
    try:
        mountinfo.parse(text, "fuzz")
    except mountinfo.MountError as exc:
        assert "fuzz line " in str(exc)
