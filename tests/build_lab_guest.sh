#!/bin/bash
# Runs in the lab guest (chroot of the host root): build scripts from `blockfit build` run for real.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DM_DISABLE_UDEV=1
: "${W:?}" "${BF:?}"   # set by tests/test_build_lab.py
rm -f /etc/lvm/devices/system.devices
declare -A DEV
for b in /sys/block/vd*; do DEV[$(cat "$b/serial")]=/dev/${b##*/}; done
for s in "${!DEV[@]}"; do echo "$s ${DEV[$s]}"; done | sort
P() { echo "$*" >> "$W/progress"; echo "=== $*"; }
R() { echo "RESULT $*"; echo "RESULT $*" >> "$W/results.txt"; }
: > "$W/results.txt"
export BLOCKFIT_SKIP_ATTACH_CHECK=1 BLOCKFIT_STATE_DIR=$W/state
sums() { (cd "$1" && find . -type f ! -path './lost+found/*' -print0 | sort -z | xargs -0 sha256sum); }

# ---------- A: LVM stripe (3 x 1M) + offline dd migration from the single disk + XFS adopt
P "A: prepare the source filesystem"
SINGLE=${DEV[single]}
mkfs.xfs -q -f "$SINGLE"; mkdir -p /mnt/src; mount "$SINGLE" /mnt/src
mkdir /mnt/src/oradata; for i in 1 2 3 4; do head -c $((i * 3))M /dev/urandom > /mnt/src/oradata/f$i.dbf; done
echo "db_block_size=8192" > /mnt/src/spfile.ora
sums /mnt/src > $W/A-src.sha; umount /mnt/src
echo "UUID=$(blkid -p -o value -s UUID "$SINGLE") /u01 xfs defaults 0 0" > $W/fstab-A
P "A: blockfit build"
$BF build --plan $W/plan3.json --manager lvm --devices "${DEV[s1]},${DEV[s2]},${DEV[s3]}" --mount /u01 \
  --migrate-from "$SINGLE" --method offline --out $W/A > $W/A-build.txt 2>&1; R "A build rc=$?"
P "A: run-all"
BLOCKFIT_FSTAB=$W/fstab-A $W/A/run-all.sh > $W/A-run1.txt 2>&1; R "A run-all rc=$?"
lvs --segments --units b -o lv_name,segtype,stripes,stripe_size,seg_size_pe,devices blockfit_vg | tee $W/A-lvs.txt
R "A lvs: $(lvs --noheadings --segments --units b --nosuffix -o segtype,stripes,stripe_size blockfit_vg/blockfit_lv | xargs)"
R "A mounted: $(findmnt -n -o SOURCE,FSTYPE /u01 | xargs)"
sums /u01 > $W/A-dst.sha; cmp -s $W/A-src.sha $W/A-dst.sha && R "A checksums MATCH ($(wc -l < $W/A-src.sha) files)" || R "A checksums DIFFER"
R "A fstab: $(grep -v '^#' $W/fstab-A | xargs)"
P "A: rerun"
BLOCKFIT_FSTAB=$W/fstab-A $W/A/run-all.sh > $W/A-run2.txt 2>&1; R "A rerun rc=$? run-lines=$(grep -c '\] run:' $W/A-run2.txt)"
umount /u01

# ---------- B: mdadm RAID0 (2 x 256K) + ext4; a disk carrying ext4 is refused, then forced
P "B: ext4 signature on m1"
mkfs.ext4 -q "${DEV[m1]}"
$BF build --plan $W/plan2.json --manager mdadm --devices "${DEV[m1]},${DEV[m2]}" --mount /u02 --fs ext4 --out $W/B > $W/B-build.txt 2>&1; R "B build rc=$?"
BLOCKFIT_FSTAB=$W/fstab-B $W/B/20-mdadm.sh > $W/B-refused.txt 2>&1; R "B unforced rc=$? $(grep -o 'carries.*Refusing' $W/B-refused.txt | head -1)"
R "B m1 still: $(blkid -p -o value -s TYPE "${DEV[m1]}")"
P "B: forced run-all"
BLOCKFIT_FSTAB=$W/fstab-B $W/B/run-all.sh --force-device "${DEV[m1]}" > $W/B-run1.txt 2>&1; R "B run-all rc=$?"
md=$(basename "$(readlink -f /dev/md/blockfit)")
R "B md: $md level=$(cat /sys/block/$md/md/level) disks=$(cat /sys/block/$md/md/raid_disks) chunk=$(cat /sys/block/$md/md/chunk_size)"
R "B mounted: $(findmnt -n -o SOURCE,FSTYPE /u02 | xargs); ext4 stride: $(tune2fs -l /dev/md/blockfit | grep -E 'RAID stride|RAID stripe width' | xargs)"
BLOCKFIT_FSTAB=$W/fstab-B $W/B/run-all.sh > $W/B-run2.txt 2>&1; R "B rerun rc=$? run-lines=$(grep -c '\] run:' $W/B-run2.txt)"
umount /u02; mdadm --stop /dev/md/blockfit >/dev/null 2>&1

# ---------- C: online LVM migration: linear LV on one disk -> 3-way striped mirror leg, split, vgreduce
P "C: prepare the old VG"
OLD=${DEV[old]}
pvcreate -q "$OLD"; vgcreate -q ebs_vg "$OLD"
lvcreate -q -y -l 97 -n ebs_lv ebs_vg            # 97 extents: not divisible by 3
mkfs.xfs -q /dev/ebs_vg/ebs_lv; mkdir -p /u03; mount /dev/ebs_vg/ebs_lv /u03
mkdir /u03/oradata; for i in 1 2 3; do head -c $((i * 5))M /dev/urandom > /u03/oradata/g$i.dbf; done
sums /u03 > $W/C-before.sha
$BF build --plan $W/plan3.json --manager lvm --devices "${DEV[t1]},${DEV[t2]},${DEV[t3]}" --mount /u03 \
  --migrate-from /dev/ebs_vg/ebs_lv --method online --out $W/C > $W/C-build.txt 2>&1; R "C build rc=$?"
P "C: run-all (mounted, online)"
BLOCKFIT_SYNC_TIMEOUT=600 $W/C/run-all.sh > $W/C-run1.txt 2>&1; R "C run-all rc=$?"
R "C extents fix: $(grep -o '[0-9]* extents is not divisible by 3: extending[^,]*' $W/C-run1.txt | head -1)"
lvs -a --segments --units b -o lv_name,segtype,stripes,stripe_size,seg_size_pe,devices ebs_vg | tee $W/C-lvs.txt
R "C lvs: $(lvs --noheadings --segments --units b --nosuffix -o segtype,stripes,stripe_size,seg_size_pe ebs_vg/ebs_lv | xargs)"
R "C pvs in ebs_vg: $(pvs --noheadings -o pv_name -S vg_name=ebs_vg | xargs); old is PV: $(pvs "$OLD" >/dev/null 2>&1 && echo yes || echo no)"
sums /u03 > $W/C-after.sha; cmp -s $W/C-before.sha $W/C-after.sha && R "C checksums MATCH while mounted" || R "C checksums DIFFER"
$W/C/run-all.sh > $W/C-run2.txt 2>&1; R "C rerun rc=$? run-lines=$(grep -c '\] run:' $W/C-run2.txt)"
umount /u03
vgchange -q -an ebs_vg blockfit_vg >/dev/null 2>&1
P "done"
exit 0
