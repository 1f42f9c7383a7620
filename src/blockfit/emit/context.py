"""Everything an emitter needs, validated once: the plan's layout, the devices, and the user's options.

Text options arrive parsed (`mount_point`, `object_name`, the enums of `options.py`: the command line calls them
where it takes each option); the checks left here are about the plan and how the values combine. Each check names
values, never options: the command line names the option (`cli.common.supplied_by`), one check at a time."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from blockfit.emit.options import Filesystem, Manager, Method, Provisioner
from blockfit.errors import InputError, ValueProblem
from blockfit.inputs import named_twice
from blockfit.model.kinds.clouds import CLOUDS, cloud_of
from blockfit.model.stripe import MAX_STRIPE
from blockfit.schema import BuildStep, Candidate, Layout, Migration, MultipathPolicy, Plan
from blockfit.schema.cost import COPIES

_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,30}", re.ASCII)
_LV_RE = re.compile(r"/dev/(?:mapper/)?([A-Za-z0-9_.+-]+?)[/-]([A-Za-z0-9_.+]+)", re.ASCII)
_MOUNT_RE = re.compile(r"/[A-Za-z0-9._+@:/-]*", re.ASCII)
# where a data filesystem must never be mounted: the system's own folders (and, for these, anything below them)
SYSTEM_DIRS = ("/", "/etc", "/usr", "/boot", "/proc", "/sys", "/dev", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
               "/libx32", "/var", "/run", "/tmp", "/home", "/root", "/srv", "/opt", "/mnt", "/media")
_SYSTEM_TREES = ("/etc", "/usr", "/boot", "/proc", "/sys", "/dev", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                 "/libx32", "/run")


def mount_point(text: str) -> str:
    """A mount point as one normalized absolute path (/u01/, //u01 and /u01/. are /u01), so it compares equal to
    what fstab says; relative paths, '..', characters fstab or the scripts would need escaped, and the system's own
    folders are refused."""
    expected = "expected an absolute directory for the data, e.g. /u01"
    if not _MOUNT_RE.fullmatch(text):
        raise ValueProblem(f"{text[:80]!r}: {expected} (letters, digits and . _ + @ : - / only)")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ValueProblem(f"{text!r}: {expected}, without '..'")
    path = "/" + "/".join(parts)
    if path in SYSTEM_DIRS or any(path.startswith(tree + "/") for tree in _SYSTEM_TREES):
        raise ValueProblem(f"{text!r}: {path} is a system folder; {expected}")
    return path


def object_name(text: str) -> str:
    """A name the scripts give an object (volume group, logical volume, md array, ASM disk group): a whole value
    that needs no quoting in any of them."""
    if not _NAME_RE.fullmatch(text):
        raise ValueProblem(f"{text!r}: expected a letter then letters, digits or _ (max 31)")
    return text


@dataclass
class GeneratedFile:
    step: BuildStep
    text: str
    executable: bool = True


@dataclass
class BuildContext:
    plan: Plan
    candidate_index: int
    manager: Manager
    devices: list[str]
    out_dir: Path
    mount: str | None = None
    fs: Filesystem = Filesystem.XFS
    migrate_from: str | None = None
    method: Method | None = None
    provision: Provisioner | None = None
    vg: str = "blockfit_vg"
    lv: str = "blockfit_lv"
    md_name: str = "blockfit"
    diskgroup: str = "DATA"
    asm_compatible: str = "19.0.0.0.0"   # compatible.asm / compatible.rdbms of an ASM disk group
    notes: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)   # what this build's own steps check or never change (plain words)
    migrations: list[Migration] = field(default_factory=list)   # how long the move takes (build --inventory)

    def __post_init__(self) -> None:
        # typed values from the command line pass through; text from a library caller is read once, here
        self.manager = Manager(self.manager)
        self.fs = Filesystem(self.fs)
        self.method = None if self.method is None else Method(self.method)
        self.provision = None if self.provision is None else Provisioner(self.provision)
        self.mount = None if self.mount is None else mount_point(self.mount)
        self.vg, self.lv = object_name(self.vg), object_name(self.lv)
        self.md_name, self.diskgroup = object_name(self.md_name), object_name(self.diskgroup)

    @property
    def candidate(self) -> Candidate:
        return self.plan.candidates[self.candidate_index]

    @property
    def layout(self) -> Layout:
        return self.candidate.layout_detail

    @property
    def members(self) -> int:
        return self.layout.members

    @property
    def copies(self) -> int:
        """Copies of every block the plan priced (its redundancy): 1, or 2 (ASM normal, mdadm raid10), 3 (ASM high)."""
        return COPIES[self.layout.redundancy]

    @property
    def md_level(self) -> str:
        """The md level mdadm builds: raid10 (near layout, the plan's copies) for a mirrored plan, else raid0."""
        return "raid10" if self.layout.redundancy == "raid10" else "raid0"

    @property
    def data_members(self) -> int:
        """Chunks of distinct data in one full stripe (the filesystem's sw): every member for a stripe; for
        RAID10 near-N members / N, or every member when the count does not divide (what md sets io_opt to)."""
        if self.md_level == "raid10" and self.members % self.copies == 0:
            return self.members // self.copies
        return self.members

    @property
    def attachment(self) -> str | None:
        """How the plan attaches each volume (OCI: iscsi | paravirtualized; None: not modelled)."""
        return self.candidate.prediction.attachment or self.layout.attachment

    @property
    def paths(self) -> int:
        """iSCSI paths per volume the plan's prediction carries I/O on."""
        return self.candidate.prediction.paths or self.layout.paths or 1

    @property
    def session_queue_depth(self) -> int | None:
        """The iSCSI node.session.queue_depth the plan's prediction assumed (None: no iSCSI session)."""
        return self.candidate.session_queue_depth

    @property
    def multipath(self) -> MultipathPolicy | None:
        """The dm-multipath policy the plan's prediction assumed for its paths (None: one path)."""
        return self.candidate.multipath

    @property
    def cloud(self) -> str:
        return self.layout.volume.cloud

    @property
    def stripe_bytes(self) -> int:
        return int(self.layout.stripe_size or 0)

    @property
    def source(self) -> str:
        return (f"plan candidate {self.candidate_index} ({self.candidate.layout} on {self.candidate.instance}, "
                f"{self.cloud})")

    @property
    def online(self) -> bool:
        return self.migrate_from is not None and self.method == Method.ONLINE

    @property
    def source_vg_lv(self) -> tuple[str, str]:
        """(VG, LV) of an online-migration source given as /dev/VG/LV or /dev/mapper/VG-LV."""
        assert self.migrate_from is not None
        m = _LV_RE.fullmatch(self.migrate_from)
        if not m:
            raise ValueProblem(f"{self.migrate_from!r}: online migration needs a logical volume path /dev/VG/LV "
                               "(or /dev/mapper/VG-LV)")
        vg, lv = m.group(1), m.group(2)
        if self.migrate_from.startswith("/dev/mapper/"):
            vg, lv = vg.replace("--", "-"), lv.replace("--", "-")
        return vg, lv

    @property
    def target_device(self) -> str | None:
        """The device the data ends up on: the LV, the md array, or the single member (manager none)."""
        if self.manager == Manager.LVM:
            if self.online:
                vg, lv = self.source_vg_lv
                return f"/dev/{vg}/{lv}"
            return f"/dev/{self.vg}/{self.lv}"
        if self.manager == Manager.MDADM:
            return f"/dev/md/{self.md_name}"
        if self.manager == Manager.NONE:
            return self.devices[0]
        return None

    def option_checks(self) -> list[tuple[str, Callable[[], None]]]:
        """Every check, by what it is about, in the order they run: the command line runs them one at a time, each
        under the option that carried the value; `validate` runs them for any other caller."""
        return [("plan", self.check_plan), ("candidate", self.check_candidate), ("layout", self.check_layout),
                ("manager", self.check_manager), ("devices", self.check_devices), ("mount", self.check_mount),
                ("pairing", self.check_pairing), ("migration", self.check_migration), ("method", self.check_method),
                ("provision", self.check_provision)]

    def validate(self) -> None:
        """Every check (exit 2 with one line on the first problem)."""
        for _, check in self.option_checks():
            check()

    def check_plan(self) -> None:
        if not self.plan.candidates:
            why = f" (infeasible: {self.plan.infeasible.reason})" if self.plan.infeasible is not None else ""
            raise ValueProblem(f"the plan has no candidate to build{why}; plan again with targets or an instance "
                               "it can meet")

    def check_candidate(self) -> None:
        if not 0 <= self.candidate_index < len(self.plan.candidates):
            raise ValueProblem(f"{self.candidate_index}: expected 0..{len(self.plan.candidates) - 1}")

    def check_layout(self) -> None:
        """The chosen candidate's layout is one the scripts can build: its mirror's failure groups, its stripe."""
        mirror = self.layout.redundancy
        if mirror in ("normal", "high") and self.members < self.copies:
            raise ValueProblem(f"ASM {mirror} redundancy needs at least {self.copies} failure groups (one per "
                               f"volume here), but the layout {self.candidate.layout} has {self.members}")
        if self.members > 1 and self.stripe_bytes & (self.stripe_bytes - 1):
            raise ValueProblem(f"stripe size {self.stripe_bytes} bytes is not a power of two")
        if self.members > 1 and self.stripe_bytes < 4096:
            raise ValueProblem(f"stripe size {self.stripe_bytes} bytes is below 4 KiB")
        if self.stripe_bytes > MAX_STRIPE:  # 2^64 would be 0 in the scripts' 64-bit arithmetic
            raise ValueProblem(f"stripe size of {len(str(self.stripe_bytes))} digits is above 1 GiB")

    def check_manager(self) -> None:
        """The manager builds what the plan priced: its mirror, at least the members it needs."""
        mirror = self.layout.redundancy
        if mirror in ("normal", "high") and self.manager != Manager.ASM:
            raise ValueProblem(f"{self.manager}: the plan's layout mirrors with ASM {mirror} redundancy "
                               f"(--redundancy {mirror}); build it with --manager asm")
        if mirror == "raid10" and self.manager != Manager.MDADM:
            raise ValueProblem(f"{self.manager}: the plan's layout is an mdadm RAID10 (--redundancy raid10); "
                               "build it with --manager mdadm")
        if self.manager == Manager.NONE and self.members != 1:
            raise ValueProblem(f"none: only for a single volume; this layout has {self.members} members")
        if self.manager == Manager.MDADM and self.members < 2:
            raise ValueProblem(f"mdadm: {self.md_level.upper()} needs at least 2 members; use --manager lvm or none")

    def check_devices(self) -> None:
        if len(self.devices) != self.members:
            raise ValueProblem(f"{len(self.devices)} given, but the plan's layout {self.candidate.layout} has "
                               f"{self.members} members; give exactly {self.members}")
        twice = named_twice(self.devices)
        if twice is not None:
            raise ValueProblem(f"{twice} is named twice")

    def check_mount(self) -> None:
        """A mount point with a manager whose volumes carry a filesystem (a combination: both values named)."""
        if self.mount is not None and self.manager == Manager.ASM:
            raise ValueProblem(f"{self.mount} with asm: ASM disks carry no filesystem; drop --mount with "
                               "--manager asm")

    def check_pairing(self) -> None:
        """A migration source and a method: both or neither (a combination, both values named)."""
        if (self.migrate_from is None) != (self.method is None):
            raise ValueProblem(f"{self.migrate_from or 'no source'} and {self.method or 'no method'}: a source and a "
                               "method go together (e.g. /dev/vg/lv and offline)")

    def check_migration(self) -> None:
        """A migration source goes with a manager that takes a block copy, and is none of the devices."""
        if self.migrate_from is None:
            return
        if self.manager == Manager.ASM:
            raise ValueProblem(f"{self.migrate_from} with asm: move data into ASM with RMAN or ASM ADD/DROP DISK "
                               "rebalance, not with a block copy")
        if self.migrate_from in self.devices:
            raise ValueProblem(f"{self.migrate_from}: the source is also one of --devices")
        if self.online:
            self.source_vg_lv  # noqa: B018  (validates the LV path)

    def check_method(self) -> None:
        """An online migration mirrors with LVM onto a stripe."""
        if not self.online:
            return
        if self.manager != Manager.LVM:
            raise ValueProblem("online: needs --manager lvm (lvconvert mirror onto the stripe)")
        if self.members < 2:
            raise ValueProblem("online: the layout has one member; there is no stripe to mirror onto")

    def check_provision(self) -> None:
        """The cloud's entry says which tools its provisioning step writes for, and which device paths it needs."""
        if self.provision is None:
            return
        cloud = cloud_of(self.cloud)
        if self.provision not in cloud.provisioners:
            able = [c.name for c in CLOUDS.values() if self.provision in c.provisioners]
            if len(able) == 1:
                raise ValueProblem(f"{self.provision}: the plan is for {self.cloud}, not {able[0]}")
            raise ValueProblem(f"{self.provision}: only {' and '.join(able)} are supported, the plan is "
                               f"{self.cloud}")
        problem = cloud.device_error(self.devices)
        if problem is not None:
            raise InputError(problem)  # names --devices itself: the cloud's entry words it
