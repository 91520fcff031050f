#!/usr/bin/env bash
# Installs the Debian packages hreaderd builds and tests against, when they are missing.
# Usage: scripts/install-deps.sh [extra-package…]
# As root: apt-get installs what is missing. As another user it never runs sudo: it prints the missing
# packages and the command to run, and exits 1.
set -euo pipefail

# libcurl4-openssl-dev and libxml2-dev: their headers (the daemon loads both libraries when first needed).
# binutils: objcopy, which strips the installed binary (scripts/build-release.sh).
packages=(pkg-config libsqlcipher-dev sqlcipher sqlite3 libssl-dev libcurl4-openssl-dev libxml2-dev zlib1g-dev binutils "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
if [[ $(id -u) -ne 0 ]]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them (as root), then run this again:" >&2
    echo "    sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "installing: ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
