"""The provisioning scripts act only on this host's volumes: run with real bash against stand-in `aws` and `oci`
CLIs on PATH (tests/support/cloud_standin.py, the cloud APIs being the one thing mocked), each case played from a
JSON state and every call logged: a clean run, a rerun, a same-name volume on another instance, a detached one,
adoption, an interrupted run resumed and rolled back."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from blockfit.emit import build
from support.build import make_layout, make_plan

STANDIN = Path(__file__).parent.parent / "support" / "cloud_standin.py"
MEMBERS = 3


@dataclass(frozen=True)
class Cloud:
    name: str
    me: str
    other: str
    zone: str
    devices: tuple[str, ...]
    changes: tuple[str, ...]   # the verbs that change something at the cloud

    @property
    def env(self) -> dict[str, str]:
        if self.name == "aws":
            return {"AWS_INSTANCE_ID": self.me, "AWS_AVAILABILITY_ZONE": self.zone}
        return {"OCI_INSTANCE_ID": self.me, "OCI_AVAILABILITY_DOMAIN": self.zone,
                "OCI_COMPARTMENT_ID": "ocid1.compartment.oc1..test"}

    def volume_id(self, n: int) -> str:
        return f"vol-{0xbeef00 + n:017x}" if self.name == "aws" else f"ocid1.volume.oc1.phx.seed{n:03d}"

    def is_change(self, call: list[str]) -> bool:
        return any(verb in call for verb in self.changes)

    def live(self, vol: dict[str, Any]) -> bool:
        return vol["state"] not in ("TERMINATED",)


CLOUDS = {
    "aws": Cloud("aws", "i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2", "us-east-1a",
                 tuple(f"/dev/nvme{i}n1" for i in range(1, MEMBERS + 1)),
                 ("create-volume", "attach-volume", "detach-volume", "delete-volume")),
    "oci": Cloud("oci", "ocid1.instance.oc1.phx.me", "ocid1.instance.oc1.phx.other", "Uocm:PHX-AD-1",
                 tuple(f"/dev/oracleoci/oraclevd{c}" for c in "bcd"),
                 ("create", "delete", "attach-iscsi-volume", "attach-paravirtualized-volume", "detach")),
}


class Rig:
    """One build's provisioning script, a stand-in CLI on PATH and its cloud."""

    def __init__(self, tmp_path: Path, cloud: Cloud, **overrides: Any) -> None:
        self.cloud = cloud
        out = tmp_path / "build"
        layout = make_layout(**{"cloud": cloud.name, "members": MEMBERS, "size_gb": 200,
                                "iops": 3000 if cloud.name == "aws" else None, **overrides})
        build(make_plan(layout), manager="lvm", devices=list(cloud.devices), out_dir=out,  # type: ignore[arg-type]
              provision_with=f"{cloud.name}-cli")
        self.script = out / f"00-provision-{cloud.name}.sh"
        self.state_file = out / f"00-provision-{cloud.name}.state"
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / cloud.name).write_text(f"#!{sys.executable} -S\n" + STANDIN.read_text())  # -S: stdlib only
        (bin_dir / cloud.name).chmod(0o755)
        self.world = tmp_path / "cloud.json"
        self.log = tmp_path / "calls.jsonl"
        self.log.touch()
        self.save({"volumes": {}, "instances": {cloud.me: cloud.zone, cloud.other: cloud.zone}})
        self.env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "STANDIN_STATE": str(self.world),
                    "STANDIN_LOG": str(self.log), **cloud.env}

    def load(self) -> dict[str, Any]:
        return json.loads(self.world.read_text())  # type: ignore[no-any-return]

    def save(self, world: dict[str, Any]) -> None:
        self.world.write_text(json.dumps(world))

    def seed(self, n: int, name: str, attached: list[str]) -> str:
        """A volume this script did not create, in this zone."""
        world = self.load()
        vid = self.cloud.volume_id(n)
        aws = self.cloud.name == "aws"
        world["volumes"][vid] = {"name": name, "zone": self.cloud.zone, "attached": attached, "tags": {"Name": name},
                                 "state": ("in-use" if attached else "available") if aws else "AVAILABLE"}
        self.save(world)
        return vid

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        self.log.write_text("")
        return subprocess.run(["bash", str(self.script), *args], capture_output=True, text=True,
                              env={**self.env, **env}, timeout=60)

    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def changes(self) -> list[list[str]]:
        return [c for c in self.calls() if self.cloud.is_change(c)]

    def ours(self) -> dict[str, dict[str, Any]]:
        """The live volumes this script created (they carry its token)."""
        return {vid: v for vid, v in self.load()["volumes"].items()
                if "blockfit-token" in v["tags"] and self.cloud.live(v)}

    def recorded(self) -> dict[int, tuple[str, str, str]]:
        """slot → (volume ID, created|adopted|pending, attached by the script)."""
        slots = {}
        for line in self.state_file.read_text().splitlines():
            words = line.split()
            if words and words[0] == "slot":
                slots[int(words[1])] = (words[3], words[4], words[5])
        return slots


