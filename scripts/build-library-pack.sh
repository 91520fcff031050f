#!/usr/bin/env bash
# Builds the default library pack, the one installed with the program, from the project's copy of the content
# (Resources/library/):
#   scripts/build-library-pack.sh [VERSION]          -> .build/library/default/ (manifest.json, .sig, .gz)
#                                                      and .build/library/default/manifest.json.sha256
# The installer trusts this pack by the SHA-256 of its manifest.json (docs/library-pack.md, "Whom a pack is
# trusted from"), not by its signature: it is signed with a key made here once and kept in .build/library/,
# which no installation trusts. The same inputs give the same pack (created: the content's data date).
# The tool is built by scripts/build-release.sh hreaderd-library-pack when .build/release has none.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2025.10.1}
tool=.build/release/hreaderd-library-pack
[[ -x $tool ]] || scripts/build-release.sh hreaderd-library-pack
out=.build/library
mkdir -p "$out"
[[ -f $out/key.pem ]] || "$tool" keygen --output "$out/key.pem" >/dev/null
rm -rf "$out/default"
"$tool" build --content Resources/library/content --codes Resources/library/codes --strings Resources/library/strings \
    --key "$out/key.pem" --version "$version" --created 2025-10-31T00:00:00Z --output "$out/default"
sha256sum "$out/default/manifest.json" | cut -d' ' -f1 > "$out/default/manifest.json.sha256"
"$tool" verify "$out/default" --public-key "$out/key.pem.pub"
