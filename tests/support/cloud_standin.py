"""A stand-in for the `aws` and `oci` CLIs, the one thing the provisioning tests mock: it plays a cloud from a JSON
state (volumes, their zone, name, tags and attachments; the instances and their zones), answers exactly the reads
and changes the generated scripts make, and logs every call (argv, one JSON line) to the log file.

A test copies this program into tmp_path as `aws` and `oci` (STANDIN_STATE and STANDIN_LOG name the files). A query
it does not know fails loudly (exit 99), so a script whose reads change is caught rather than answered wrongly.
Faults the state can ask for: `fail_create` (the k-th create call fails, nothing made), `lose_create` (the k-th
create makes the volume, then fails as a lost reply would)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

State = dict[str, Any]


def load() -> State:
    return json.loads(Path(os.environ["STANDIN_STATE"]).read_text())


def save(state: State) -> None:
    path = Path(os.environ["STANDIN_STATE"])
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(path)


def fail(message: str, code: int = 254) -> None:
    print(message, file=sys.stderr)
    sys.exit(code)


def options(argv: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Words before the first option, and each option's values (an option may take several: --filters A B)."""
    words: list[str] = []
    opts: dict[str, list[str]] = {}
    current: str | None = None
    for arg in argv:
        if arg.startswith("--"):
            current = arg
            opts.setdefault(arg, [])
        elif current is None:
            words.append(arg)
        else:
            opts[current].append(arg)
    return words, opts


def one(opts: dict[str, list[str]], name: str) -> str:
    values = opts.get(name)
    if not values or len(values) != 1:
        fail(f"stand-in: {name} needs exactly one value, got {values}", 2)
    return values[0]  # type: ignore[index]


def count_create(state: State) -> tuple[bool, bool]:
    """(fail before creating, lose the reply after creating) for this create call."""
    state["creates"] = state.get("creates", 0) + 1
    n = state["creates"]
    return n in state.get("fail_create", []), n in state.get("lose_create", [])


def attach(state: State, vid: str, instance: str) -> None:
    vol = state["volumes"].get(vid)
    if vol is None or vol["state"] not in ("available", "AVAILABLE"):
        fail(f"stand-in: volume {vid} is not available to attach ({vol and vol['state']})")
    if state["instances"].get(instance) != vol["zone"]:
        fail(f"stand-in: instance {instance} is not in the volume's zone {vol['zone']}")
    vol["attached"] = [instance]
    vol["state"] = "in-use" if vol["state"] == "available" else "AVAILABLE"


# ---------------------------------------------------------------- aws
AWS_QUERIES = {
    "Volumes[0].[AvailabilityZone, join(',', Attachments[].InstanceId)]":
        lambda vols: [[v["zone"], ",".join(v["attached"])] for v in vols][:1] or None,
    "Volumes[].[VolumeId, join(',', Attachments[].InstanceId)]":
        lambda vols: [[v["id"], ",".join(v["attached"])] for v in vols],
    "Volumes[0].VolumeId": lambda vols: vols[0]["id"] if vols else None,
}


def aws_text(value: object) -> str:
    """`--output text`: rows of tab-separated fields; null is None."""
    if value is None:
        return "None\n"
    if isinstance(value, list):
        rows = value if value and isinstance(value[0], list) else [value]
        return "".join("\t".join("None" if f is None else str(f) for f in row) + "\n" for row in rows if row)
    return f"{value}\n"


def aws_filter(vols: list[dict[str, Any]], filters: list[str]) -> list[dict[str, Any]]:
    for f in filters:
        m = re.fullmatch(r"Name=([^,]+),Values=(.*)", f)
        if not m:
            fail(f"stand-in: filter {f!r}", 2)
        key, value = m.groups()  # type: ignore[union-attr]
        if key == "availability-zone":
            vols = [v for v in vols if v["zone"] == value]
        elif key.startswith("tag:"):
            vols = [v for v in vols if v["tags"].get(key[4:]) == value]
        else:
            fail(f"stand-in: filter {key!r}", 2)
    return vols


