#!/usr/bin/env bash
# Set up everything blockfit and its tests need on a fresh Debian machine: the system tools
# (fio, qemu, lvm2, mdadm, xfsprogs, shellcheck, PostgreSQL 15 + pgbench, sysstat, chromium, Prometheus +
# node_exporter for the fleet tests, ...; as root) and a
# Python venv in .venv with blockfit installed in editable mode, every package at the version requirements.lock
# pins (the versions CI tested; docs/development.md says how to update it). Safe to rerun: installs only what is
# missing. Without root, missing system packages are listed and the Python part is set up anyway: model, plan,
# build, report and diagnose need none of them.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(fio qemu-system-x86 qemu-utils busybox-static cpio kmod lvm2 mdadm xfsprogs
              e2fsprogs util-linux shellcheck postgresql postgresql-contrib sysstat chromium
              prometheus prometheus-node-exporter)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]} (not root: skipped; calibrate, lab, bench and their" \
         "tests need them: run this as root or apt-get install them)" >&2
  else
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -c requirements.lock -e '.[dev,db]'
echo "setup: ready (.venv/bin/blockfit)"
