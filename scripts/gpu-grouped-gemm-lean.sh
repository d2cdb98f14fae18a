#!/usr/bin/env bash
# A short GPU call for grouped-GEMM variants (little device time left): the
# GPU tests that TEST_FILTER selects (pytest -k), two bench passes at 8 x
# ROWS rows (default 4096) in opposite column order beside DeepGEMM, then
# `cuobjdump -sass` of DeepGEMM's JIT-compiled grouped GEMM (its 4096 x 7168
# kernel where found) and of our default, for reading side by side. From the
# folder that holds .anchor/ and a bundle of scripts/bundle-grouped-gemm-cluster.sh
# (this script is copied into it):
#   VARIANTS="c2pf:_bn256_c2_pf,..." TEST_FILTER="..." OUT=... bash BUNDLE/gpu-grouped-gemm-lean.sh
# Logs in $OUT (7 files); a summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?set OUT}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$here/gpu-env.sh"
export MEGAMOE_GEMM_DIR=$here/cubins
t0=$(date +%s); el() { echo "+$(( $(date +%s) - t0 ))s $*" >> "$out/steps.txt"; }
mkdir -p /tmp/dgo
(OUT=/tmp/dgo DG_ANCHOR_ONLY="none:0" bash .anchor/deepgemm/run.sh > /tmp/dgo/run.txt 2>&1) &
dg=$!
if [[ -n ${TEST_FILTER:-} ]]; then
  (cd "$here" && timeout "${TEST_TIMEOUT:-120}" python3 -m pytest -q -s python/tests/test_grouped_gemm.py -k "$TEST_FILTER") > "$out/tests.txt" 2>&1
  el "tests rc=$?"
fi
wait $dg; el "deepgemm build rc=$?"
v1=${VARIANTS:?set VARIANTS (name:suffix[:block_m],...)}
# The same columns in the opposite order.
v2=$(echo "$v1" | tr ',' '\n' | tac | paste -sd, -)
for p in 1 2; do
  v=$v1; [[ $p == 2 ]] && v=$v2
  DG_JIT_CACHE_DIR=/tmp/dg_anchor_jit PYTHONPATH=$here/python:$here/python/tests:/tmp/dg_anchor \
    timeout "${BENCH_TIMEOUT:-150}" python3 "$here/bench/grouped_gemm_cluster_side_by_side.py" --cubins "$here/cubins" \
      --variants "$v" --rows "${ROWS:-4096}" > "$out/bench$p.txt" 2>&1
  el "bench$p rc=$?"
done
for src in $(grep -rl "sm90_fp8_gemm_1d2d" /tmp/dg_anchor_jit --include=*.cu 2>/dev/null); do
  c=$(ls "$(dirname "$src")"/*.cubin 2>/dev/null | head -1)
  [[ -n $c ]] || continue
  cuobjdump -sass "$c" > "$out/dg_sass.txt" 2>&1
  cp "$src" "$out/dg_src.cu"
  grep -q 4096 "$src" && grep -q 7168 "$src" && break
done
cuobjdump -sass "$here/cubins/gg_e8_n4096_k7168_m32768_bm128_bn256_c2_pf/grouped_gemm.cubin" \
  > "$out/our_c2pf_sass.txt" 2>&1
el "sass done"
echo "=== steps"; cat "$out/steps.txt"
echo "=== tests"; grep -E "passed|failed" "$out/tests.txt" 2>/dev/null
echo "=== bench"; grep "^| " "$out/bench1.txt" | tail -4; grep "^| " "$out/bench2.txt" | tail -4