def refusals(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "REFUSED" in ln]


@pytest.fixture(params=sorted(CLOUDS))
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Rig:
    return Rig(tmp_path, CLOUDS[request.param])


def test_a_clean_run_creates_attaches_and_records_each_volume(rig: Rig) -> None:
    res = rig.run()
    assert res.returncode == 0, res.stderr
    ours = rig.ours()
    assert len(ours) == MEMBERS
    assert all(v["attached"] == [rig.cloud.me] and v["zone"] == rig.cloud.zone for v in ours.values())
    recorded = rig.recorded()
    assert sorted(recorded) == [1, 2, 3]
    assert {vid for vid, _, _ in recorded.values()} == set(ours)
    assert all(origin == "created" and attached == "yes" for _, origin, attached in recorded.values())
    names = {ours[vid]["name"] for vid, _, _ in recorded.values()}
    assert names == {"blockfit-vg-01", "blockfit-vg-02", "blockfit-vg-03"}
    state = rig.state_file.read_text()
    assert f"instance {rig.cloud.me}\n" in state and f"zone {rig.cloud.zone}\n" in state
    left = {p.name for p in rig.state_file.parent.glob("*.state*")}
    assert left == {rig.state_file.name, rig.state_file.name + ".lock"}, "a temporary state file was left"


def test_b_a_rerun_changes_nothing(rig: Rig) -> None:
    assert rig.run().returncode == 0
    before, recorded = rig.load()["volumes"], rig.state_file.read_text()
    res = rig.run()
    assert res.returncode == 0, res.stderr
    assert rig.changes() == [] and rig.calls(), "a rerun reads, and changes nothing"
    assert rig.load()["volumes"] == before and rig.state_file.read_text() == recorded
    assert res.stderr.count("already done") == MEMBERS


def test_c_a_same_name_volume_on_another_instance_is_refused(rig: Rig) -> None:
    theirs = rig.seed(1, "blockfit-vg-02", [rig.cloud.other])
    before = rig.load()
    for args in ((), ("--adopt", theirs)):
        res = rig.run(*args)
        assert res.returncode == 1
        lines = refusals(res.stderr)
        assert len(lines) == 1 and theirs in lines[0] and rig.cloud.other in lines[0], res.stderr
        assert rig.changes() == [], "nothing may be created or attached"
        assert rig.load()["volumes"] == before["volumes"]
        assert not rig.state_file.exists()


def test_d_a_detached_same_name_volume_is_refused_unless_adopted(rig: Rig) -> None:
    stray = rig.seed(1, "blockfit-vg-01", [])
    res = rig.run()
    assert res.returncode == 1
    lines = refusals(res.stderr)
    assert len(lines) == 1 and f"--adopt {stray}" in lines[0] and "may hold data" in lines[0], res.stderr
    assert rig.changes() == [] and not rig.state_file.exists()

    res = rig.run("--adopt", stray)
    assert res.returncode == 0, res.stderr
    world = rig.load()["volumes"]
    assert world[stray]["attached"] == [rig.cloud.me]
    recorded = rig.recorded()
    assert recorded[1] == (stray, "adopted", "yes")
    assert {origin for _, origin, _ in (recorded[2], recorded[3])} == {"created"}
    assert len(rig.ours()) == MEMBERS - 1

    # rollback deletes what it created and keeps the adopted volume
    res = rig.run("--rollback")
    assert res.returncode == 0, res.stderr
    assert rig.ours() == {} and stray in rig.load()["volumes"] and rig.cloud.live(rig.load()["volumes"][stray])
    assert not rig.state_file.exists()


