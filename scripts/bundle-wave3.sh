#!/usr/bin/env bash
# The bundle of scripts/gpu-wave3.sh (one device call for a merged wave):
# DEST/api (scripts/bundle-api.sh), DEST/rel (scripts/gpu-sanitize-bundle.sh),
# DEST/cmp (scripts/bundle-compare.sh with the old compiler OLD_OPT, and the
# bench scripts). On the GPU machine: bash DEST/gpu-wave3.sh
#
#   OLD_OPT=/path/to/old/megamoe-opt scripts/bundle-wave3.sh /work/main/.bundle-w3
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: OLD_OPT=... $0 DEST}
rm -rf "$dest" && mkdir -p "$dest"
DEST=$dest/api bash scripts/bundle-api.sh > /dev/null
bash scripts/gpu-sanitize-bundle.sh "$dest/rel" > /dev/null
bash scripts/bundle-compare.sh "$dest/cmp"
mkdir -p "$dest/cmp/bench" "$dest/cmp/python/tests"
cp bench/*.py "$dest/cmp/bench/"
cp python/tests/grouped_gemm_ref.py "$dest/cmp/python/tests/"
cp scripts/gpu-wave3.sh "$dest/"
echo "bundle-wave3: $(du -sm "$dest" | cut -f1) MiB in $dest"
