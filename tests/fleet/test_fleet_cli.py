"""`blockfit fleet` as its own command (issue 39): every option checked before the first request, the answer's
exit codes, and `plan --from prometheus+…` still working with one line pointing to it."""

from __future__ import annotations

import json
import socket

import pytest

from support.fleet import run_cli
from support.fleet_history import Fleet, fleet_args

INSTANCE = "VM.Standard.E4.Flex:8"
UNUSED = "prometheus+http://127.0.0.1:1"
# --mount is no longer fleet's alone: plan --inventory takes it in the same meaning (the layout under a mount point)
FLEET_ONLY = ("--match", "--range", "--step", "--until", "--hosts", "--concurrency")


def _options(help_text: str) -> list[str]:
    return [line.split()[0].rstrip(",") for line in help_text.splitlines() if line.startswith("  -")]


def test_plan_help_is_one_plan_and_fleet_help_has_the_fleet() -> None:
    code, plan_help, _ = run_cli("plan", "--help")
    assert code == 0
    listed = _options(plan_help)
    assert not set(FLEET_ONLY) & set(listed), listed
    code, fleet_help, _ = run_cli("fleet", "--help")
    assert code == 0 and set(FLEET_ONLY) <= set(_options(fleet_help))
    code, root_help, _ = run_cli("--help")
    assert code == 0 and "fleet" in root_help.split()


@pytest.mark.parametrize(("args", "names"), [
    (["--range", "3x"], "--range"),
    (["--step", "0s"], "--step"),
    (["--range", "1m", "--step", "1m"], "--range"),
    (["--until", "2999-01-01"], "--until"),
    (["--concurrency", "65"], "--concurrency"),
    (["--devices", "["], "--devices"),
    (["--mount", "u01"], "--mount"),
    (["--mount", "/u01"], "--mount"),                      # and --devices dm-3: one or the other
    (["--hosts", "/nonexistent.toml"], "--hosts"),
    (["--capacity", "3x"], "--capacity"),
    (["--instance", "VM.Standard.E4"], "instance shape"),
    (["--manager", "zfs"], "--manager"),
    (["--instance", "any"], "--instance any: a fleet plans each host on one shape"),
    (["--queue-depth", "64", "--cloud", "aws", "--instance", "r7i.4xlarge"], "--queue-depth"),
])
def test_bad_options_fail_before_any_request(args: list[str], names: str) -> None:
    code, out, err = run_cli("fleet", "--from", UNUSED, "--devices", "dm-3", "--instance", INSTANCE, *args)
    assert code == 2 and out == "", err
    assert names in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("args", "names"), [
    ([], "--devices or --mount"),
    (["--from", "prometheus+ftp://x", "--devices", "dm-3"], "--from"),
])
def test_a_fleet_needs_a_source_and_its_devices(args: list[str], names: str) -> None:
    code, out, err = run_cli("fleet", "--from", UNUSED, *args)
    assert code == 2 and out == "" and names in err and len(err.strip().splitlines()) == 1, err


def test_a_bad_capacity_in_the_mapping_file_stops_the_run_before_any_request(tmp_path) -> None:
    """Parsed once, when the file is read (it was parsed per host, after the queries, and again for the plan)."""
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[hosts."db-01"]\ncapacity = "3 bananas"\n')
    code, out, err = run_cli("fleet", "--from", UNUSED, "--devices", "dm-3", "--hosts", str(hosts))
    assert code == 2 and out == ""
    assert err.startswith(f"blockfit: error: --hosts {hosts}: [hosts.\"db-01\"] capacity '3 bananas'"), err
    assert len(err.strip().splitlines()) == 1


def test_unreachable_server_is_exit_4() -> None:
    """A port held bound but not listening: the connection is refused for sure (a port merely free a moment ago
    could be taken by another process before blockfit connects)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        code, out, err = run_cli("fleet", "--from", f"prometheus+http://127.0.0.1:{held.getsockname()[1]}",
                                 "--devices", "sda", "--instance", INSTANCE, "--capacity", "1T")
    assert code == 4 and out == ""
    assert err.startswith("blockfit: error: prometheus+http://127.0.0.1:") and "cannot reach" in err
    assert len(err.strip().splitlines()) == 1


def test_plan_from_prometheus_still_runs_the_fleet_with_one_line_pointing_to_it() -> None:
    """The old spelling reaches the same server the same way (here: none listening, exit 4), after one line."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        url = f"prometheus+http://127.0.0.1:{held.getsockname()[1]}"
        code, out, err = run_cli("plan", "--from", url, "--devices", "sda", "--instance", INSTANCE,
                                 "--capacity", "1T", "--json")
    lines = err.strip().splitlines()
    assert code == 4 and out == "" and len(lines) == 2, lines
    assert lines[0].startswith("blockfit: warning: plan --from prometheus+") and "blockfit fleet --from" in lines[0]
    assert "cannot reach" in lines[1]


@pytest.mark.parametrize(("args", "names"), [
    (["--target-iops", "5"], "--target-iops"),
    (["--family", "r7i"], "--family"),
])
def test_plan_from_prometheus_refuses_what_a_fleet_takes_from_history(args: list[str], names: str) -> None:
    code, out, err = run_cli("plan", "--from", UNUSED, "--devices", "dm-3", "--instance", INSTANCE,
                             "--capacity", "1T", *args)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 2 and names in lines[1], lines


@pytest.mark.parametrize("option", FLEET_ONLY)
def test_plan_no_longer_takes_the_fleet_only_options(option: str) -> None:
    code, out, _ = run_cli("plan", "--capacity", "1T", "--instance", INSTANCE, option, "x")
    assert code == 2 and out == ""


def test_plan_without_a_fleet_is_unchanged() -> None:
    """One plan still parses every shared option the fleet now also uses (a regression guard for the split)."""
    code, out, err = run_cli("plan", "--capacity", "2000G", "--target-iops", "40k", "--instance", INSTANCE,
                             "--growth", "10%", "--max-latency", "2ms", "--manager", "mdadm", "--paths", "2",
                             "--queue-depth", "64", "--json")
    assert code == 0, err
    req = json.loads(out)["requirements"]
    assert (req["capacity_gb"], req["target_iops"], req["growth_pct"], req["max_latency_ms"]) == (2000, 40000, 10,
                                                                                                 2)
    assert (req["manager"], req["paths"], req["queue_depth"]) == ("mdadm", 2, 64)


def test_human_output_lists_hosts_and_reset_note(fleet: Fleet) -> None:
    code, out, err = run_cli(*fleet_args(fleet, "--devices", "dm-3"))
    assert code == 2
    assert "db-under-0:9100" in out and "under" in out and "Monthly cost of" in out
    assert "note: db-reset:9100: the counters restarted 1 time" in out
    assert len(err.strip().splitlines()) == 3
