#!/usr/bin/env bash
# The BLOCK_N 256 GPU run (bench/RESULTS.md): from the folder holding the
# bundle (scripts/bundle-grouped-gemm.sh) and, for DeepGEMM, .anchor/:
#   OUT=DIR bash <bundle>/gpu-grouped-gemm-bn.sh
# 1. DeepGEMM's build in the background (.anchor/deepgemm/run.sh, no layer
#    cases); 2. gpu-grouped-gemm.sh without its solo bench: SASS/resources of
#    every cubin, smoke test, the GPU tests; 3. the side by side of the tile
#    variants (BLOCK_M x BLOCK_N 128x128, 64x128, 128x256, 64x256), DeepGEMM
#    and one torch._scaled_mm (bench/grouped_gemm_bn_side_by_side.py).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
dg_pid=""
if [[ -d $root/.anchor/deepgemm ]]; then
  (cd "$root" && OUT=/tmp/dg_build_out DG_ANCHOR_ONLY="none:0" \
     timeout ${DG_TIMEOUT:-200} bash .anchor/deepgemm/run.sh > /tmp/dg_run.log 2>&1) &
  dg_pid=$!
fi
NO_BENCH=1 TEST_TIMEOUT=${TEST_TIMEOUT:-150} OUT=$out bash "$here/gpu-grouped-gemm.sh"
cuobjdump -sass "$here/cubins/gg_e8_n4096_k7168_m32768_bm128_bn256/grouped_gemm.cubin" \
  > "$out/sass_bm128_bn256_4096x7168.txt" 2>&1
[[ -n $dg_pid ]] && wait "$dg_pid"
{ tail -5 /tmp/dg_run.log; tail -20 /tmp/dg_build_out/build.log; } > "$out/dg_build_tail.txt" 2>&1
source "$here/gpu-env.sh"
export DG_JIT_CACHE_DIR=/tmp/dg_anchor_jit
PYTHONPATH=$here/python:$here/python/tests:/tmp/dg_anchor timeout ${BENCH_TIMEOUT:-170} \
  python3 "$here/bench/grouped_gemm_bn_side_by_side.py" --cubins "$here/cubins" \
  > "$out/side_by_side.txt" 2>&1
echo "=== side by side (rc=$?)"; tail -20 "$out/side_by_side.txt"
