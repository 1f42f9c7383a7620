"""`blockfit build`: safe, exact set-up and migration scripts from a plan.

One emitter module per target (like fio's engines): lvm, mdraid, asm, filesystem, multipath (OCI
attachments), migrate, provision; safety holds the shared bash preamble; bundle orchestrates and writes.
"""

from blockfit.emit.bundle import build, generate

__all__ = ["build", "generate"]
