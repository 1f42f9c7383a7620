#!/usr/bin/env bash
# Set up everything blockfit and its tests need on a fresh Debian machine: the system tools
# (fio, qemu, lvm2, mdadm, xfsprogs, shellcheck, strace, PostgreSQL 15 + pgbench, sysstat, chromium, Prometheus +
# node_exporter and VictoriaMetrics for the fleet tests, ...; as root) and a
# Python venv in .venv with blockfit installed in editable mode, every package at the version requirements.lock
# pins (the versions CI tested; docs/development.md says how to update it). Safe to rerun: installs only what is
# missing. Without root, missing system packages are listed and the Python part is set up anyway: model, plan,
# build, report and diagnose need none of them.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(fio qemu-system-x86 qemu-utils busybox-static cpio kmod lvm2 mdadm xfsprogs
              e2fsprogs util-linux shellcheck strace postgresql postgresql-contrib sysstat chromium
              prometheus prometheus-node-exporter victoria-metrics)

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
# A rerun with the same pyproject.toml and requirements.lock, blockfit still installed from this checkout, has
# nothing to install: skip pip, whose upgrade check and editable build each go to the package index (CI runs this
# script twice; the second run spent about 17 s there). The stamp is written only after pip succeeded.
stamp=.venv/.blockfit-setup
want=$(cat pyproject.toml requirements.lock | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] \
   && .venv/bin/python -c 'import sys, blockfit; sys.exit(not blockfit.__file__.startswith(sys.argv[1]))' \
        "$PWD/src/" 2>/dev/null; then
  echo "setup: .venv already matches pyproject.toml and requirements.lock"
else
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -c requirements.lock -e '.[dev,db]'
  echo "$want" > "$stamp"
fi
echo "setup: ready (.venv/bin/blockfit)"
