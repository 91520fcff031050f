#!/usr/bin/env bash
# Installs the default library pack (scripts/build-library-pack.sh) into a state directory's library folder,
# trusted by its recorded manifest SHA-256; does nothing when the same or a newer pack is installed there.
#   scripts/install-library-pack.sh STATE_DIR [PACK_DIR]
# The daemon does the same by itself at start (`serve`, with the pack `make install` puts in
# $(DATADIR)/library/default or the build tree's); this script is for a state directory no daemon serves yet.
set -euo pipefail
cd "$(dirname "$0")/.."
state=${1:?usage: scripts/install-library-pack.sh STATE_DIR [PACK_DIR]}
pack=${2:-.build/library/default}
tool=.build/release/hreaderd-library-pack
[[ -x $tool ]] || tool=.build/debug/hreaderd-library-pack
[[ -f $pack/manifest.json.sha256 ]] || scripts/build-library-pack.sh
if ! out=$("$tool" install "$pack" --library "$state/library" --bundled-sha256 "$(cat "$pack/manifest.json.sha256")" --source bundled 2>&1); then
    case $out in
        *"is not newer than the installed version"*) echo "library: the installed pack is as new or newer; left as it is" ;;
        *) echo "$out" >&2; exit 1 ;;
    esac
else
    echo "$out"
fi
