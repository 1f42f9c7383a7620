"""Provisioning, one emitter per cloud (its entry in the kinds table names it): OCI CLI commands and Terraform for
OCI block volumes (vpus_per_gb; iSCSI attachments at consistent device paths, agent-managed login so UHP gets
multipath), AWS CLI and Terraform for EBS. The scripts share one body (templates/provision_common.sh.j2: the state
file of the IDs they created, adoption, rollback) over each cloud's few CLI calls; Terraform reads the instance by
its ID and knows its volumes by its own state.

OCI CLI flags follow the OCI CLI reference (`oci bv volume create`: --compartment-id --availability-domain
--display-name --size-in-gbs --vpus-per-gb --is-auto-tune-enabled --wait-for-state; `oci compute
volume-attachment attach-iscsi-volume`: --instance-id --volume-id --device --display-name
--is-agent-auto-iscsi-login-enabled --wait-for-state); OCI_CLI_FLAGS lists them for the tests."""

from __future__ import annotations

from blockfit.emit.context import BuildContext, GeneratedFile
from blockfit.emit.escape import hcl_string
from blockfit.emit.options import Provisioner
from blockfit.emit.safety import render_template
from blockfit.schema import BuildStep
from blockfit.units import fmt_count

# Checked (search tool, Nov 2026) against: the OCI CLI reference pages under
# docs.oracle.com/iaas/tools/oci-cli/latest/oci_cli_docs/cmdref/ (bv/volume/create; compute/volume-attachment/
# attach-paravirtualized-volume, whose sibling attach-iscsi-volume takes the AttachIScsiVolumeDetails fields
# device, display-name, is-agent-auto-iscsi-login-enabled, use-chap); the SDK model docs (CreateVolumeDetails:
# sizeInGBs, vpusPerGB, isAutoTuneEnabled; AttachIScsiVolumeDetails: isAgentAutoIscsiLoginEnabled); the OCI
# Block Volume task page "attaching a volume to multiple instances" (`oci compute volume-attachment list
# --compartment-id --volume-id`); and public scripts that run `attach-iscsi-volume --instance-id --volume-id
# --device --is-agent-auto-iscsi-login-enabled true --wait-for-state ATTACHED` and `bv volume create
# --size-in-gbs --vpus-per-gb --is-auto-tune-enabled --wait-for-state AVAILABLE --query data.id --raw-output`.
OCI_CLI_FLAGS: dict[str, set[str]] = {
    "bv volume create": {"--compartment-id", "--availability-domain", "--display-name", "--size-in-gbs",
                         "--vpus-per-gb", "--is-auto-tune-enabled", "--freeform-tags", "--wait-for-state", "--query",
                         "--raw-output"},
    "bv volume list": {"--compartment-id", "--availability-domain", "--lifecycle-state", "--all", "--query",
                       "--raw-output"},
    # https://docs.oracle.com/iaas/tools/oci-cli/latest/oci_cli_docs/cmdref/bv/volume/get.html (and delete.html)
    "bv volume get": {"--volume-id", "--query", "--raw-output"},
    "bv volume delete": {"--volume-id", "--force", "--wait-for-state"},
    # https://docs.oracle.com/iaas/tools/oci-cli/latest/oci_cli_docs/cmdref/compute/volume-attachment/detach.html
    "compute volume-attachment detach": {"--volume-attachment-id", "--force", "--wait-for-state"},
    "compute volume-attachment attach-iscsi-volume": {"--instance-id", "--volume-id", "--device", "--display-name",
                                                      "--is-agent-auto-iscsi-login-enabled", "--wait-for-state"},
    # https://docs.cloud.oracle.com/tools/oci-cli/latest/oci_cli_docs/cmdref/compute/volume-attachment/
    # attach-paravirtualized-volume.html
    "compute volume-attachment attach-paravirtualized-volume": {"--instance-id", "--volume-id", "--device",
                                                                "--display-name", "--wait-for-state"},
    "compute volume-attachment list": {"--compartment-id", "--instance-id", "--volume-id", "--all", "--query",
                                       "--raw-output"},
    "compute instance get": {"--instance-id", "--query"},
}

AWS_IOPS_TYPES = ("gp3", "io1", "io2")
# what each cloud's provisioning script records of the volumes it created or adopted, beside itself (no build file:
# a rebuild with --force keeps it)
STATE_FILES = {"aws": "00-provision-aws.state", "oci": "00-provision-oci.state"}


def volume_names(ctx: BuildContext) -> list[str]:
    return [f"{ctx.vg.replace('_', '-')}-{i + 1:02d}" for i in range(ctx.members)]


def aws_attach_names(ctx: BuildContext) -> list[str]:
    """EBS attach names /dev/sdf… (the API's names; the instance shows NVMe devices on Nitro)."""
    letters = "fghijklmnopqrstuvwxyz"
    if ctx.members > len(letters):
        return [f"/dev/sd{letters[i // 26]}{chr(97 + i % 26)}" for i in range(ctx.members)]
    return [f"/dev/sd{letters[i]}" for i in range(ctx.members)]