def aws_describe(state: State, opts: dict[str, list[str]]) -> object:
    vols = [dict(v, id=k) for k, v in state["volumes"].items()]
    if "--volume-ids" in opts:
        wanted = opts["--volume-ids"]
        for vid in wanted:
            if vid not in state["volumes"]:
                fail(f"An error occurred (InvalidVolume.NotFound) when calling the DescribeVolumes operation: "
                     f"The volume '{vid}' does not exist.")
        vols = [v for v in vols if v["id"] in wanted]
    vols = aws_filter(vols, opts.get("--filters", []))
    return AWS_QUERIES[one(opts, "--query")](vols)


def aws_create(state: State, opts: dict[str, list[str]]) -> object:
    token = one(opts, "--client-token")
    for vid, vol in state["volumes"].items():   # a client token makes the create idempotent
        if vol.get("client_token") == token:
            return vid
    fails, loses = count_create(state)
    if fails:
        fail("An error occurred (VolumeLimitExceeded) when calling the CreateVolume operation: stand-in fault")
    tags = dict(re.findall(r"\{Key=([^,]+),Value=([^}]*)\}", one(opts, "--tag-specifications")))
    vid = f"vol-{len(state['volumes']) + 1:017x}"
    state["volumes"][vid] = {"name": tags.get("Name", ""), "zone": one(opts, "--availability-zone"),
                             "state": "available", "attached": [], "tags": tags, "client_token": token,
                             "size": int(one(opts, "--size")), "type": one(opts, "--volume-type")}
    if loses:
        save(state)
        fail("Read timeout on endpoint URL: stand-in lost reply", 255)
    return vid


def aws(argv: list[str]) -> None:
    state = load()
    words, opts = options(argv)
    if words[:2] == ["ec2", "wait"]:
        want = {"volume-available": "available", "volume-in-use": "in-use"}[words[2]]
        for vid in opts["--volume-ids"]:
            if state["volumes"].get(vid, {}).get("state") != want:
                fail(f"Waiter {words[2]} failed: {vid}", 255)
        return
    verb = words[1]
    if verb == "describe-volumes":
        value = aws_describe(state, opts)
    elif verb == "create-volume":
        value = aws_create(state, opts)
        assert one(opts, "--query") == "VolumeId"
    elif verb == "attach-volume":
        attach(state, one(opts, "--volume-id"), one(opts, "--instance-id"))
        value = {}
    elif verb == "detach-volume":
        vol = state["volumes"][one(opts, "--volume-id")]
        vol["attached"], vol["state"] = [], "available"
        value = {}
    elif verb == "delete-volume":
        vid = one(opts, "--volume-id")
        if state["volumes"][vid]["attached"]:
            fail(f"An error occurred (VolumeInUse): {vid} is attached")
        del state["volumes"][vid]
        value = {}
    else:
        fail(f"stand-in: aws {' '.join(words)}", 99)
    save(state)
    if "--query" in opts:
        sys.stdout.write(aws_text(value))


# ---------------------------------------------------------------- oci
LIVE = "&& \"lifecycle-state\"!='TERMINATED'"


def oci_not_found(what: str) -> None:
    fail(f'ServiceError: {{"code": "NotAuthorizedOrNotFound", "message": "{what} not found", "status": 404}}', 1)


def attachment_id(vid: str, instance: str) -> str:
    return f"ocid1.volumeattachment.oc1.phx.{vid.rsplit('.', 1)[1]}{instance.rsplit('.', 1)[1]}"


def oci_list_volumes(state: State, opts: dict[str, list[str]]) -> str:
    query = one(opts, "--query")
    vols = [dict(v, id=k) for k, v in state["volumes"].items() if v["zone"] == one(opts, "--availability-domain")]
    named = re.fullmatch(r"data\[\?\"display-name\"=='([^']*)' " + re.escape(LIVE) +
                         r" && \"lifecycle-state\"!='TERMINATING'\]\.id \| join\(' ', @\)", query)
    token = re.fullmatch(r"data\[\?\"freeform-tags\"\.\"blockfit-token\"=='([^']*)' " + re.escape(LIVE) +
                         r"\]\.id \| join\(' ', @\)", query)
    if named:
        hits = [v for v in vols if v["name"] == named.group(1)]
    elif token:
        hits = [v for v in vols if v["tags"].get("blockfit-token") == token.group(1)]
    else:
        fail(f"stand-in: oci query {query!r}", 99)
    return " ".join(v["id"] for v in hits if v["state"] not in ("TERMINATED", "TERMINATING"))


