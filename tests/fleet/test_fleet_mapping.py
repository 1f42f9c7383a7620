"""The mapping file (--hosts): read and checked once, capacities parsed into GB, the file before labels before
[defaults]."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import InputError
from blockfit.fleet.mapping import HostConfig, load_mapping
from blockfit.units import parse_volume_gb


def test_mapping_file(tmp_path: Path) -> None:
    path = tmp_path / "hosts.toml"
    path.write_text('[defaults]\ninstance = "VM.Standard.E4.Flex:8"\n\n[hosts."db-01"]\nlayout = "2x1T@balanced"\n'
                    'devices = "dm-3"\n')
    m = load_mapping(path)
    assert m.config("db-01:9100", {}) == HostConfig(layout="2x1T@balanced", instance="VM.Standard.E4.Flex:8",
                                                    devices="dm-3")
    assert m.config("db-01:9100", {}).capacity_gb is None
    # a label fills what the file does not say; the file's own entry wins over the label
    assert m.config("db-02:9100", {"blockfit_layout": "1x1T@higher"}).layout == "1x1T@higher"
    assert m.config("db-01:9100", {"blockfit_layout": "1x1T@higher"}).layout == "2x1T@balanced"
    for text, expect in (('[hosts."a"]\nsize = "1T"\n', "unknown key 'size'"), ('[hosts."a"]\nlayout = 3\n',
                                                                               "must be a non-empty string"),
                         ("[nodes]\n", "unknown table 'nodes'"), ("layout = \n", "not TOML"),
                         ('[defaults]\ncapacity = "3Tb"\n', r"\[defaults\] capacity '3Tb': Tb reads as bits"),
                         ('[hosts."a"]\ncapacity = "-1T"\n', r'\[hosts."a"\] capacity'),
                         # a device rule was not checked: each host said "no device matches" instead
                         ('[defaults]\ndevices = "sd["\n', r"\[defaults\] devices 'sd\[': not a regular expression")):
        path.write_text(text)
        with pytest.raises(InputError, match=expect) as info:
            load_mapping(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)




@given(st.sampled_from(["G", "GB", "GiB", "T", "TB", "TiB"]), st.integers(min_value=1, max_value=10**6))
def test_capacity_is_parsed_once_as_the_cli_parses_it(unit: str, amount: int) -> None:
    """A host's capacity, and [defaults]' for the hosts the file does not give one, arrive in GB."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "hosts.toml"
        path.write_text(f'[defaults]\ncapacity = "{amount}{unit}"\n[hosts."a"]\ncapacity = "{amount + 1}{unit}"\n'
                        '[hosts."b"]\nlayout = "1x1T@balanced"\n')
        m = load_mapping(path)
    assert m.config("a:9100", {}).capacity_gb == parse_volume_gb(f"{amount + 1}{unit}")
    assert m.config("b:9100", {}).capacity_gb == parse_volume_gb(f"{amount}{unit}")
