"""`blockfit inspect`: what this host has attached, which cloud volume each disk is, and what each layout delivers.

`devices.blockstack` reads the host; here it becomes the inventory: `stack` turns the kernel's devices into the
schema's nodes, `identity` says which cloud volume a disk is from what it shows, `provider_files` reads what the
provider's own CLI said of the volumes, `layouts` writes each filesystem's layout in spec grammar and models it,
and `inspect` runs them in order.
"""
