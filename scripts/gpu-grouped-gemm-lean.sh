#!/usr/bin/env bash
# A short GPU call for grouped-GEMM variants (little device time left): the
# GPU tests that TEST_FILTER selects (pytest -k), two bench passes at 8 x
# ROWS rows (default 4096) in opposite column order beside DeepGEMM, then
# `cuobjdump -sass` of DeepGEMM's JIT-compiled grouped GEMM (its 4096 x 7168
# kernel where found) and of our default, for reading side by side. From the
# folder that holds .anchor/ and a bundle of scripts/bundle-grouped-gemm-cluster.sh
# (this script is copied into it):
#   VARIANTS="c2pf:_bn256_c2_pf,..." TEST_FILTER="..." OUT=... bash BUNDLE/gpu-grouped-gemm-lean.sh
# SASS_GLOB=... adds the SASS check of those cubin folders, DECODE=1 the decode-size table,
# NCU=1 Nsight Compute of NCU_VARIANTS and DeepGEMM (ncu_summary.txt, two SASS pages),
# (bench/grouped_gemm_decode_side_by_side.py). Logs in $OUT (at most 8 files); a summary last.
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
# SASS_GLOB: the SASS check (QGMMA count, no LDL/STL) of the cubin folders it matches.
if [[ -n ${SASS_GLOB:-} ]]; then
  python3 "$here/python/tests/sass_check.py" "$here"/cubins/$SASS_GLOB/ > "$out/sass_check.txt" 2>&1
  el "sass check rc=$?"
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
# DECODE=1: the decode-size table (BLOCK_M 64, swap-AB 32 and 16, DeepGEMM).
if [[ ${DECODE:-0} == 1 ]]; then
  DG_JIT_CACHE_DIR=/tmp/dg_anchor_jit PYTHONPATH=$here/python:$here/python/tests:/tmp/dg_anchor \
    timeout "${BENCH_TIMEOUT:-150}" python3 "$here/bench/grouped_gemm_decode_side_by_side.py" \
      --cubins "$here/cubins" > "$out/decode.txt" 2>&1
  el "decode rc=$?"
fi
if [[ ${SASS_DUMP:-1} == 1 ]]; then
for src in $(grep -rl "sm90_fp8_gemm_1d2d" /tmp/dg_anchor_jit --include=*.cu 2>/dev/null); do
  c=$(ls "$(dirname "$src")"/*.cubin 2>/dev/null | head -1)
  [[ -n $c ]] || continue
  cuobjdump -sass "$c" > "$out/dg_sass.txt" 2>&1
  grep -q 4096 "$src" && grep -q 7168 "$src" && break
done
cuobjdump -sass "$here/cubins/gg_e8_n4096_k7168_m32768_bm128_bn256_c2_pf/grouped_gemm.cubin" \
  > "$out/our_c2pf_sass.txt" 2>&1
fi
el "sass done"
# NCU=1: Nsight Compute of the cubins NCU_VARIANTS names (gpu-grouped-gemm-ncu.sh) and of
# DeepGEMM's kernel; its summary and the SASS pages of the first variant and DeepGEMM's.
if [[ ${NCU:-0} == 1 ]]; then
  OUT=/tmp/ncu_lean bash "$here/gpu-grouped-gemm-ncu.sh" > "$out/ncu_summary.txt" 2>&1
  el "ncu rc=$?"
  first=$(echo "${NCU_VARIANTS:-_bn256}" | awk '{print $1}')
  cp "/tmp/ncu_lean/ncu/mm$first.sass.csv" "$out/ncu_mm.sass.csv" 2>/dev/null
  cp /tmp/ncu_lean/ncu/dg.sass.csv "$out/ncu_dg.sass.csv" 2>/dev/null
fi
echo "=== steps"; cat "$out/steps.txt"
echo "=== tests"; grep -E "passed|failed|FAILED" "$out/tests.txt" 2>/dev/null | tail -12
echo "=== sass"; grep -c " ok" "$out/sass_check.txt" 2>/dev/null; grep FAIL "$out/sass_check.txt" 2>/dev/null
echo "=== decode"; grep "^| " "$out/decode.txt" 2>/dev/null
echo "=== ncu"; grep -E "^---|Duration|Issue Slots Busy|Warp Cycles Per Issued" "$out/ncu_summary.txt" 2>/dev/null
echo "=== bench"; grep "^| " "$out/bench1.txt" | tail -4; grep "^| " "$out/bench2.txt" | tail -4
