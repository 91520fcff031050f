#!/usr/bin/env bash
# The offline validators' dependencies, for the export tests (`../shared/ips-validator`, `../shared/ccda-validator`):
# Debian's python3-lxml and python3-venv, and fhir.resources 8.3.0 from PyPI in a venv of the build's own
# (.build/ips-venv, ignored by git), made once. Prints the venv's python on success.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh python3-lxml python3-venv >&2
venv=.build/ips-venv
if ! "$venv/bin/python" -c 'import fhir.resources.R4B' 2>/dev/null; then
    mkdir -p .build
    /usr/bin/python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'fhir.resources==8.3.0' >&2
fi
echo "$PWD/$venv/bin/python"
