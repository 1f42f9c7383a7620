"""Issue 22, finding 8: one numeric grammar for every option, and conflicting options as one-line errors.

Counts and targets take k/M/G ('150k'); shares take '%' and refuse a bare fraction; ASCII digits only; 'Tb' is
bits. Each case is the issue's own command, run in this process through the CLI's entry point.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import InputError
from blockfit.history.targets import parse_percentile
from blockfit.units import parse_percent, parse_quantity, parse_volume_gb
from support.faults import run

PLAN = ["plan", "--cloud", "oci", "--capacity", "4.5T", "--instance", "VM.Standard.E4.Flex:16"]
MODEL = ["model", "--cloud", "oci", "--layout", "1x2T@120vpu", "--instance", "VM.Standard.E4.Flex:16"]


def plan_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    out = run(capsys, *PLAN, "--json", *extra)
    assert out.code == 0, out.err
    return json.loads(out.out)


def test_suffixed_targets_and_percent_signs_mean_what_they_say(capsys: pytest.CaptureFixture[str]) -> None:
    """'--target-iops 150k --growth 20%' plans exactly as '--target-iops 150000 --growth 20'."""
    suffixed = plan_json(capsys, "--target-iops", "150k", "--growth", "20%")
    plain = plan_json(capsys, "--target-iops", "150000", "--growth", "20")
    assert suffixed["requirements"]["target_iops"] == 150_000
    assert suffixed["requirements"]["growth_pct"] == 20
    assert suffixed["candidates"][0]["layout"] == plain["candidates"][0]["layout"]


@pytest.mark.parametrize(("option", "value", "needle"), [
    ("--read-pct", "0.7", "70%"),          # was: 1 % reads
    ("--growth", "0.2", "20%"),
    ("--growth", "1.3", "30%"),            # was: +1.3 %
    ("--target-iops", "١٥٠٠٠٠", "150k"),  # Arabic-Indic digits: were read as 150000
    ("--target-iops", "150m", "150k"),     # milli, not mega
    ("--paths", "64", "at most 6"),        # was accepted
])
def test_ambiguous_or_foreign_numbers_are_refused_with_the_accepted_form(
        capsys: pytest.CaptureFixture[str], option: str, value: str, needle: str) -> None:
    args = [*PLAN, option, value] + ([] if option == "--target-iops" else ["--target-iops", "100k"])
    out = run(capsys, *args)
    assert out.code == 2
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and needle in lines[0], out.err
    assert out.out == ""


def test_history_options_refuse_fractions(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    """--percentile 0.95 planned for the 0.95th percentile; --headroom 1.3 for +1.3 %."""
    hist = tmp_path / "h.csv"
    hist.write_text("timestamp,read_iops,write_iops,read_mbps,write_mbps\n"
                    + "".join(f"2026-01-01T00:{m:02d}:00,{100 + m},{50},{1.0},{0.5}\n" for m in range(20)))
    for option, value, needle in (("--percentile", "0.95", "p95"), ("--headroom", "1.3", "30%")):
        out = run(capsys, "plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:4",
                  "--from", str(hist), option, value)
        assert out.code == 2 and option in out.err and needle in out.err, out.err
    ok = run(capsys, "plan", "--cloud", "oci", "--capacity", "1T", "--instance", "VM.Standard.E4.Flex:4",
             "--from", str(hist), "--percentile", "p95", "--headroom", "30%", "--json")
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["requirements"]["history"]["headroom_pct"] == 30


def test_terabits_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "plan", "--cloud", "oci", "--capacity", "4.5Tb", "--instance", "VM.Standard.E4.Flex:16",
              "--target-iops", "1k")
    assert out.code == 2 and "--capacity" in out.err and "bits" in out.err


def test_paths_on_a_paravirtualized_attachment_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, *MODEL, "--attachment", "paravirtualized", "--paths", "6")
    assert out.code == 2 and "--paths 6" in out.err and "iscsi" in out.err
    assert run(capsys, *MODEL, "--attachment", "iscsi", "--paths", "6").code == 0


def test_example_with_its_own_options_is_a_conflict(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "plan", "--example", "part3", "--capacity", "2T")
    assert out.code == 2 and "--capacity" in out.err and "--example part3" in out.err
    assert run(capsys, "plan", "--example", "part3", "--json").code == 0


@pytest.mark.parametrize(("cloud", "shape"), [("aws", "r6i"), ("azure", "Standard_"), ("gcp", "n2-")])
def test_instance_example_is_of_the_cloud_asked(capsys: pytest.CaptureFixture[str], cloud: str, shape: str) -> None:
    out = run(capsys, "model", "--cloud", cloud, "--layout", "1x1T@" + {"aws": "gp3", "azure": "premium-v1",
                                                                         "gcp": "pd-balanced"}[cloud])
    assert out.code == 2 and shape in out.err and "VM.Standard" not in out.err, out.err


@given(st.floats(min_value=1, max_value=1e6, allow_nan=False).map(lambda x: round(x, 3)),
       st.sampled_from([("", 1.0), ("k", 1e3), ("K", 1e3), ("M", 1e6)]))
def test_quantity_suffixes_multiply(number: float, suffix: tuple[str, float]) -> None:
    unit, factor = suffix
    assert parse_quantity(f"{number:g}{unit}", "--x") == pytest.approx(float(f"{number:g}") * factor)


@given(st.floats(min_value=0.001, max_value=0.999).map(lambda x: round(x, 3)).filter(lambda x: 0 < x < 1))
def test_bare_fractions_are_refused_and_percent_forms_taken(fraction: float) -> None:
    text = f"{fraction:g}"
    with pytest.raises(InputError, match="fraction"):
        parse_percent(text, "--read-pct")
    with pytest.raises(InputError, match="fraction"):
        parse_percentile(text)
    assert parse_percent(text + "%", "--read-pct") == pytest.approx(fraction)
    assert parse_percentile("p" + text) == pytest.approx(fraction)


@pytest.mark.parametrize("text", ["٥٠٠G", "５００G", "500Gb", "4.5Tb"])
def test_volume_sizes_take_ascii_digits_and_bytes_only(text: str) -> None:
    with pytest.raises(InputError):
        parse_volume_gb(text, "--capacity")


@pytest.mark.parametrize("command", [MODEL, PLAN])
def test_io_sizes_given_large_first_are_refused(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    """`--io-sizes 1m,8k` was taken as a 1 MiB small I/O and an 8 KiB large one."""
    out = run(capsys, *command, "--io-sizes", "1m,8k")
    assert out.code == 2 and len(out.err.strip().splitlines()) == 1
    assert "--io-sizes '1m,8k': the small size 1m is larger than the large size 8k" in out.err
    assert "e.g. 8k,1m" in out.err
    assert run(capsys, *command, "--io-sizes", "64k,64k").code == 0


@pytest.mark.parametrize("spec, told", [
    ("1x49.6G@balanced", "49.6 GB is not a size OCI Block Volume is sold in (1 GB steps); expected 1x50G"),
    ("3x0.3T@balanced", "307.2 GB is not a size OCI Block Volume is sold in (1 GB steps); expected 3x308G"),
])
def test_a_size_the_cloud_does_not_sell_is_refused_not_rounded(capsys: pytest.CaptureFixture[str], spec: str,
                                                               told: str) -> None:
    """`1x49.6G` was silently modelled as 1x50G."""
    out = run(capsys, "model", "--cloud", "oci", "--layout", spec, "--instance", "VM.Standard.E4.Flex:16")
    assert out.code == 2 and told in out.err and len(out.err.strip().splitlines()) == 1
    assert run(capsys, "model", "--cloud", "oci", "--layout", "1x50G@balanced", "--instance",
               "VM.Standard.E4.Flex:16").code == 0
