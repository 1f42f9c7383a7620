"""`blockfit build`: safe, exact set-up and migration scripts from a plan.

One emitter module per target (like fio's engines): lvm, mdraid, asm, filesystem, multipath (OCI
attachments), migrate, provision, each emitter registered by name in bundle.EMITTERS with one signature (context in,
files out); the cloud's entry in the kinds table names its provisioning and attachment steps. safety holds the
shared bash preamble; bundle orchestrates and writes.
"""

from blockfit.emit.bundle import build, generate

__all__ = ["build", "generate"]
