#!/usr/bin/env bash
# Runs the daemon with a demo store: a synthetic family (no real person's data, imported as FHIR R4) on
# http://127.0.0.1:8420/, and the health library: the default pack (scripts/build-library-pack.sh), which the
# daemon installs into the demo state at its first start.
# The demo state lives in .build/demo (ignored by git); delete it to start over.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build-release.sh hreaderd generate-records hreaderd-library-pack
[[ -f .build/library/default/manifest.json.sha256 ]] || scripts/build-library-pack.sh
bin=.build/release/hreaderd
demo=${HREADERD_DEMO_DIR:-$PWD/.build/demo}
mkdir -p "$demo"
chmod 700 "$demo"
if [[ ! -f "$demo/password" ]]; then
    (umask 077 && echo "demo-password" > "$demo/password")
fi
export HREADERD_STATE_DIR="$demo/state" HREADERD_PASSWORD_FILE="$demo/password"
if [[ ! -f "$demo/state/hreaderd.key" ]]; then
    (umask 077 && "$bin" init > "$demo/recovery-key.txt")
    # A FHIR R4 bundle, as a portal or a health app would give it, read by the FHIR reader; its history
    # runs up to today. Lab results carry their ranges and flags, and the grandparent has died.
    .build/release/generate-records --seed 7 --entries 1500 --format fhir --end today --output "$demo/family.fhir.json"
    "$bin" import-file "$demo/family.fhir.json"
fi
echo "hreaderd demo: http://127.0.0.1:8420/ (store password: $(head -n1 "$demo/password"); Ctrl-C stops it)" >&2
exec "$bin" serve --listen 127.0.0.1:8420 --bundled-library "$PWD/.build/library/default" "$@"
