"""Real /proc/diskstats lines of three kernel generations, shared by the device reader tests."""

# Real lines from three kernel generations:
# 14 fields (before 4.18): node_exporter's diskstats fixture, a real sda.
LINE_14 = "8 0 sda 25354637 34367663 1003346126 18492372 28444756 11134226 505697032 63877960 0 9653880 82621804"
# 18 fields (4.18 - 5.4, discard counters): an NVMe disk on Debian 10 (kernel 4.19), from its sysfs stat.
LINE_18 = ("259       0 nvme0n1 350368 10216 94989840 133099 1327012 165678 367383712 342754 0 167516 497168 "
           "13669 0 1758032920 52066")
# 20 fields (5.5+, flush counters): this project's build host (kernel 6.18), virtio disk.
LINE_20 = ("254       0 vda 468220 13934 21149580 105710 309403 123761 15425762 39238 0 34596 150075 10592 20 "
           "9904512 4137 37022 988")
