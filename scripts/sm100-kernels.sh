#!/usr/bin/env bash
# Compiles the sm_100a kernels (docs/SM100.md) to cubin + PTX + manifest +
# header: the standalone grouped GEMM at the four (N, K) of bench/RESULTS.md
# (BLOCK_M 128 and 64) and with its layer options, and the unfused layer of
# V4-Flash and V4-Pro at EP1 (T = 8, 512, 8192): the set of
# scripts/ptx-snapshot.sh, for sm_100a. These kernels are compiled and
# assembled here, not run: no Blackwell GPU is available.
#
#   scripts/sm100-kernels.sh OUT_DIR [MEGAMOE_OPT] [--check]
#
# --check: every manifest must say sm_100a, and ptxas -arch=sm_100a -v must
# assemble every PTX with 0 bytes of spill stores and loads; prints one line
# per kernel and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: $0 OUT_DIR [MEGAMOE_OPT] [--check]}
opt=${2:-$PWD/build/release/bin/megamoe-opt}
check=${3:-}
[[ -x $opt ]] || { echo "sm100-kernels: megamoe-opt not found at $opt" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

gemm() { # gemm NAME OPTIONS
  echo 'module {}' | "$opt" --megamoe-grouped-gemm="$2 chip=sm_100a" \
    --megamoe-to-cubin="chip=sm_100a emit-dir=$out/$1" -o /dev/null
}
layer() { # layer NAME H I E T
  echo 'module {}' | "$opt" \
    --megamoe-layer="hidden=$2 intermediate=$3 experts=$4 topk=6 ranks=1 max-tokens=$5 chip=sm_100a clamp=10" \
    --megamoe-plan="schedule=unfused" --megamoe-expand \
    --megamoe-to-cubin="chip=sm_100a emit-dir=$out/$1" -o /dev/null
}

for nk in 4096:7168 7168:2048 4096:4096 4096:2048; do
  IFS=: read -r n k <<<"$nk"
  for bm in 128 64; do
    gemm "gg_n${n}_k${k}_bm$bm" "experts=8 n=$n k=$k max-m=32768 block-m=$bm"
  done
done
gemm gg_layer_options "experts=8 n=4096 k=2048 max-m=4096 block-m=128 out-type=f32 b-scale-interleave=8 device-m-blocks=true static-m=4096"
for t in 8 512 8192; do
  layer "flash_ep1_t$t" 4096 2048 256 "$t"
  layer "pro_ep1_t$t" 7168 3072 384 "$t"
done
echo "sm100-kernels: $(ls "$out" | wc -l) modules in $out"

[[ $check == --check ]] || exit 0
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
[[ -x $ptxas ]] || { echo "sm100-kernels: ptxas not found at $ptxas" >&2; exit 1; }
fail=0
for dir in "$out"/*/; do
  name=$(basename "$dir")
  json=$(ls "$dir"*.json)
  ptx=$(ls "$dir"*.ptx)
  chip=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chip"])' "$json")
  log=$("$ptxas" -arch=sm_100a -v "$ptx" -o "$dir/check.cubin" 2>&1) || {
    echo "FAIL $name: ptxas failed"; echo "$log"; fail=1; continue; }
  rm -f "$dir/check.cubin"
  kernels=$(grep -c "bytes spill stores" <<<"$log" || true)
  spills=$(grep -E "bytes spill" <<<"$log" | grep -cvE "^.* 0 bytes spill stores, 0 bytes spill loads" || true)
  status=ok
  [[ $chip == sm_100a ]] || { status="FAIL (manifest chip $chip)"; fail=1; }
  (( spills == 0 )) || { status="FAIL ($spills kernels spill)"; fail=1; }
  printf '%-24s chip=%s kernels=%s spilling=%s %s\n' "$name" "$chip" "$kernels" "$spills" "$status"
done
exit $fail
