"""Every error a user can cause: one line naming the input and what was expected, exit 2, no traceback."""

import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.specs import parse_instance, parse_layout


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=60)


OK = ["model", "--cloud", "oci", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12"]


@pytest.mark.parametrize("args,needle", [
    (["--layout", "9x500Q@balanced"], "'9x500Q@balanced'"),
    (["--layout", "0x500G@balanced"], "at least 1 volume"),
    (["--layout", "9x500G@uhp"], "explicit VPU"),
    (["--layout", "9x500G@7vpu"], "7 VPU/GB"),
    (["--layout", "9x500G@platinum"], "'platinum'"),
    (["--layout", "1x10G@balanced"], "50 to 32768 GB"),
    (["--instance", "VM.Standard.E3.Flex:0"], "OCPU"),
    (["--instance", "VM.Standard.E3.Flex:65"], "1 to 64"),
    (["--instance", "VM.Standard.E3.Flex"], "SHAPE:COUNT"),
    (["--instance", "VM.Nope.Flex:4"], "'VM.Nope.Flex'"),
    (["--cloud", "ibm"], "--cloud 'ibm'"),
    (["--small-io", "8q"], "--small-io"),
    (["--catalog", "1999-01-01"], "no oci catalog version that early"),
    (["--catalog", "yesterday"], "--catalog 'yesterday'"),
    (["--catalog", "~\n"], "names no user or home"),  # Path.expanduser raised RuntimeError (fuzz found it)
    (["--catalog", "~no-such-user/c.toml"], "names no user or home"),
    (["--queue-depth", "0"], "--queue-depth"),
    (["--no-such-option"], "No such option"),
])
def test_model_errors_are_one_line_exit_2(args, needle):
    base = list(OK)
    for i in range(0, len(args), 2):
        if args[i] in base:
            base[base.index(args[i]) + 1] = args[i + 1]
        else:
            base += args[i:i + 2]
    r = run(*base)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_model_json_has_prediction_keys():
    import json
    r = run(*OK, "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    for key in ("max_iops", "max_mbps", "iops_limited_by", "mbps_limited_by", "cost", "limits", "warnings"):
        assert key in data
    assert data["iops_limited_by"] == "instance_mbps"


CATALOGS = {c: load_catalog(c) for c in ("oci", "aws")}


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40), cloud=st.sampled_from(sorted(CATALOGS)))
@example(text="m5.large/\n", cloud="aws")  # the /OPTION error quoted what followed the '/' as typed
def test_random_strings_never_crash_the_spec_parsers(text, cloud):
    for parse in (parse_layout, parse_instance):
        try:
            parse(text, cloud, CATALOGS[cloud])
        except InputError as exc:
            assert "\n" not in str(exc) and str(exc)


@settings(max_examples=300, deadline=None)
@given(count=st.integers(-5, 2000), size=st.floats(0, 1e6, allow_nan=False),
       unit=st.sampled_from(["G", "T", "GiB", "x"]),
       level=st.sampled_from(["balanced", "higher", "lower-cost", "uhp", "10vpu", "35vpu", "120vpu", "gp3", "io2"]),
       iops=st.one_of(st.none(), st.integers(0, 10**7)))
def test_structured_layout_specs_parse_or_explain(count, size, unit, level, iops):
    spec = f"{count}x{size:g}{unit}@{level}" + (f":{iops}" if iops is not None else "")
    try:
        lay = parse_layout(spec, "oci", CATALOGS["oci"])
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert lay.members == count and 50 <= lay.volume.size_gb <= 32768
