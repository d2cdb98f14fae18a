#!/usr/bin/env bash
# One device call for a merged wave, from a folder holding api/ (a bundle of
# scripts/bundle-api.sh), rel/ (scripts/gpu-sanitize-bundle.sh) and cmp/
# (scripts/bundle-compare.sh, plus bench/ and python/ of the tree):
#   1. the runtime and PyTorch-API GPU tests, EP1 layer and grouped-GEMM tests
#      (api/gpu-api.sh);
#   2. old vs new compiler: layer outputs bitwise and layer times
#      (bench/compare_cubins.py), grouped GEMM TFLOPS (bench_grouped_gemm.py
#      --dirs old=...,new=...), same data, same run;
#   3. the fault paths and compute-sanitizer runs (rel/gpu-sanitize.sh) in the
#      time that is left.
# $OUT gets summary.txt (every table) and logs.tgz. SKIP_COMPARE=1 skips step
# 2; REL_PARTS, SANITIZE_LAYERS and SANITIZE_TIMEOUT pass on to step 3.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
logs=$(mktemp -d)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
start=$SECONDS
total=${BUDGET:-560}
left() { echo $(( total - (SECONDS - start) )); }
summary=$out/summary.txt
: > "$summary"
section() { echo "=== $1 ($(( SECONDS - start )) s)" | tee -a "$summary"; }

section "api: runtime, PyTorch API, layer and grouped GEMM tests"
OUT=$logs/api BUDGET=${API_BUDGET:-170} bash "$here/api/gpu-api.sh" > "$logs/api.txt" 2>&1
sed -n '/^=== summary/,$p' "$logs/api.txt" >> "$summary"

if [[ ${SKIP_COMPARE:-0} != 1 ]]; then
section "old vs new compiler: layers (EP1, one layer per shape compiled for 8192 tokens)"
(cd "$here/cmp" && PYTHONPATH=$here/api/python MEGAMOE_RUNTIME_LIB=$here/api/python/megamoe/lib/libmegamoe_runtime.so \
  timeout 150 python3 bench/compare_cubins.py --layers layers --tokens 8,512,8192 --iters 20) \
  > "$logs/compare.txt" 2>&1
echo "rc=$?" >> "$logs/compare.txt"
grep -E "^\||rc=|Error|error" "$logs/compare.txt" | tail -12 >> "$summary"

section "old vs new compiler: grouped GEMM (8 experts, TFLOPS)"
(cd "$here/cmp" && PYTHONPATH=$here/api/python MEGAMOE_RUNTIME_LIB=$here/api/python/megamoe/lib/libmegamoe_runtime.so \
  MEGAMOE_GEMM_DIR=$here/cmp/gemm-new timeout 150 python3 bench/bench_grouped_gemm.py --rows 4096,512 \
  --dirs old=$here/cmp/gemm-old,new=$here/cmp/gemm-new) > "$logs/gemm.txt" 2>&1
echo "rc=$?" >> "$logs/gemm.txt"
grep -E "^\||rc=|Error|error" "$logs/gemm.txt" | tail -14 >> "$summary"
fi

rest=$(( $(left) - 15 ))
section "reliability: fault paths and sanitizers (${rest} s left)"
if (( rest > 60 )); then
  (cd "$here/rel" && OUT=$logs/rel PARTS=${REL_PARTS:-"faults sanitize"} SANITIZE_LAYERS=${SANITIZE_LAYERS:-san_ep1} \
    SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-55} timeout "$rest" bash gpu-sanitize.sh) > "$logs/rel.txt" 2>&1
  cat "$logs/rel/progress.txt" >> "$summary" 2>/dev/null
fi
tar czf "$out/logs.tgz" -C "$logs" . 2>/dev/null
section "done"
cat "$summary"
