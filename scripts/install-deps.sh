#!/usr/bin/env bash
# Installs the Debian packages hreaderd builds and tests against, when they are missing.
# Usage: scripts/install-deps.sh [extra-package…]
set -euo pipefail

# libcurl4-openssl-dev and libxml2-dev: a release build links Foundation statically, and with it -lcurl and -lxml2.
packages=(pkg-config libsqlcipher-dev sqlcipher sqlite3 libssl-dev libcurl4-openssl-dev libxml2-dev "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    sudo_cmd=()
    [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