def oci_list_attachments(state: State, opts: dict[str, list[str]]) -> str:
    query = one(opts, "--query")
    vid = one(opts, "--volume-id")
    instances = state["volumes"].get(vid, {}).get("attached", [])
    if "--instance-id" in opts:
        instances = [i for i in instances if i == one(opts, "--instance-id")]
    if query == ("data[?\"lifecycle-state\"=='ATTACHED' || \"lifecycle-state\"=='ATTACHING'].\"instance-id\" | "
                 "join(',', @)"):
        return ",".join(instances)
    if query == "data[?\"lifecycle-state\"=='ATTACHED'].id | join(' ', @)":
        return " ".join(attachment_id(vid, i) for i in instances)
    fail(f"stand-in: oci query {query!r}", 99)
    return ""


def oci_create(state: State, opts: dict[str, list[str]]) -> str:
    fails, loses = count_create(state)
    if fails:
        fail('ServiceError: {"code": "LimitExceeded", "message": "stand-in fault", "status": 400}', 1)
    vid = f"ocid1.volume.oc1.phx.v{len(state['volumes']) + 1:04d}"
    state["volumes"][vid] = {"name": one(opts, "--display-name"), "zone": one(opts, "--availability-domain"),
                             "state": "AVAILABLE", "attached": [], "tags": json.loads(one(opts, "--freeform-tags")),
                             "size": int(one(opts, "--size-in-gbs")), "vpu": int(one(opts, "--vpus-per-gb"))}
    if loses:
        save(state)
        fail("RequestException: stand-in lost reply", 1)
    return vid


def oci_volume(state: State, opts: dict[str, list[str]]) -> dict[str, Any]:
    vid = one(opts, "--volume-id")
    if vid not in state["volumes"]:
        oci_not_found(vid)
    return state["volumes"][vid]  # type: ignore[no-any-return]


def oci(argv: list[str]) -> None:
    state = load()
    words, opts = options(argv)
    verb = " ".join(words)
    out: str | None = None
    if verb == "bv volume list":
        out = oci_list_volumes(state, opts)
    elif verb == "bv volume get":
        vol = oci_volume(state, opts)
        assert one(opts, "--query") == "[data.\"availability-domain\", data.\"lifecycle-state\"] | join(' ', @)"
        out = f"{vol['zone']} {vol['state']}"
    elif verb == "bv volume create":
        out = oci_create(state, opts)
        assert one(opts, "--query") == "data.id" and one(opts, "--wait-for-state") == "AVAILABLE"
    elif verb == "bv volume delete":
        vol = oci_volume(state, opts)
        if vol["attached"]:
            fail('ServiceError: {"code": "Conflict", "message": "volume is attached", "status": 409}', 1)
        vol["state"] = "TERMINATED"
    elif verb == "compute volume-attachment list":
        out = oci_list_attachments(state, opts)
    elif verb in ("compute volume-attachment attach-iscsi-volume",
                  "compute volume-attachment attach-paravirtualized-volume"):
        attach(state, one(opts, "--volume-id"), one(opts, "--instance-id"))
    elif verb == "compute volume-attachment detach":
        att = one(opts, "--volume-attachment-id")
        for vid, vol in state["volumes"].items():
            if any(attachment_id(vid, i) == att for i in vol["attached"]):
                vol["attached"] = []
                break
        else:
            oci_not_found(att)
    elif verb == "compute instance get":
        out = "[]"
    else:
        fail(f"stand-in: oci {verb}", 99)
    save(state)
    if out is not None:
        print(out)


if __name__ == "__main__":
    with open(os.environ["STANDIN_LOG"], "a") as log:
        log.write(json.dumps([Path(sys.argv[0]).name, *sys.argv[1:]]) + "\n")
    {"aws": aws, "oci": oci}[Path(sys.argv[0]).name](sys.argv[1:])
