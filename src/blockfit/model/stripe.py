"""The stripe sizes LVM and mdadm can build, shared by the plan's advice (`plan.stripe`) and the lab, which
checks a requested stripe against the same bounds."""

from __future__ import annotations

from blockfit.units import KIB, MIB

LVM_MAX = 4 * MIB          # must not exceed the physical extent size (LVM default 4 MiB)
MIN_STRIPE = 64 * KIB
