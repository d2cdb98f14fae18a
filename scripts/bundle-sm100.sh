#!/usr/bin/env bash
# Gathers the sm_100a cubins (scripts/sm100-kernels.sh: the grouped GEMM
# variants and the V4-Flash / V4-Pro unfused layers) with their manifests and
# the SASS check into one folder, a few MiB. On a machine with cuobjdump
# (the H200 GPU machine; no Blackwell GPU is needed, nothing is run):
#   bash DEST/gpu-sm100-sass.sh
#
#   scripts/bundle-sm100.sh DEST [MEGAMOE_OPT]
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: $0 DEST [MEGAMOE_OPT]}
opt=${2:-${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}}
rm -rf "$dest"
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash scripts/sm100-kernels.sh "$tmp" "$opt" --check > "$tmp.check.txt"
mkdir -p "$dest/cubins"
for d in "$tmp"/*/; do
  name=$(basename "$d")
  mkdir -p "$dest/cubins/$name"
  cp "$d"/*.cubin "$d"/*.json "$dest/cubins/$name/"
done
mv "$tmp.check.txt" "$dest/ptxas-check.txt"
cp scripts/gpu-sm100-sass.sh "$dest/"
size=$(du -sk "$dest" | cut -f1)
echo "bundle-sm100: $dest holds $(ls "$dest/cubins" | wc -l) modules, ${size} KiB"
if (( size >= 16384 )); then echo "bundle-sm100: larger than 16 MiB" >&2; exit 1; fi
