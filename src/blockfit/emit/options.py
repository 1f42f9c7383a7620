"""The choices a build takes, as typed values: the command line parses its text into these once
(`cli.params.choice`), and the emitters compare against members, never against text a user typed."""

from __future__ import annotations

from enum import StrEnum


class Manager(StrEnum):
    """What assembles the volumes; each but NONE names its emitter in the build's table."""

    LVM = "lvm"
    MDADM = "mdadm"
    ASM = "asm"
    NONE = "none"


class Filesystem(StrEnum):
    XFS = "xfs"
    EXT4 = "ext4"


class Method(StrEnum):
    """How data moves onto the new layout: a block copy (offline) or an LVM mirror (online)."""

    OFFLINE = "offline"
    ONLINE = "online"


class Provisioner(StrEnum):
    OCI_CLI = "oci-cli"
    TERRAFORM = "terraform"
    AWS_CLI = "aws-cli"