def _aws_perf(ctx: BuildContext) -> tuple[int | None, int | None]:
    vol = ctx.layout.volume
    iops = vol.provisioned_iops if vol.type in AWS_IOPS_TYPES else None
    throughput = int(vol.provisioned_throughput) if vol.type == "gp3" and vol.provisioned_throughput else None
    return iops, throughput


def _script_checks(ctx: BuildContext, cloud: str, zone: str) -> None:
    """What the provisioning script checks before it changes anything at the cloud, in plain words."""
    state = STATE_FILES[cloud]
    ctx.checks += [
        f"The provisioning script acts only on the volumes it created, recorded by ID in {state} beside it, or that "
        f"--adopt names; volumes are never picked by name, and only in this instance's {zone}.",
        "A volume named like one of its volumes that it did not create is refused before anything changes: attached "
        "to another instance always, detached unless --adopt names it (it may hold data).",
        "A rerun does only what is left; --rollback (with --dry-run first) detaches and deletes only the volumes the "
        "state file says it created, never an adopted one.",
    ]


def _terraform_checks(ctx: BuildContext) -> None:
    ctx.checks.append("Terraform reads the instance by its ID only, makes the volumes in its zone and attaches the "
                      "volumes it creates; an existing volume is used only after an explicit terraform import.")


def _them(ctx: BuildContext) -> str:
    return "it" if ctx.members == 1 else "them"   # "create 1 volumes and attach them" read as a slip


def oci(ctx: BuildContext) -> list[GeneratedFile]:
    """OCI block volumes at the plan's VPU/GB, attached at consistent device paths: OCI CLI or Terraform."""
    vol = ctx.layout.volume
    names = volume_names(ctx)
    them = _them(ctx)
    volumes = fmt_count(ctx.members, "OCI block volume")
    vpu = vol.vpu_per_gb if vol.vpu_per_gb is not None else 10
    attachment = ctx.attachment or "iscsi"
    attrs = [("count", str(ctx.members)), ("attachment_type", hcl_string(attachment)),
             ("instance_id", "var.instance_id"), ("volume_id", "oci_core_volume.blockfit[count.index].id"),
             ("device", "local.devices[count.index]"), ("display_name", "local.names[count.index]")]
    if attachment == "iscsi":
        attrs.append(("is_agent_auto_iscsi_login_enabled", "true"))
    args = dict(source=ctx.source, members=ctx.members, size_gb=vol.size_gb, vpu=vpu, names=names,
                devices=ctx.devices, uhp=vpu >= 30, attachment=attachment, attach_attrs=attrs, volumes=volumes,
                them=them, cli="oci", step_name="provision-oci", state_file=STATE_FILES["oci"])
    if ctx.provision == Provisioner.TERRAFORM:
        _terraform_checks(ctx)
        step = BuildStep(order=0, name="terraform", path="terraform/main.tf", kind="terraform",
                         touches_devices=False,
                         description=f"Terraform: {volumes} of {vol.size_gb} GB at {vpu} "
                                     f"VPU/GB, each with an {attachment} attachment")
        return [GeneratedFile(step, render_template("oci.tf.j2", **args), executable=False)]
    _script_checks(ctx, "oci", "availability domain")
    step = BuildStep(order=0, name="provision-oci", path="00-provision-oci.sh", kind="provision",
                     touches_devices=False,
                     description=f"OCI CLI: create {volumes} ({vol.size_gb} GB, {vpu} VPU/GB) and "
                                 f"attach {them} ({attachment}) at consistent device paths, recording "
                                 f"their OCIDs in {STATE_FILES['oci']}")
    return [GeneratedFile(step, render_template("provision_oci.sh.j2", **args))]


def aws(ctx: BuildContext) -> list[GeneratedFile]:
    """EBS volumes with the plan's provisioned IOPS and throughput, attached: AWS CLI or Terraform."""
    vol = ctx.layout.volume
    names = volume_names(ctx)
    them = _them(ctx)
    iops, throughput = _aws_perf(ctx)
    perf: list[str] = []
    if iops:
        perf += ["--iops", str(iops)]
    if throughput:
        perf += ["--throughput", str(throughput)]
    volumes = fmt_count(ctx.members, f"EBS {vol.type} volume")
    args = dict(source=ctx.source, members=ctx.members, size_gb=vol.size_gb, vtype=vol.type, iops=iops,
                throughput=throughput, names=names, attach_names=aws_attach_names(ctx), perf=perf, volumes=volumes,
                them=them, cli="aws", step_name="provision-aws", state_file=STATE_FILES["aws"])
    if ctx.provision == Provisioner.TERRAFORM:
        _terraform_checks(ctx)
        step = BuildStep(order=0, name="terraform", path="terraform/main.tf", kind="terraform", touches_devices=False,
                         description=f"Terraform: {volumes} of {vol.size_gb} GiB, each "
                                     "attached to the instance")
        return [GeneratedFile(step, render_template("aws.tf.j2", **args), executable=False)]
    _script_checks(ctx, "aws", "availability zone")
    step = BuildStep(order=0, name="provision-aws", path="00-provision-aws.sh", kind="provision",
                     touches_devices=False,
                     description=f"AWS CLI: create {volumes} and attach {them}, recording their IDs in "
                                 f"{STATE_FILES['aws']}")
    return [GeneratedFile(step, render_template("provision_aws.sh.j2", **args))]
