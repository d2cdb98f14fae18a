#!/usr/bin/env bash
# Compiles a fixed set of kernels to PTX + manifest (no GPU needed) so that
# two compilers can be compared: a refactor that claims "no change of
# results" shows an empty (or explained) diff between the snapshots.
#
#   scripts/ptx-snapshot.sh OUT_DIR [MEGAMOE_OPT]
#   diff -r OLD_DIR NEW_DIR
#
# The set: the standalone grouped GEMM at the four (N, K) of bench/RESULTS.md
# (BLOCK_M 128 and 64) and its layer options (f32 out, gate/up scales,
# device m-blocks), and the unfused layer of V4-Flash and V4-Pro at EP1
# (T = 8, 512, 8192) and of the small test layer at EP2.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: $0 OUT_DIR [MEGAMOE_OPT]}
opt=${2:-$PWD/build/release/bin/megamoe-opt}
[[ -x $opt ]] || { echo "ptx-snapshot: megamoe-opt not found at $opt" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

keep() { # keep() NAME DIR: the PTX and the manifest of DIR as NAME.{ptx,json}
  cp "$2"/*.ptx "$out/$1.ptx"
  cp "$2"/*.json "$out/$1.json"
}

for nk in 4096:7168 7168:2048 4096:4096 4096:2048; do
  IFS=: read -r n k <<<"$nk"
  for bm in 128 64; do
    d=$tmp/gg_${n}_${k}_$bm
    echo 'module {}' | "$opt" \
      --megamoe-grouped-gemm="block-n=128 experts=8 n=$n k=$k max-m=32768 block-m=$bm" \
      --megamoe-to-cubin="chip=sm_90a emit-dir=$d" -o /dev/null
    keep "gg_n${n}_k${k}_bm$bm" "$d"
  done
done
d=$tmp/gg_opts
echo 'module {}' | "$opt" \
  --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=2048 max-m=4096 block-m=128 out-type=f32 b-scale-interleave=8 device-m-blocks=true static-m=4096" \
  --megamoe-to-cubin="chip=sm_90a emit-dir=$d" -o /dev/null
keep gg_layer_options "$d"

layer() { # layer() NAME H I E K R T CLAMP
  local d=$tmp/$1 clamp=""
  [[ $8 != 0 ]] && clamp=" clamp=$8"
  echo 'module {}' | "$opt" \
    --megamoe-layer="hidden=$2 intermediate=$3 experts=$4 topk=$5 ranks=$6 max-tokens=$7 chip=sm_90a$clamp" \
    --megamoe-plan="schedule=unfused" --megamoe-expand \
    --megamoe-to-cubin="chip=sm_90a emit-dir=$d" -o /dev/null
  keep "$1" "$d"
}
for t in 8 512 8192; do
  layer "flash_ep1_t$t" 4096 2048 256 6 1 "$t" 10
  layer "pro_ep1_t$t" 7168 3072 384 6 1 "$t" 10
done
layer small_ep2 512 256 8 2 2 256 0
echo "ptx-snapshot: $(ls "$out" | wc -l) files in $out"