def test_d_an_adopted_volume_of_another_name_fills_the_first_free_slot(rig: Rig) -> None:
    spare = rig.seed(2, "old-data-7", [])
    res = rig.run(BLOCKFIT_ADOPT=spare)
    assert res.returncode == 0, res.stderr
    assert rig.recorded()[1] == (spare, "adopted", "yes") and len(rig.ours()) == MEMBERS - 1


def test_e_an_interrupted_run_resumes_on_rerun(rig: Rig) -> None:
    world = rig.load()
    rig.save({**world, "fail_create": [2]})
    res = rig.run()
    assert res.returncode == 1 and "rerun to resume" in res.stderr
    assert len(rig.ours()) == 1
    assert rig.recorded()[1][1:] == ("created", "yes") and rig.recorded()[2][1] == "pending"

    rig.save({**rig.load(), "fail_create": []})
    res = rig.run()
    assert res.returncode == 0, res.stderr
    ours = rig.ours()
    assert len(ours) == MEMBERS and all(v["attached"] == [rig.cloud.me] for v in ours.values())
    assert {vid for vid, _, _ in rig.recorded().values()} == set(ours)
    assert sum(bool({"create", "create-volume"} & set(c)) for c in rig.changes()) == MEMBERS - 1  # slots 2, 3


def test_e_a_create_whose_reply_was_lost_is_found_by_its_token(rig: Rig) -> None:
    rig.save({**rig.load(), "lose_create": [1]})
    assert rig.run().returncode == 1
    assert len(rig.ours()) == 1 and rig.recorded()[1][1] == "pending"
    res = rig.run()
    assert res.returncode == 0, res.stderr
    assert len(rig.ours()) == MEMBERS, "the volume of the lost reply is used, not made again"


def test_e_an_interrupted_run_rolls_back_only_what_it_created(rig: Rig) -> None:
    keep_detached = rig.seed(1, "blockfit-vg-09", [])
    keep_theirs = rig.seed(2, "their-data", [rig.cloud.other])
    rig.save({**rig.load(), "fail_create": [2]})
    assert rig.run().returncode == 1
    (created, _, _), = [rig.recorded()[1]]
    before, recorded = rig.load(), rig.state_file.read_text()

    dry = rig.run("--rollback", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    printed = [ln for ln in dry.stdout.splitlines() if ln.startswith("DRY-RUN:")]
    assert len(printed) == 2 and "detach" in printed[0] and created in printed[1]
    assert not any(keep_detached in ln or keep_theirs in ln for ln in printed)
    assert rig.changes() == [] and rig.load() == before and rig.state_file.read_text() == recorded

    res = rig.run("--rollback")
    assert res.returncode == 0, res.stderr
    world = rig.load()["volumes"]
    assert created not in world or not rig.cloud.live(world[created])
    assert world[keep_detached] == before["volumes"][keep_detached]
    assert world[keep_theirs] == before["volumes"][keep_theirs]
    changes = rig.changes()
    assert len(changes) == 2 and created in changes[1] and "detach" in " ".join(changes[0])
    assert not any(keep_detached in c or keep_theirs in c for c in changes)
    assert not rig.state_file.exists()
    again = rig.run("--rollback")
    assert again.returncode == 0 and "nothing to roll back" in again.stderr and rig.changes() == []


def test_a_state_file_of_another_instance_is_refused(rig: Rig) -> None:
    assert rig.run().returncode == 0
    key = "AWS_INSTANCE_ID" if rig.cloud.name == "aws" else "OCI_INSTANCE_ID"
    res = rig.run(**{key: rig.cloud.other})
    assert res.returncode == 1 and len(refusals(res.stderr)) == 1 and rig.cloud.other in res.stderr
    assert rig.changes() == []


def test_a_recorded_volume_moved_to_another_instance_is_refused(rig: Rig) -> None:
    assert rig.run().returncode == 0
    world = rig.load()
    vid = rig.recorded()[2][0]
    world["volumes"][vid]["attached"] = [rig.cloud.other]
    rig.save(world)
    res = rig.run()
    assert res.returncode == 1 and len(refusals(res.stderr)) == 1 and vid in res.stderr
    assert rig.changes() == []


@pytest.mark.parametrize("bad", ["i-1; rm -rf /", "$(id)"])
def test_an_instance_id_that_is_not_one_is_refused_before_any_call(rig: Rig, bad: str) -> None:
    key = "AWS_INSTANCE_ID" if rig.cloud.name == "aws" else "OCI_INSTANCE_ID"
    res = rig.run(**{key: bad})
    assert res.returncode == 2 and rig.calls() == [] and len(res.stderr.strip().splitlines()) == 1


def test_an_adopt_that_is_no_volume_id_is_refused(rig: Rig) -> None:
    res = rig.run("--adopt", "x'y")
    assert res.returncode == 2 and rig.calls() == [] and "--adopt" in res.stderr


def test_a_second_run_while_one_holds_the_state_is_refused(rig: Rig) -> None:
    lock = rig.state_file.with_name(rig.state_file.name + ".lock")
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)   # as a run in progress holds it
        res = rig.run()
    assert res.returncode == 1 and len(refusals(res.stderr)) == 1 and "holds" in res.stderr
    assert rig.calls() == []


