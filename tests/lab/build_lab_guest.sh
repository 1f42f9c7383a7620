#!/bin/bash
# Runs in the lab guest (chroot of the host root): the scripts `blockfit build` wrote, run for real.
# tests/test_lab_build.py builds them on the host and reads the KEY=VALUE lines this writes to results.txt.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin BLOCKFIT_SKIP_ATTACH_CHECK=1
export DM_DISABLE_UDEV=1  # no udevd in the guest: LVM creates the /dev nodes itself
W=$(cd "$(dirname "$0")" && pwd)
res() { echo "$1=$2" >> "$W/results.txt"; }
step() { echo "$*" >> "$W/progress"; }
files() {  # DIR: a few files of random data, checksums in $W/sums-NAME
  for i in 1 2 3; do dd if=/dev/urandom of="$1/f$i" bs=1M count=$((i * 3)) status=none; done
  (cd "$1" && sha256sum f1 f2 f3) > "$W/sums-$2"
}
i=0; for b in /sys/block/vd*; do res "serial_${b##*/}" "$(cat "$b/serial")"; done

step offline
mkfs.ext4 -q -F /dev/vdd && mkdir -p /mnt/src && mount /dev/vdd /mnt/src && files /mnt/src src && umount /mnt/src
bash "$W/off/run-all.sh" > "$W/off.log" 2>&1; res offline_rc $?
res offline_mounted "$(findmnt -n -o SOURCE,FSTYPE /mnt/off | tr ' ' ,)"
(cd /mnt/off && sha256sum --quiet -c "$W/sums-src") >> "$W/off.log" 2>&1; res offline_sums $?
res offline_lv "$(lvs --noheadings -o stripes,stripe_size --units k --nosuffix lab_off/blockfit_lv | xargs)"
before=$(lvs --noheadings -o lv_name,lv_size,stripes lab_off; blkid -p /dev/lab_off/blockfit_lv; cat /etc/fstab)
bash "$W/off/run-all.sh" > "$W/off-rerun.log" 2>&1; res offline_rerun_rc $?
after=$(lvs --noheadings -o lv_name,lv_size,stripes lab_off; blkid -p /dev/lab_off/blockfit_lv; cat /etc/fstab)
[ "$before" = "$after" ]; res offline_rerun_same $?
umount /mnt/off

step signature
bash "$W/sig/20-lvm.sh" > "$W/sig.log" 2>&1; res sig_rc $?
res sig_type "$(blkid -p -s TYPE -o value /dev/vde)"
res sig_pv "$(pvs --noheadings -o pv_name /dev/vde 2>/dev/null | xargs)"

step online
pvcreate -qq /dev/vdf && vgcreate -qq blockfit_vg /dev/vdf && lvcreate -qq -y -l 28 -n data blockfit_vg \
  && mkfs.ext4 -q -F /dev/blockfit_vg/data && mkdir -p /mnt/on && mount /dev/blockfit_vg/data /mnt/on \
  && files /mnt/on on
BLOCKFIT_SYNC_TIMEOUT=240 bash "$W/on/run-all.sh" > "$W/on.log" 2>&1; res online_rc $?
SEGS="lvs --noheadings --segments -o segtype,stripes,stripe_size --units k --nosuffix"
res online_segments "$($SEGS blockfit_vg/data | xargs)"
res online_pvs "$(pvs --noheadings -o pv_name -S vg_name=blockfit_vg | xargs)"
echo 3 > /proc/sys/vm/drop_caches
(cd /mnt/on && sha256sum --quiet -c "$W/sums-on") >> "$W/on.log" 2>&1; res online_sums $?
umount /mnt/on

step mdadm
R1=$(grep -l '^r1$' /sys/block/vd*/serial | cut -d/ -f4)
mkfs.ext4 -q -F "/dev/$R1"  # r1 carries a filesystem: refused unless forced
BLOCKFIT_FSTAB=$W/fstab-md bash "$W/md/20-mdadm.sh" > "$W/md-refused.log" 2>&1; res md_unforced_rc $?
res md_r1_type "$(blkid -p -s TYPE -o value "/dev/$R1")"
BLOCKFIT_FSTAB=$W/fstab-md bash "$W/md/run-all.sh" --force-device "/dev/$R1" > "$W/md.log" 2>&1; res md_rc $?
md=$(basename "$(readlink -f /dev/md/blockfit)")
res md_array "$(cat "/sys/block/$md/md/level") $(cat "/sys/block/$md/md/raid_disks") $(cat "/sys/block/$md/md/chunk_size")"
res md_mounted "$(findmnt -n -o FSTYPE /mnt/md)"
res md_stride "$(tune2fs -l /dev/md/blockfit | sed -n 's/^RAID stride: *//p')"
BLOCKFIT_FSTAB=$W/fstab-md bash "$W/md/run-all.sh" > "$W/md-rerun.log" 2>&1; res md_rerun_rc $?
res md_rerun_runs "$(grep -c '\] run:' "$W/md-rerun.log")"
umount /mnt/md; mdadm --stop /dev/md/blockfit > /dev/null 2>&1
step done
