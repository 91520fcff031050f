#!/usr/bin/env bash
# Runs the web app's unit tests (Tests/webapp/*.test.mjs: the pure modules of Public/timeline/js) with
# node's own test runner. Installs Debian's nodejs when node is missing: as root with apt-get; as another
# user it prints the command to run and exits 1 (as scripts/install-deps.sh does).
# Public/timeline/package.json says the app's .js files are ES modules: Debian's node 18 reads them so
# only with it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "node is missing: install Debian's nodejs (as root), then run this again:" >&2
        echo "    sudo apt-get install nodejs" >&2
        exit 1
    fi
    echo "installing: nodejs" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null
fi
exec node --test Tests/webapp/