@pytest.mark.parametrize("layout", [dict(vpu=30, attachment="paravirtualized"), dict(vpu=120)],
                         ids=["paravirtualized", "uhp-iscsi"])
def test_oci_attaches_as_the_plan_says_and_checks_the_uhp_agent_first(tmp_path: Path, layout: dict[str, Any]) -> None:
    rig = Rig(tmp_path, CLOUDS["oci"], **layout)
    res = rig.run()
    assert res.returncode == 0, res.stderr
    verbs = [" ".join(c[1:4]) for c in rig.calls()]
    attaches = [v for v in verbs if "attach-" in v]
    kind = "attach-paravirtualized-volume" if layout.get("attachment") else "attach-iscsi-volume"
    assert attaches == [f"compute volume-attachment {kind}"] * MEMBERS
    uhp = layout["vpu"] >= 30 and not layout.get("attachment")
    if uhp:   # the agent's plugin is read before the first change; the stand-in's instance has none
        assert verbs.index("compute instance get") < verbs.index("bv volume create")
        assert "Block Volume Management plugin is not enabled" in res.stderr
    else:
        assert "compute instance get" not in verbs


@pytest.mark.parametrize("line", [
    "slot 1 blockfit-vg-01 $(touch${{IFS}}/tmp/x) created yes",  # a command where an ID goes
    "slot 1 blockfit-vg-07 {vid} created yes",                 # a name that is no slot of this script
    "slot 9 blockfit-vg-01 {vid} created yes",                 # a slot it does not have
    "slot 1 blockfit-vg-01 {vid} stolen yes",                  # an origin it never writes
    "slot 1 blockfit-vg-01 {vid} created yes extra",
    "rm -rf /",
])
def test_a_state_line_the_script_did_not_write_is_refused_before_any_call(rig: Rig, line: str) -> None:
    text = (f"instance {rig.cloud.me}\nzone {rig.cloud.zone}\ntoken bf-1\n"
            f"slot 2 blockfit-vg-02 {rig.cloud.volume_id(4)} created yes\n{line.format(vid=rig.cloud.volume_id(5))}\n")
    rig.state_file.write_text(text)
    res = rig.run()
    assert res.returncode == 1 and rig.calls() == []
    lines = refusals(res.stderr)
    assert len(lines) == 1 and str(rig.state_file) in lines[0], res.stderr
    assert rig.state_file.read_text() == text


def test_standin_is_used(rig: Rig) -> None:
    """The stand-in, not an installed CLI, answers (PATH puts it first)."""
    assert rig.run().returncode == 0
    assert rig.calls() and all(c[0] == rig.cloud.name for c in rig.calls())
    assert os.access(rig.script, os.X_OK)
