#!/usr/bin/env bash
# Gathers what scripts/gpu-profile.sh needs on the GPU machine into DEST: the
# split schedule of the small test layer and of V4-Flash (EP1, 8192 tokens),
# each compiled without and with the phase profile (megamoe-expand
# profile=true, docs/Profile.md; folders NAME and NAMEp), with
# scripts/bundle-split.sh. On the GPU machine:
#   bash DEST/gpu-profile.sh        (logs, tables and PNGs under $OUT)
#
#   scripts/bundle-profile.sh DEST      (e.g. /work/main/.bundle-prof)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: $0 DEST}
LAYERS=${LAYERS:-"s_ep1:512:256:8:2:1:64 s_ep1p:512:256:8:2:1:64::profile=true flash:4096:2048:256:6:1:8192 flashp:4096:2048:256:6:1:8192::profile=true"} \
  BUILDS=split bash scripts/bundle-split.sh "$dest"
cp scripts/gpu-profile.sh "$dest/"
echo "bundle-profile: $dest holds $(du -sm "$dest" | cut -f1) MiB"
